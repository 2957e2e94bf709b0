from typing import Any

from apps.comparisons.models import Comparison

from .models import Analysis, VerdictLook


def analysis_latest(*, comparison: Comparison) -> Analysis | None:
    return comparison.analyses.order_by("-version").first()


def results_for_charts(*, comparison: Comparison) -> dict[str, Any]:
    analysis = analysis_latest(comparison=comparison)
    body: dict[str, Any] = {
        "comparison": str(comparison.id),
        "status": comparison.status,
        "baseline_arm": comparison.baseline_arm,
        "arms": list(comparison.arms.values_list("label", flat=True)),
        "analysis_version": None,
        "groups": [],
    }
    if analysis is not None:
        body.update(analysis.result)
        body["analysis_version"] = analysis.version
    return body


def verdict_history(*, comparison: Comparison) -> list[dict[str, Any]]:
    """A run-until-decided comparison's looks in order (empty for fixed blocks): blocks per
    device, the α tested at, the outcome, the deciding row's estimate, CI and p, what followed."""
    return [
        {"look": look.look, "blocks_per_device": look.blocks_per_device, "alpha": look.alpha,
         "outcome": look.outcome, "decision": look.decision, "ratio": look.ratio, "ci95": look.ci95,
         "p_value": look.p_value, "verdicts": look.verdicts, "at": look.created_at.isoformat()}
        for look in VerdictLook.objects.filter(comparison=comparison).order_by("look")
    ]
