"""Per arm × period × device × profile descriptive statistics."""

from __future__ import annotations

import numpy as np

from .bootstrap import DEFAULT_BOOTSTRAP_SEED, median_ci_sorted
from .grouping import Groups, SortedGroups, group_by, sorted_groups, sorted_quantiles
from .table import METRIC_COLUMNS, SampleTable

US_PER_MS = 1000.0
DESCRIBE_KEYS = ("arm", "period", "device", "profile")


def describe(
    table: SampleTable,
    *,
    metric: str = "total_ms",
    n_boot: int = 2000,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
) -> list[dict]:
    """One row per arm × period × device × profile with a measured sample or error.

    Latency statistics use measure-phase requests without error; ``errors``
    counts measure-phase requests that failed (failures are data, not dropped).
    Values are in ms; ``stddev_ms`` is the sample SD (ddof=1, NaN for n=1).
    """
    values, usable = table.metric_values(metric)
    rows = np.flatnonzero(usable)
    keys = [getattr(table, k)[rows] for k in DESCRIBE_KEYS]
    by_sort = sorted_groups(keys, values[rows])
    groups: Groups | SortedGroups
    if by_sort is not None:
        groups, sorted_us = by_sort, by_sort.values.astype(np.float64)
    else:
        groups = group_by(keys, value_order=table.sorted_positions(METRIC_COLUMNS[metric], usable))
        sorted_us = values[rows[groups.order]].astype(np.float64)
    x = sorted_us / US_PER_MS
    starts, counts = groups.starts, groups.counts

    n = counts.astype(np.float64)
    # groups.sums(values[rows]), without gathering the values a second time.
    mean = np.add.reduceat(sorted_us, starts) / US_PER_MS / n if len(groups) else np.zeros(0)
    deviation = x - np.repeat(mean, counts)
    sq = np.add.reduceat(deviation * deviation, starts) if len(groups) else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        stddev = np.where(counts > 1, np.sqrt(sq / (n - 1)), np.nan)
    quantile = {q: sorted_quantiles(x, starts, counts, q) for q in (0.5, 0.9, 0.95, 0.99)}
    ci_lo, ci_hi = median_ci_sorted(x, starts, counts, n_boot=n_boot, rng=np.random.default_rng(seed))

    error_counts = _error_counts(table)
    out = []
    for g in range(len(groups)):
        key = tuple(int(k[g]) for k in groups.keys)
        out.append({
            **_labels(table, key),
            "metric": metric,
            "n": int(counts[g]),
            "errors": error_counts.pop(key, 0),
            "mean_ms": float(mean[g]),
            "median_ms": float(quantile[0.5][g]),
            "median_ci95_ms": [float(ci_lo[g]), float(ci_hi[g])],
            "p90_ms": float(quantile[0.9][g]),
            "p95_ms": float(quantile[0.95][g]),
            "p99_ms": float(quantile[0.99][g]),
            "stddev_ms": None if np.isnan(stddev[g]) else float(stddev[g]),
            "min_ms": float(x[starts[g]]),
            "max_ms": float(x[starts[g] + counts[g] - 1]),
        })
    # Groups where every request failed still deserve a row.
    for key, errors in sorted(error_counts.items()):
        out.append({**_labels(table, key), "metric": metric, "n": 0, "errors": errors})
    return out


def _error_counts(table: SampleTable) -> dict[tuple[int, ...], int]:
    failed = np.flatnonzero(table.phase_measure & ~table.ok)
    if not len(failed):
        return {}
    groups = group_by([getattr(table, k)[failed] for k in DESCRIBE_KEYS])
    return {tuple(int(k[g]) for k in groups.keys): int(groups.counts[g]) for g in range(len(groups))}


def _labels(table: SampleTable, key: tuple[int, ...]) -> dict:
    arm, period, device, profile = key
    return {
        "arm": table.arm_labels[arm],
        "period": None if period < 0 else period,
        "device": table.device_labels[device],
        "profile": table.profile_labels[profile],
    }
