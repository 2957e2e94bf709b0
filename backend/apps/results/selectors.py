from collections.abc import Iterable
from typing import Any

from django.db.models import Sum

from apps.comparisons.models import Comparison, Run, RunBlock

from .models import Analysis, VerdictLook
from .stacks import ArmFacts, RunFacts, arm_stacks
from .storage.retention import samples_removal


def analysis_latest(*, comparison: Comparison) -> Analysis | None:
    return comparison.analyses.order_by("-version").first()


def analyses_latest_sections(*, comparison_ids: Iterable[Any], sections: Iterable[str]) -> dict[Any, dict[str, Any]]:
    """comparison id → the named sections of its latest analysis, for many comparisons in one
    query that reads only those sections (the charts' data stays in the database)."""
    names = list(sections)
    rows = (Analysis.objects.filter(comparison_id__in=list(comparison_ids))
            .order_by("comparison_id", "-version").distinct("comparison_id")
            .values_list("comparison_id", *[f"result__analysis__{name}" for name in names]))
    return {row[0]: dict(zip(names, row[1:], strict=True)) for row in rows}


def results_for_charts(*, comparison: Comparison) -> dict[str, Any]:
    analysis = analysis_latest(comparison=comparison)
    body = results_head(comparison=comparison)
    if analysis is not None:
        body.update(analysis.result)
        body["analysis_version"] = analysis.version
    body.update(partial_coverage(comparison=comparison))
    return body


def results_head(*, comparison: Comparison) -> dict[str, Any]:
    """What the results document says of a comparison besides its analysis (whose keys replace
    these), read afresh each time: all of it can change without a new analysis."""
    return {
        "comparison": str(comparison.id),
        "status": comparison.status,
        "baseline_arm": comparison.baseline_arm,
        "arms": list(comparison.arms.values_list("label", flat=True)),
        "analysis_version": None,
        "groups": [],
        "stacks": stacks_of_arms(comparison=comparison),
        "samples_removed": samples_removal(comparison=comparison),
    }


def partial_coverage(*, comparison: Comparison) -> dict[str, Any]:
    """Whether the comparison's results are partial — it was cancelled, so its analysis covers
    only the blocks stored before — and, when they are, the blocks planned and stored."""
    if comparison.status != Comparison.Status.CANCELLED:
        return {"partial": False, "blocks_planned": None, "blocks_stored": None}
    return {"partial": True, **block_coverage(comparison=comparison)}


def block_coverage(*, comparison: Comparison) -> dict[str, int]:
    """The blocks the comparison's runs planned (their current block counts) and stored."""
    planned = comparison.runs.aggregate(total=Sum("blocks_total"))["total"] or 0
    return {"blocks_planned": planned, "blocks_stored": RunBlock.objects.filter(run__comparison=comparison).count()}


def stacks_of_arms(*, comparison: Comparison) -> list[dict[str, Any]]:
    """Per arm, the client stacks and servers its runs reported (stacks.py)."""
    # comparison_id too: the related managers check it on each row (one query per row when deferred).
    arms = [ArmFacts(label=arm.label, protocol=arm.protocol, endpoint=arm.endpoint)
            for arm in comparison.arms.only("comparison_id", "label", "protocol", "endpoint")]
    runs = [RunFacts(fingerprint=run.fingerprint if isinstance(run.fingerprint, dict) else {},
                     device=_device_name(run))
            for run in comparison.runs.select_related("device").only(
                "comparison_id", "fingerprint", "device_label", "slot", "device__model", "device__serial")]
    return arm_stacks(arms, runs)


def _device_name(run: Run) -> str:
    """What a person calls the device: its model (a phone's "Pixel 8"), else its label."""
    model = run.fingerprint.get("model") if isinstance(run.fingerprint, dict) else None
    if isinstance(model, str) and model:
        return model
    if run.device is not None:
        return run.device.model or run.device.serial
    return run.device_label or f"slot-{run.slot}"


def verdict_history(*, comparison: Comparison) -> list[dict[str, Any]]:
    """A run-until-decided comparison's looks in order (empty for fixed blocks): blocks per
    device, the α tested at, the outcome, the deciding row's estimate, CI and p, what followed."""
    return [
        {"look": look.look, "blocks_per_device": look.blocks_per_device, "alpha": look.alpha,
         "outcome": look.outcome, "decision": look.decision, "ratio": look.ratio, "ci95": look.ci95,
         "p_value": look.p_value, "verdicts": look.verdicts, "at": look.created_at.isoformat()}
        for look in VerdictLook.objects.filter(comparison=comparison).order_by("look")
    ]
