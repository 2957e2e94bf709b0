import dataclasses
import time
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.comparisons.events import COMPARISON_ENDED
from apps.comparisons.models import Comparison, Run
from apps.core.events import publish

from .analysis import VerdictConfig, analyze_comparison, describe, to_jsonable
from .charts import chart_groups
from .loader import load_comparison
from .models import Analysis
from .phases import phase_breakdown_loaded

ENGINE = "latencylab-stats"


def verdict_config(spec: dict[str, Any]) -> VerdictConfig:
    gate = spec.get("gate") or {}
    return VerdictConfig(margin_pct=float(gate.get("margin_pct", 5.0)), alpha=float(gate.get("alpha", 0.01)))


def analysis_compute(*, comparison: Comparison, timings: dict[str, float] | None = None) -> dict[str, Any]:
    """The stored comparison's analysis, as the dashboard reads it. ``timings`` (when
    given) receives the seconds of each step, for the benchmark."""
    clock = [time.perf_counter()]

    def step(name: str) -> None:
        now = time.perf_counter()
        if timings is not None:
            timings[name] = now - clock[0]
        clock[0] = now

    loaded = load_comparison(comparison, phases=True)
    table = loaded.table
    arms = list(table.arm_labels)
    step("load")
    analysis = analyze_comparison(table, baseline_arm=comparison.baseline_arm, baselines=loaded.baselines,
                                  config=verdict_config(comparison.spec))
    step("engine")
    # Request statistics per arm over every period: the same describe() with periods folded.
    folded = dataclasses.replace(table, period=np.full(len(table), -1, dtype=np.int32))
    analysis["requests"] = to_jsonable(describe(folded, metric="total_ms"))
    step("requests")
    analysis["phases"] = phase_breakdown_loaded(comparison, loaded)
    step("phases")
    # (device, profile) pairs in order of first appearance, without a Python loop over rows.
    pairs = table.device.astype(np.int64) * max(len(table.profile_labels), 1) + table.profile
    _, first = np.unique(pairs, return_index=True)
    groups = [(table.device_labels[table.device[i]], table.profile_labels[table.profile[i]]) for i in sorted(first)]
    result = {
        "baseline_arm": comparison.baseline_arm,
        "arms": arms,
        "groups": chart_groups(analysis, arms=arms, groups=groups),
        "analysis": analysis,
    }
    step("charts")
    return result


def comparison_analyse(*, comparison_id: str) -> Analysis | None:
    """Compute (outside a transaction: it reads a lot) and store a new analysis version,
    then mark the comparison finished (or failed when no run succeeded)."""
    comparison = Comparison.objects.get(pk=comparison_id)
    if comparison.status != Comparison.Status.ANALYSING:
        return None
    result = analysis_compute(comparison=comparison)
    with transaction.atomic():
        locked = Comparison.objects.select_for_update().get(pk=comparison_id)
        if locked.status != Comparison.Status.ANALYSING:
            return None
        version = (locked.analyses.aggregate(v=Max("version"))["v"] or 0) + 1
        analysis = Analysis.objects.create(comparison=locked, version=version, engine=ENGINE, result=result)
        runs = list(locked.runs.values_list("status", "error"))
        if any(status == Run.Status.DONE for status, _ in runs):
            locked.status = Comparison.Status.FINISHED
        else:
            locked.status = Comparison.Status.FAILED
            locked.error = "; ".join(sorted({error for _, error in runs if error})) or "no run succeeded"
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "error", "finished_at", "updated_at"])
        publish(COMPARISON_ENDED, comparison_id=str(comparison_id))
    return analysis
