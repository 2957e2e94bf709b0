import dataclasses
import time
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.comparisons.events import COMPARISON_ENDED
from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_extend_runs
from apps.comparisons.spec import analysis_metrics, blocks_range, gate_metric_of
from apps.core.events import publish

from .analysis import INCONCLUSIVE, VerdictConfig, analyze_comparison, describe, to_jsonable
from .analysis.per_request import per_request, request_names
from .analysis.sequential import spending_schedule
from .models import Analysis, VerdictLook
from .readers.charts import chart_groups
from .readers.phases import phase_breakdown_loaded
from .selectors import block_coverage
from .storage.loader import load_comparison
from .storage.retention import SamplesRemoved
from .verdicts.config import comparison_verdict_config, verdict_config
from .verdicts.gate import POOLED, overall_outcome, verdict_row

ENGINE = "latencylab-stats"


@dataclasses.dataclass(frozen=True)
class LookPoint:
    number: int  # 1 for the first look
    blocks_per_device: int
    alpha: float
    next_blocks: int | None  # the next look's blocks per device; None at max


def look_point(comparison: Comparison) -> LookPoint | None:
    """Run until decided: the look the comparison's runs have reached (their block count is
    a look point: planning and extending only ever set those); None for fixed blocks."""
    bounds = blocks_range(comparison.spec)
    if bounds is None:
        return None
    blocks = max(comparison.runs.values_list("blocks_total", flat=True), default=bounds[0])
    schedule = spending_schedule(*bounds, verdict_config(comparison.spec).alpha)
    index = next((i for i, (n, _) in enumerate(schedule) if n >= blocks), len(schedule) - 1)
    n, alpha = schedule[index]
    return LookPoint(index + 1, n, alpha, schedule[index + 1][0] if index + 1 < len(schedule) else None)


def _gate_rows(comparison: Comparison, result: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The overall outcome and the headline rows of the gate's metric in a computed analysis."""
    metric = gate_metric_of(comparison.spec)
    rows = [verdict_row(c, baseline_comparison=None) for c in (result.get("analysis") or {}).get("comparisons", [])
            if c["metric"] == metric and c.get("scope", POOLED) == POOLED]
    return overall_outcome([row["outcome"] for row in rows]), rows


def _record_look(comparison: Comparison, point: LookPoint, result: dict[str, Any], decision: str) -> None:
    outcome, rows = _gate_rows(comparison, result)
    deciding = next((row for row in rows if row["outcome"] == outcome), None)
    VerdictLook.objects.update_or_create(
        comparison=comparison, look=point.number,
        defaults={
            "blocks_per_device": point.blocks_per_device, "alpha": point.alpha, "outcome": outcome,
            "decision": decision,
            "ratio": deciding["ratio"] if deciding else None, "ci95": deciding["ci95"] if deciding else None,
            "p_value": deciding["p_value"] if deciding else None,
            "verdicts": to_jsonable([{key: row[key] for key in ("arm", "device", "network_profile", "outcome",
                                                                  "ratio", "ci95", "p_value")} for row in rows]),
        })


def analysis_compute(*, comparison: Comparison, timings: dict[str, float] | None = None,
                     config: VerdictConfig | None = None) -> dict[str, Any]:
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
                                  link_rates=loaded.link_rates, metrics=analysis_metrics(comparison.spec),
                                  config=config or verdict_config(comparison.spec))
    step("engine")
    # Request statistics per arm over every period: the same describe() with periods folded.
    folded = dataclasses.replace(table, period=np.full(len(table), -1, dtype=np.int32))
    analysis["requests"] = to_jsonable(describe(folded, metric="total_ms"))
    step("requests")
    # A request list: each listed request on its own (which call of a HAR replay changed).
    names = request_names(comparison.spec.get("workload") or {})
    if names:
        analysis["per_request"] = to_jsonable(per_request(table, names=names))
    step("per_request")
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


