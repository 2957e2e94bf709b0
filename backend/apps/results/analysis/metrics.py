"""The metrics a verdict can judge, and the values each is judged on.

Per request (one value per measured request, table.py's METRIC_COLUMNS):
    total_ms      app_done − t0 of each request
    ttfb_ms       resp_first_byte − req_start of each request
Per group (one value per group of requests the app waits for as a whole, series.py):
    series_ms     a series' time: first request issued → last response completed when the
                  workload issues it concurrently, the sum of its requests' times otherwise;
                  judged per period and pooled over the periods (periods are strata)
    page_load_ms  a pass over a request list, timed the same way (one stratum)

A group metric is judged on a table of its own whose rows are the groups (the group's time
in `total_us`, its period in `period`), so the verdict machinery (compare.py) is the same
for every metric; only the pooling over periods is the group metrics' own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .series import series_times
from .table import METRIC_COLUMNS, SampleTable

PER_REQUEST_METRICS = tuple(METRIC_COLUMNS)  # total_ms, ttfb_ms
SERIES_METRIC, PAGE_LOAD_METRIC = "series_ms", "page_load_ms"
GROUP_METRICS = (SERIES_METRIC, PAGE_LOAD_METRIC)
METRICS = (*PER_REQUEST_METRICS, *GROUP_METRICS)


@dataclass(frozen=True, eq=False)
class MetricSource:
    """Where a metric's values are: `column_metric` of `table`; `stratified` when each block's
    effect is the mean of its periods' effects (a group metric whose groups have periods)."""

    table: SampleTable
    column_metric: str
    stratified: bool


def metric_source(table: SampleTable, metric: str) -> MetricSource:
    if metric in METRIC_COLUMNS:
        return MetricSource(table, metric, stratified=False)
    if metric == SERIES_METRIC:
        return MetricSource(group_table(table, passes=False), "total_ms", stratified=True)
    if metric == PAGE_LOAD_METRIC:
        return MetricSource(group_table(table, passes=True), "total_ms", stratified=False)
    raise ValueError(f"unknown metric {metric!r}; expected one of {list(METRICS)}")


def group_table(table: SampleTable, *, passes: bool) -> SampleTable:
    """One row per series (passes=False) or pass over a request list (passes=True): its time in
    `total_us` (µs), its bytes, `ok` when every request of it succeeded. A concurrent workload's
    group is timed as its span (table.concurrency), a sequential one's as its requests' sum."""
    cached: dict[bool, SampleTable] = table.__dict__.setdefault("_group_tables", {})
    if passes in cached:
        return cached[passes]
    groups = series_times(table, span=table.concurrency != "sequential", passes=passes)
    n = len(groups["time_us"])

    def column(name: str) -> np.ndarray:
        return np.asarray(groups[name], dtype=np.int32)

    out = SampleTable(
        arm=column("arm"), device=column("device"), profile=column("profile"), block=column("block"),
        period=column("period"), repetition=column("repetition"), step=np.zeros(n, dtype=np.int32),
        phase_measure=np.ones(n, dtype=bool), ok=np.asarray(groups["complete"], dtype=bool),
        total_us=np.rint(groups["time_us"]).astype(np.int64), ttfb_us=np.full(n, -1, dtype=np.int64),
        resp_bytes=np.rint(groups["bytes"]).astype(np.int64), server_delay_us=np.full(n, -1, dtype=np.int64),
        first_on_connection=np.zeros(n, dtype=bool), arm_labels=table.arm_labels,
        device_labels=table.device_labels, profile_labels=table.profile_labels,
        device_classes=table.device_classes, start_us=np.full(n, -1, dtype=np.int64),
        concurrency=table.concurrency)
    cached[passes] = out
    return out


def has_groups(table: SampleTable, metric: str) -> bool:
    """Whether the table has any value of the metric (a group metric needs its groups)."""
    source = metric_source(table, metric)
    return bool(source.table.metric_values(source.column_metric)[1].any())
