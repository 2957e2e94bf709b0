"""Hypothesis tests and multiple-comparison control.

The primary test runs on per-block log-ratios because requests within a block
share the block's conditions; treating requests as independent (as
Mann-Whitney on requests does) makes p-values overconfident, so that test is
reported as secondary only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .distributions import norm_ppf, norm_sf, t_ppf, t_sf


def block_t_test(block_effects: np.ndarray) -> float:
    """Two-sided one-sample t-test that the mean per-block log-ratio is 0.

    A block's log-ratio averages tens to thousands of requests, so it is close to
    normal and the t-test is exact enough; unlike a rank test on n blocks, whose
    p cannot go below 2 / 2^n (0.031 with 6 blocks), its p has no floor set by
    the block count, and its n − 1 degrees of freedom carry the between-block
    variance (the arms' drift within a block) that a test on requests ignores.
    """
    x = np.asarray(block_effects, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return 1.0
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    if sd == 0:
        return 1.0 if mean == 0 else 0.0
    t = mean / (sd / math.sqrt(len(x)))
    return float(min(1.0, 2.0 * t_sf(abs(t), len(x) - 1)))


@dataclass(frozen=True)
class BlockEffectEstimate:
    """Mean per-block log-ratio with its t-test and t-intervals: the verdict's one estimand."""

    n: int
    mean: float
    sd: float  # NaN with fewer than 2 blocks
    p: float

    @property
    def ratio(self) -> float:
        return math.exp(self.mean)

    def ratio_ci(self, level: float) -> tuple[float, float]:
        """Student-t interval of the mean block log-ratio, as a ratio (NaN with < 2 blocks)."""
        if self.n < 2:
            return float("nan"), float("nan")
        half = t_ppf(0.5 + level / 2, self.n - 1) * self.sd / math.sqrt(self.n)
        return math.exp(self.mean - half), math.exp(self.mean + half)


def block_effect_estimate(block_effects: np.ndarray) -> BlockEffectEstimate:
    x = np.asarray(block_effects, dtype=np.float64)
    x = x[np.isfinite(x)]
    sd = float(x.std(ddof=1)) if len(x) > 1 else float("nan")
    return BlockEffectEstimate(n=len(x), mean=float(x.mean()) if len(x) else float("nan"), sd=sd,
                               p=block_t_test(x))


def blocks_for_t_test(effect: float, block_sd: float, alpha: float, *, limit: int = 10_000) -> int | None:
    """Fewest blocks at which the t-test's p falls below alpha if the mean block log-ratio
    and its spread stay as observed (None when the effect is 0 or more than ``limit`` are needed)."""
    if effect == 0 or not math.isfinite(effect) or not math.isfinite(block_sd):
        return None
    if block_sd <= 0:
        return 2
    n = max(2, math.ceil((norm_ppf(1 - alpha / 2) * block_sd / abs(effect)) ** 2))
    # The first n from the normal approximation on whose t-interval clears the effect, tried
    # in growing runs of n at once (one ufunc call each), not one quantile call per n.
    q, run = 1 - alpha / 2, 16
    while n <= limit:
        candidates = np.arange(n, min(n + run, limit + 1))
        clears = np.flatnonzero(special.stdtrit(candidates - 1.0, q) * block_sd / np.sqrt(candidates) < abs(effect))
        if len(clears):
            return int(candidates[clears[0]])
        n, run = n + run, run * 4
    return None


# Below this many requests scipy's exact or tie-aware small-sample method is used.
MANN_WHITNEY_LARGE = 200


def mann_whitney(candidate: np.ndarray, baseline: np.ndarray, *, arms_sorted: bool = False) -> tuple[float, float]:
    """(U of the candidate, two-sided p) on requests — secondary, it ignores clustering.

    U counts pairs where the candidate is larger, ties ½. For large samples U
    and the tie-corrected normal approximation (with continuity correction, as
    scipy) come from the sorted arms (_u_and_variance). `arms_sorted`: both arms
    arrive sorted (compare.py's do), so they are not sorted again.
    """
    n_c, n_b = len(candidate), len(baseline)
    if n_c == 0 or n_b == 0:
        return float("nan"), float("nan")
    if n_c + n_b < MANN_WHITNEY_LARGE:
        result = stats.mannwhitneyu(candidate, baseline, alternative="two-sided", method="auto")
        return float(result.statistic), float(result.pvalue)
    if not arms_sorted:
        candidate, baseline = np.sort(candidate, kind="stable"), np.sort(baseline, kind="stable")
    u, variance = _u_and_variance(candidate, baseline)
    if variance <= 0:
        return u, 1.0
    z = (abs(u - n_c * n_b / 2.0) - 0.5) / np.sqrt(variance)
    return u, float(min(1.0, 2.0 * norm_sf(max(z, 0.0))))


def _u_and_variance(sorted_cand: np.ndarray, sorted_base: np.ndarray) -> tuple[float, float]:
    """U of the candidate and its tie-corrected variance under the null, from one merge of the
    two sorted arms. Integer values (latencies in µs) are merged as value × 2 + (1 for a
    candidate): a sort of those, linear on two sorted runs, puts a value's baseline copies
    before its candidate ones, as the stable merge of the arms does, at a third of the cost
    of an argsort and its gathers."""
    n_c, n_b = len(sorted_cand), len(sorted_base)
    packable = (np.issubdtype(sorted_cand.dtype, np.integer) and np.issubdtype(sorted_base.dtype, np.integer)
                and n_c and n_b and min(sorted_cand[0], sorted_base[0]) >= 0
                and max(sorted_cand[-1], sorted_base[-1]) < 2**62)
    if not packable:
        return _u_and_variance_by_merge(sorted_cand, sorted_base)
    merged = np.concatenate((sorted_base.astype(np.int64) << 1, (sorted_cand.astype(np.int64) << 1) | 1))
    merged.sort(kind="stable")
    is_cand = merged & 1
    merged >>= 1
    return _u_and_variance_of_pooled(merged, is_cand.astype(bool), n_c, n_b)


def _u_and_variance_by_merge(sorted_cand: np.ndarray, sorted_base: np.ndarray) -> tuple[float, float]:
    """_u_and_variance for values of any kind, from a stable argsort of the arms."""
    # Sorting is linear on already-sorted input (timsort), and a stable argsort of the two
    # sorted arms one after the other is a linear merge; callers that hold sorted arms pay little.
    n_c, n_b = len(sorted_cand), len(sorted_base)
    merged = np.concatenate((sorted_base, sorted_cand))
    order = np.argsort(merged, kind="stable")  # ties: baseline values first
    return _u_and_variance_of_pooled(merged[order], order >= n_b, n_c, n_b)


def _u_and_variance_of_pooled(pooled: np.ndarray, is_cand: np.ndarray, n_c: int, n_b: int) -> tuple[float, float]:
    """U and its variance from the pooled values in order, each value's baseline copies first."""
    run_starts = np.flatnonzero(np.concatenate(([True], pooled[1:] != pooled[:-1])))
    ties = np.diff(np.append(run_starts, len(pooled))).astype(np.float64)
    # The i-th smallest candidate value sits at merged position p_i with p_i − i baseline
    # values at or below it; candidate values in each run of ties meet the run's baseline ones.
    below_or_tied = int(np.flatnonzero(is_cand).sum()) - n_c * (n_c - 1) // 2
    cand_in_run = np.add.reduceat(is_cand.astype(np.int64), run_starts)
    base_in_run = np.diff(np.append(run_starts, len(pooled))) - cand_in_run
    below = below_or_tied - int((cand_in_run * base_in_run).sum())
    u = (below + below_or_tied) / 2.0
    n = float(n_c + n_b)
    variance = n_c * n_b / 12.0 * ((n + 1) - (ties**3 - ties).sum() / (n * (n - 1)))
    return u, float(variance)


def stratified_mann_whitney(candidate: np.ndarray, cand_stratum: np.ndarray, baseline: np.ndarray,
                            base_stratum: np.ndarray) -> tuple[float, int, float]:
    """(Σ U over strata, Σ pairs compared, two-sided p): Mann-Whitney within each stratum
    (values are compared only with values of their own stratum), the U and their null variances
    summed over the strata where both arms have values (the stratified rank-sum test, with
    equal weight per pair; normal approximation with continuity correction). Secondary, like
    mann_whitney: it treats requests, here groups, as independent."""
    u_total = mean_total = variance_total = 0.0
    pairs = 0
    for s in np.intersect1d(cand_stratum, base_stratum):
        cand = np.sort(candidate[cand_stratum == s], kind="stable")
        base = np.sort(baseline[base_stratum == s], kind="stable")
        u, variance = _u_and_variance(cand, base)
        u_total += u
        mean_total += len(cand) * len(base) / 2.0
        variance_total += variance
        pairs += len(cand) * len(base)
    if pairs == 0:
        return float("nan"), 0, float("nan")
    if variance_total <= 0:
        return u_total, pairs, 1.0
    z = (abs(u_total - mean_total) - 0.5) / math.sqrt(variance_total)
    return u_total, pairs, float(min(1.0, 2.0 * norm_sf(max(z, 0.0))))


def mann_whitney_p(candidate: np.ndarray, baseline: np.ndarray) -> float:
    return mann_whitney(candidate, baseline)[1]


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (monotone, capped at 1); NaN stays NaN and is not counted."""
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(len(p), np.nan)
    valid = np.flatnonzero(np.isfinite(p))
    m = len(valid)
    if m == 0:
        return adjusted
    order = valid[np.argsort(p[valid], kind="stable")]
    scaled = (m - np.arange(m)) * p[order]
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted
