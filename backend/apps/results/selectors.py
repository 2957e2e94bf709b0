from typing import Any

from apps.comparisons.models import Comparison

from .models import Analysis


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
