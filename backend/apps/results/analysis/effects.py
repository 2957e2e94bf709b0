"""Effect sizes and their plain-words labels."""

from __future__ import annotations

import numpy as np
from scipy import stats

# Romano et al. cut-offs for |Cliff's δ|.
CLIFF_THRESHOLDS = ((0.474, "large"), (0.33, "medium"), (0.147, "small"))
# Cohen (0.2/0.5/0.8) extended by Sawilowsky (1.2 very large, 2.0 huge).
COHEN_THRESHOLDS = ((2.0, "huge"), (1.2, "very large"), (0.8, "large"), (0.5, "medium"), (0.2, "small"))


def cliffs_delta_from_u(u_candidate: float, n_candidate: int, n_baseline: int) -> float:
    """δ = P(cand > base) − P(cand < base), from Mann-Whitney U of the candidate (ties count ½)."""
    return 2.0 * u_candidate / (n_candidate * n_baseline) - 1.0


def mann_whitney_u(candidate: np.ndarray, baseline: np.ndarray) -> float:
    """U statistic of the candidate (number of pairs where it is larger, ties ½), via one ranking."""
    ranks = stats.rankdata(np.concatenate((candidate, baseline)))
    n_c = len(candidate)
    return float(ranks[:n_c].sum() - n_c * (n_c + 1) / 2.0)


def cliffs_delta(candidate: np.ndarray, baseline: np.ndarray) -> float:
    """Cliff's δ; positive when the candidate tends to be larger (slower)."""
    return cliffs_delta_from_u(mann_whitney_u(candidate, baseline), len(candidate), len(baseline))


def cliffs_label(delta: float) -> str:
    magnitude = abs(delta)
    for threshold, label in CLIFF_THRESHOLDS:
        if magnitude >= threshold:
            return label
    return "negligible"


def cohens_d_log(candidate: np.ndarray, baseline: np.ndarray) -> float:
    """Cohen's d on log latency (pooled SD): latency is multiplicative, so logs are the fair scale."""
    return cohens_d_from_logs(np.log(np.asarray(candidate, dtype=np.float64)),
                              np.log(np.asarray(baseline, dtype=np.float64)))


def cohens_d_from_logs(a: np.ndarray, b: np.ndarray) -> float:
    """cohens_d_log of the two arms' log latencies (an analysis logs every value once)."""
    n_a, n_b = len(a), len(b)
    if n_a < 2 or n_b < 2:
        return float("nan")
    pooled_var = ((n_a - 1) * a.var(ddof=1) + (n_b - 1) * b.var(ddof=1)) / (n_a + n_b - 2)
    if pooled_var == 0:
        return 0.0 if a.mean() == b.mean() else float(np.copysign(np.inf, a.mean() - b.mean()))
    return float((a.mean() - b.mean()) / np.sqrt(pooled_var))


def cohens_d_log_stratified(candidate: np.ndarray, cand_stratum: np.ndarray, baseline: np.ndarray,
                            base_stratum: np.ndarray) -> float:
    """Cohen's d on log latency within strata: the mean over strata (equally weighted, as the
    verdict's effect) of the difference of mean logs, over the pooled within-stratum SD. The
    spread between strata (a 30-request series is longer than a 3-request one) is no noise."""
    a = np.log(np.asarray(candidate, dtype=np.float64))
    b = np.log(np.asarray(baseline, dtype=np.float64))
    differences, squares, dof = [], 0.0, 0
    for s in np.intersect1d(cand_stratum, base_stratum):
        x, y = a[cand_stratum == s], b[base_stratum == s]
        differences.append(x.mean() - y.mean())
        squares += float(((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum())
        dof += len(x) + len(y) - 2
    if not differences or dof <= 0:
        return float("nan")
    difference = float(np.mean(differences))
    if squares == 0:
        return 0.0 if difference == 0 else float(np.copysign(np.inf, difference))
    return difference / float(np.sqrt(squares / dof))


def cohens_label(d: float) -> str:
    magnitude = abs(d)
    for threshold, label in COHEN_THRESHOLDS:
        if magnitude >= threshold:
            return label
    return "negligible"


def percentage_gain(baseline_time: float, arm_time: float) -> float:
    """How much faster the arm is than the baseline, in % (seeds/000: (baseline / arm − 1) × 100)."""
    return (baseline_time / arm_time - 1.0) * 100.0


def speedup(baseline_time: float, arm_time: float) -> float:
    """× factor: 2.0 means the arm takes half the baseline's time."""
    return baseline_time / arm_time
