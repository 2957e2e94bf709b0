"""Series workloads (seeds/000): time of a whole series of requests per period.

A series is one (profile, device, arm, period, block, repetition); a pass over a
request list (the `requests` workload: no period) is timed the same way. Issued
sequentially, its time is the sum of its requests' total times (a series' gap
between requests is not the protocol's). Issued concurrently (the workload's
`concurrency`), its time is what the app sees: first request issued → last
response completed, max(start + total) − min(start), from each request's issue
time: issued_us (its issued_mono_us, on the harness's monotonic clock) when every
request of the series has one, else start_us (its wall_time at t0: results of
harnesses that predate issued_mono_us). A phone's wall clock can be stepped by
NTP or the carrier mid-series; its monotonic clock cannot. One series never mixes
the two clocks. A series with a failed request has no meaningful time, so it is
counted as incomplete and left out of the timings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .effects import percentage_gain, speedup
from .grouping import DenseGroups, Groups, dense_groups, group_by, sorted_quantiles
from .table import SampleTable

Aggregate = Callable[[np.ndarray], np.ndarray]

SERIES_KEYS = ("profile", "device", "arm", "period", "block", "repetition")
US_PER_S = 1_000_000.0


def series_times(table: SampleTable, *, span: bool = False, passes: bool = False) -> dict[str, np.ndarray]:
    """Columnar per-series table: key columns, time_us, bytes, requests, complete.
    span: the time is first request issued → last response completed (concurrent
    series); a series with a request of unknown start is then incomplete.
    passes: time the passes over a request list instead (rows without a period, one
    group per repetition; their period key is −1). Computed once per table and kind (the
    group metrics and the series summary ask for the same grouping); treat it as read-only."""
    cached: dict[tuple[bool, bool], dict[str, np.ndarray]] = table.__dict__.setdefault("_series_times", {})
    if (span, passes) in cached:
        return cached[(span, passes)]
    grouped = (table.period < 0) & (table.repetition >= 0) if passes else table.period >= 0
    rows = np.flatnonzero(table.phase_measure & grouped)
    keys = [getattr(table, k)[rows] for k in SERIES_KEYS]
    dense = dense_groups(keys)
    out = _series_by_dense_groups(table, rows, dense, span) if dense is not None else \
        _series_by_group_by(table, rows, group_by(keys), span)
    cached[(span, passes)] = out
    return out


def _series_by_dense_groups(table: SampleTable, rows: np.ndarray, groups: DenseGroups,
                            span: bool) -> dict[str, np.ndarray]:
    """series_times from group numbers: every aggregate is a sum of whole numbers, a minimum or
    a maximum, so no order of the rows is needed (and the numbers are _series_by_group_by's)."""
    return _series_aggregated(table, rows, span, keys=groups.keys, counts=groups.counts, sums=groups.integer_sums,
                              mins=groups.mins, maxs=groups.maxs, of_row=lambda per_series: per_series[groups.codes])


def _series_by_group_by(table: SampleTable, rows: np.ndarray, groups: Groups, span: bool) -> dict[str, np.ndarray]:
    def of_row(per_series: np.ndarray) -> np.ndarray:
        by_row = np.empty(len(rows), dtype=per_series.dtype)
        by_row[groups.order] = per_series[groups.group_of_sorted_row()]
        return by_row

    return _series_aggregated(table, rows, span, keys=groups.keys, counts=groups.counts, sums=groups.sums,
                              mins=groups.mins, maxs=groups.maxs, of_row=of_row)


def _series_aggregated(table: SampleTable, rows: np.ndarray, span: bool, *, keys: Sequence[np.ndarray],
                       counts: np.ndarray, sums: Aggregate, mins: Aggregate, maxs: Aggregate,
                       of_row: Aggregate) -> dict[str, np.ndarray]:
    """Each series' time, bytes, requests and completeness from its groups' aggregates (sums,
    minimums and maximums of a value per row; of_row: a value per series spread back to its rows)."""
    ok = table.ok[rows]
    n_bytes = sums(np.where(ok, table.resp_bytes[rows], 0))
    failed = sums(~ok)
    if span:
        issued = table.issued_us[rows]
        # Each row's issue time on the clock its series is timed on: the monotonic issue time
        # where every request of the series has one, else the wall clock (−1 where unknown).
        start = np.where(of_row(mins(issued) >= 0), issued, table.start_us[rows])
        ok = ok & (start >= 0)
        failed = sums(~ok)
        first = mins(np.where(ok, start, np.iinfo(np.int64).max))
        last = maxs(np.where(ok, start + table.total_us[rows], 0))
        time_us = np.where(failed == 0, last - first, 0).astype(np.float64)
    else:
        time_us = sums(np.where(ok, table.total_us[rows], 0))
    out = {k: keys[i] for i, k in enumerate(SERIES_KEYS)}
    out.update(time_us=time_us, bytes=n_bytes, requests=counts, complete=failed == 0)
    return out


def series_summary(table: SampleTable, *, baseline_arm: str | None = None, span: bool = False) -> list[dict]:
    """Per profile × device × arm × period: average and median series time,
    throughput (bytes of the series / series time, as a ratio of sums) and the
    percentage gain and speedup over the baseline arm (from average times).
    span: concurrent series, timed first request issued → last response completed."""
    series = series_times(table, span=span)
    complete = series["complete"]
    keys = [series[k][complete] for k in ("profile", "device", "arm", "period")]
    time_us = series["time_us"][complete]
    groups = group_by(keys, time_us)
    sorted_time = time_us[groups.order]
    median_us = sorted_quantiles(sorted_time, groups.starts, groups.counts, 0.5)
    total_time = groups.sums(time_us)
    total_bytes = groups.sums(series["bytes"][complete])
    average_us = total_time / groups.counts

    incomplete: dict[tuple[int, ...], int] = {}
    bad = ~complete
    if bad.any():
        bad_groups = group_by([series[k][bad] for k in ("profile", "device", "arm", "period")])
        incomplete = {
            tuple(int(k[g]) for k in bad_groups.keys): int(bad_groups.counts[g]) for g in range(len(bad_groups))
        }

    rows = []
    for g in range(len(groups)):
        profile, device, arm, period = (int(k[g]) for k in groups.keys)
        rows.append({
            "profile": table.profile_labels[profile],
            "device": table.device_labels[device],
            "arm": table.arm_labels[arm],
            "period": period,
            "series": int(groups.counts[g]),
            "incomplete_series": incomplete.get((profile, device, arm, period), 0),
            "average_ms": float(average_us[g] / 1000.0),
            "median_ms": float(median_us[g] / 1000.0),
            "times_ms": (sorted_time[groups.starts[g]:groups.starts[g] + groups.counts[g]] / 1000.0).tolist(),
            "throughput_bytes_per_s": float(total_bytes[g] / total_time[g] * US_PER_S) if total_time[g] > 0 else None,
        })
    if baseline_arm is not None:
        _add_gains(rows, baseline_arm)
    return rows


def _add_gains(rows: list[dict], baseline_arm: str) -> None:
    baseline = {(r["profile"], r["device"], r["period"]): r for r in rows if r["arm"] == baseline_arm}
    for r in rows:
        base = baseline.get((r["profile"], r["device"], r["period"]))
        if base is None or r["average_ms"] <= 0:
            r["gain_pct"] = r["speedup"] = r["median_gain_pct"] = None
            continue
        r["gain_pct"] = percentage_gain(base["average_ms"], r["average_ms"])
        r["median_gain_pct"] = percentage_gain(base["median_ms"], r["median_ms"])
        r["speedup"] = speedup(base["average_ms"], r["average_ms"])
