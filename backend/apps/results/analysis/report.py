"""The whole analysis of one comparison, as JSON-ready plain data."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import cast

import numpy as np

from .compare import compare_arms
from .connection import first_vs_rest
from .descriptive import describe
from .metrics import GROUP_METRICS, PER_REQUEST_METRICS, metric_source
from .series import series_summary
from .sweeps import delay_sweep, payload_sweep
from .table import BlockBaselines, SampleTable
from .verdict import VerdictConfig

# 2: the group metrics (series time, page load: metrics.py) with their per-period rows and
# `group_times`, and summary lines that state a margin the 2 ms floor widened. Version 1
# analyses judged per-request time only; their verdicts read as they were stored.
ANALYSIS_VERSION = 2


def analyze_comparison(
    table: SampleTable,
    *,
    baseline_arm: str,
    baselines: BlockBaselines | None = None,
    link_rates: Mapping[tuple[str, str], float] | None = None,
    metrics: Sequence[str] = ("total_ms", "ttfb_ms"),
    config: VerdictConfig | None = None,
) -> dict:
    """Every aggregate the charts and the CI gate need. Sections are empty when
    the workload has no such data (no periods, no known delays, no payloads). `metrics`: those
    compared (per request and per group, metrics.py); `descriptive` describes the per-request
    ones, `group_times` the group ones over every period."""
    config = config or VerdictConfig()
    for metric in metrics:  # the group tables (series, passes), which both threads below read: built once
        metric_source(table, metric)
    # The arm comparisons on a second thread beside the rest: both are mostly numpy sorts and
    # passes over whole columns, which release the GIL, so with a core free the analysis takes
    # about two thirds of the time (the same CPU). Each part computes the same numbers alone or
    # beside the other: they share only the table, whose caches hold what either would compute.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="compare-arms") as beside:
        comparing = beside.submit(compare_arms, table, baseline_arm=baseline_arm, metrics=metrics, config=config)
        result = _aggregates(table, baseline_arm=baseline_arm, baselines=baselines, link_rates=link_rates,
                             metrics=metrics, config=config)
        comparisons = comparing.result()
    result["comparisons"] = [c.to_dict() for c in comparisons]
    return cast(dict, to_jsonable(result))


def _aggregates(table: SampleTable, *, baseline_arm: str, baselines: BlockBaselines | None,
                link_rates: Mapping[tuple[str, str], float] | None, metrics: Sequence[str],
                config: VerdictConfig) -> dict:
    """Every section of the analysis but the arm comparisons."""
    return {
        "version": ANALYSIS_VERSION,
        "baseline_arm": baseline_arm,
        "config": dataclasses.asdict(config),
        "samples": len(table),
        "descriptive": [row for m in metrics if m in PER_REQUEST_METRICS
                        for row in describe(table, metric=m, n_boot=config.n_boot, seed=config.seed)],
        "group_times": [row for m in metrics if m in GROUP_METRICS for row in group_times(table, m, config)],
        "concurrency": table.concurrency,
        "series": series_summary(table, baseline_arm=baseline_arm, span=table.concurrency != "sequential")
        if (table.period >= 0).any() else [],
        "first_vs_rest": first_vs_rest(table) if table.first_on_connection.any() else [],
        "delay_sweep": delay_sweep(table) if (table.server_delay_us >= 0).any() else [],
        "payload_sweep": payload_sweep(table, baselines, link_rates=link_rates) if baselines is not None else [],
    }


def group_times(table: SampleTable, metric: str, config: VerdictConfig) -> list[dict]:
    """Per arm × device × profile, the group metric's statistics over every period (`describe`
    of the groups' times, `errors` counting the groups with a failed request): what trends
    follow."""
    groups = metric_source(table, metric).table
    folded = dataclasses.replace(groups, period=np.full(len(groups), -1, dtype=np.int32))
    return [{**row, "metric": metric}
            for row in describe(folded, metric="total_ms", n_boot=config.n_boot, seed=config.seed)]


def to_jsonable(value: object) -> object:
    """Plain JSON types: tuples become lists, numpy scalars Python numbers, NaN/inf None."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None  # type: ignore[arg-type]
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # Plain finite floats, ints, strings and None (most of a result) skip the call.
        return [v if ((t := type(v)) is float and math.isfinite(v)) or t is int or t is str or v is None
                else to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value))
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    return value
