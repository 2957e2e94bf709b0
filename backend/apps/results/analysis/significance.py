"""Hypothesis tests and multiple-comparison control.

The primary test runs on per-block log-ratios because requests within a block
share the block's conditions; treating requests as independent (as
Mann-Whitney on requests does) makes p-values overconfident, so that test is
reported as secondary only.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def block_log_ratio_test(log_ratios: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value that the median block log-ratio is 0.

    scipy uses the exact null distribution for small samples without ties and
    the normal approximation otherwise. Needs at least one non-zero ratio.
    """
    x = np.asarray(log_ratios, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0 or not np.any(x != 0):
        return 1.0
    return float(stats.wilcoxon(x, zero_method="wilcox", alternative="two-sided").pvalue)


def min_attainable_wilcoxon_p(n_blocks: int) -> float:
    """Smallest two-sided p an exact signed-rank test can give with n blocks (all signs equal)."""
    return min(1.0, 2.0 / 2.0**n_blocks)


def blocks_for_attainable_p(alpha: float) -> int:
    """Fewest blocks for which the exact test can reach p < alpha at all."""
    return max(1, math.floor(math.log2(2.0 / alpha)) + 1)


# Below this many requests scipy's exact or tie-aware small-sample method is used.
MANN_WHITNEY_LARGE = 200


def mann_whitney(candidate: np.ndarray, baseline: np.ndarray) -> tuple[float, float]:
    """(U of the candidate, two-sided p) on requests — secondary, it ignores clustering.

    U counts pairs where the candidate is larger, ties ½. For large samples U
    and the tie-corrected normal approximation (with continuity correction, as
    scipy) come from one stable merge of the two sorted arms, which is several
    times cheaper than ranking the concatenation.
    """
    n_c, n_b = len(candidate), len(baseline)
    if n_c == 0 or n_b == 0:
        return float("nan"), float("nan")
    if n_c + n_b < MANN_WHITNEY_LARGE:
        result = stats.mannwhitneyu(candidate, baseline, alternative="two-sided", method="auto")
        return float(result.statistic), float(result.pvalue)
    # Sorting is linear on already-sorted input (timsort), and a stable argsort of the two
    # sorted arms one after the other is a linear merge; callers that hold sorted arms pay little.
    sorted_cand = np.sort(candidate, kind="stable")
    sorted_base = np.sort(baseline, kind="stable")
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
    if variance <= 0:
        return u, 1.0
    z = (abs(u - n_c * n_b / 2.0) - 0.5) / np.sqrt(variance)
    return u, float(min(1.0, 2.0 * stats.norm.sf(max(z, 0.0))))


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
