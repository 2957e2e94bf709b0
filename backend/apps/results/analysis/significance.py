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


# Sums of whole numbers below 2**53 are exact in float64 whatever their order.
_EXACT_FLOAT_INTEGERS = 2**53


def _u_and_variance(sorted_cand: np.ndarray, sorted_base: np.ndarray) -> tuple[float, float]:
    """U of the candidate and its tie-corrected variance under the null, from the two sorted
    arms: each candidate value's count of baseline values below it and at or below it (a
    binary search of the sorted baseline, which numpy speeds up for sorted queries), and the
    tie term Σ(t³ − t) over runs of equal values of both arms as an exact integer: the
    baseline's runs, with each run the candidate shares grown by the candidate's values."""
    n_c, n_b = len(sorted_cand), len(sorted_base)
    if n_c + n_b > 2**20:  # a run of ties could then pass the exact range of int64 t³
        return _u_and_variance_by_merge(sorted_cand, sorted_base)
    below = np.searchsorted(sorted_base, sorted_cand, side="left")
    at_or_below = np.searchsorted(sorted_base, sorted_cand, side="right")
    cand_run, cand_ties = _runs(sorted_cand)
    _, base_ties = _runs(sorted_base)
    shared = at_or_below[cand_run] - below[cand_run]  # baseline values equal to each candidate run's
    pooled = cand_ties + shared
    ties = int((base_ties**3 - base_ties).sum() + (pooled**3 - pooled - (shared**3 - shared)).sum())
    if ties >= _EXACT_FLOAT_INTEGERS:  # the merge's float64 sum of them is then no longer exact
        return _u_and_variance_by_merge(sorted_cand, sorted_base)
    u = (int(below.sum()) + int(at_or_below.sum())) / 2.0
    n = float(n_c + n_b)
    variance = n_c * n_b / 12.0 * ((n + 1) - float(ties) / (n * (n - 1)))
    return u, float(variance)


def _runs(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First position and length (int64) of each run of equal values."""
    starts = np.flatnonzero(np.concatenate(([True], sorted_values[1:] != sorted_values[:-1])))
    return starts, np.diff(np.append(starts, len(sorted_values))).astype(np.int64)


def _u_and_variance_by_merge(sorted_cand: np.ndarray, sorted_base: np.ndarray) -> tuple[float, float]:
    """_u_and_variance from one stable merge of the two sorted arms, the tie term summed in
    float64: for arms of over a million values together, or ties so many that Σ(t³ − t)
    leaves the exact integers of float64."""
    n_c, n_b = len(sorted_cand), len(sorted_base)
    merged = np.concatenate((sorted_base, sorted_cand))
    order = np.argsort(merged, kind="stable")  # ties: baseline values first
    pooled = merged[order]
    is_cand = order >= n_b
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