def _look_continues(comparison: Comparison, point: LookPoint, result: dict[str, Any]) -> bool:
    """A look of run until decided: when its verdict is inconclusive and max is not reached, the
    look is recorded and the runs extended to the next look (True); otherwise the caller
    finishes the comparison with this look's analysis and records it as the stopping look."""
    outcome, _ = _gate_rows(comparison, result)
    if outcome == INCONCLUSIVE and point.next_blocks is not None:
        with transaction.atomic():
            if comparison_extend_runs(comparison_id=str(comparison.pk), blocks_total=point.next_blocks):
                _record_look(comparison, point, result, VerdictLook.Decision.CONTINUE)
                return True
    return False


def _analysing_fail(comparison_id: str, *, error: str) -> None:
    with transaction.atomic():
        locked = Comparison.objects.select_for_update().get(pk=comparison_id)
        if locked.status != Comparison.Status.ANALYSING:
            return
        locked.status = Comparison.Status.FAILED
        locked.error = error
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "error", "finished_at", "updated_at"])
        publish(COMPARISON_ENDED, comparison_id=str(comparison_id))


def _analysis_compute_timed(comparison: Comparison, config: VerdictConfig) -> tuple[dict[str, Any], float]:
    """The analysis (outside a transaction: it reads a lot) and the seconds it took."""
    started = time.perf_counter()
    result = analysis_compute(comparison=comparison, config=config)
    return result, time.perf_counter() - started


def _analysis_store(locked: Comparison, result: dict[str, Any], compute_seconds: float) -> Analysis:
    """Store `result` as the comparison's next analysis version; the caller holds the
    comparison's row lock, so two analyses never take the same version."""
    version = (locked.analyses.aggregate(v=Max("version"))["v"] or 0) + 1
    return Analysis.objects.create(comparison=locked, version=version, engine=ENGINE, result=result,
                                   compute_seconds=compute_seconds)


def comparison_analyse(*, comparison_id: str) -> Analysis | None:
    """Compute (outside a transaction: it reads a lot) and store a new analysis version,
    then mark the comparison finished (or failed when no run succeeded). A run-until-decided
    comparison is judged at the α of the look its runs reached, and goes on to the next look
    instead when that verdict is inconclusive (`_look_continues`). A cancelled comparison
    gets the partial analysis of what it stored (`comparison_analyse_partial`)."""
    comparison = Comparison.objects.get(pk=comparison_id)
    if comparison.status == Comparison.Status.CANCELLED:
        return comparison_analyse_partial(comparison=comparison)
    if comparison.status != Comparison.Status.ANALYSING:
        return None
    point = look_point(comparison)
    try:
        result, compute_seconds = _analysis_compute_timed(
            comparison, verdict_config(comparison.spec, alpha=point.alpha if point else None))
    except SamplesRemoved as exc:  # retention outran the comparison: it ends failed, saying why
        _analysing_fail(comparison_id, error=exc.message)
        return None
    if point is not None and _look_continues(comparison, point, result):
        return None
    with transaction.atomic():
        locked = Comparison.objects.select_for_update().get(pk=comparison_id)
        if locked.status != Comparison.Status.ANALYSING:
            return None
        analysis = _analysis_store(locked, result, compute_seconds)
        if point is not None:
            _record_look(locked, point, result, VerdictLook.Decision.STOP)
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


def comparison_analyse_partial(*, comparison: Comparison) -> Analysis | None:
    """A cancelled comparison: the blocks stored before the cancel, analysed like any others
    (each block is whole, every arm interleaved in it, so the statistics of those blocks are
    exact — only fewer) and marked `partial` with the blocks planned and stored. None when
    nothing was stored, or it was analysed already (the task may run twice)."""
    coverage = block_coverage(comparison=comparison)
    if not coverage["blocks_stored"] or comparison.analyses.filter(result__partial=True).exists():
        return None
    try:
        result, compute_seconds = _analysis_compute_timed(comparison, comparison_verdict_config(comparison))
    except SamplesRemoved:  # the retention took them first: nothing is left to analyse, and it says so
        return None
    with transaction.atomic():
        locked = Comparison.objects.select_for_update().get(pk=comparison.pk)
        if locked.status != Comparison.Status.CANCELLED or locked.analyses.filter(result__partial=True).exists():
            return None
        return _analysis_store(locked, {**result, "partial": True, **coverage}, compute_seconds)
