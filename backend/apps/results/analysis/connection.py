"""First request on a connection vs the rest (the handshake cost, seeds/003)."""

from __future__ import annotations

import numpy as np

from .grouping import Groups, SortedGroups, group_by, sorted_groups, sorted_quantiles
from .table import METRIC_COLUMNS, SampleTable


def first_vs_rest(table: SampleTable, *, metric: str = "total_ms") -> list[dict]:
    """Per profile × device × arm: n, mean and median of first requests and of
    the rest, their throughput (sum of bytes / sum of times: downloads without
    the handshake request, seeds/003), and the handshake cost (first − rest)."""
    values, usable = table.metric_values(metric)
    rows = np.flatnonzero(usable)
    first = table.first_on_connection[rows].astype(np.int64)
    keys = [table.profile[rows], table.device[rows], table.arm[rows], first]
    by_sort = sorted_groups(keys, values[rows])
    groups: Groups | SortedGroups
    if by_sort is not None:
        groups, sorted_ms = by_sort, by_sort.values / 1000.0
        # Sums of whole numbers (µs, bytes) below 2**53 are exact in float64 in any order: the
        # same numbers as summing each group in value order.
        codes, n_groups = by_sort.codes, len(by_sort)

        def sums(column: np.ndarray) -> np.ndarray:
            return np.bincount(codes, weights=column, minlength=n_groups)
    else:
        groups = group_by(keys, value_order=table.sorted_positions(METRIC_COLUMNS[metric], usable))
        sorted_ms = values[rows][groups.order] / 1000.0
        sums = groups.sums
    medians = sorted_quantiles(sorted_ms, groups.starts, groups.counts, 0.5)
    total_us = sums(values[rows])
    means = total_us / 1000.0 / np.maximum(groups.counts, 1)
    # Throughput is over whole requests (total time), whatever the metric.
    bytes_sum = sums(table.resp_bytes[rows])
    time_sum = sums(table.total_us[rows])

    by_key: dict[tuple[int, int, int], dict] = {}
    for g in range(len(groups)):
        profile, device, arm, is_first = (int(k[g]) for k in groups.keys)
        row = by_key.setdefault((profile, device, arm), {
            "profile": table.profile_labels[profile],
            "device": table.device_labels[device],
            "arm": table.arm_labels[arm],
            "metric": metric,
            "first": None,
            "rest": None,
        })
        row["first" if is_first else "rest"] = {
            "n": int(groups.counts[g]), "mean_ms": float(means[g]), "median_ms": float(medians[g]),
            "bytes": int(bytes_sum[g]),
            "throughput_bytes_per_s": float(bytes_sum[g] / time_sum[g] * 1e6) if time_sum[g] > 0 else None,
        }
    out = []
    for row in by_key.values():
        if row["first"] and row["rest"]:
            row["first_minus_rest_mean_ms"] = row["first"]["mean_ms"] - row["rest"]["mean_ms"]
            row["first_minus_rest_median_ms"] = row["first"]["median_ms"] - row["rest"]["median_ms"]
        else:
            row["first_minus_rest_mean_ms"] = row["first_minus_rest_median_ms"] = None
        out.append(row)
    return out
