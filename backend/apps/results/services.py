from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.comparisons.models import Comparison, Run

from .charts import group_payload
from .loader import load_comparison_samples
from .models import Analysis

ENGINE_VERSION = "charts-1"


def analysis_compute(*, comparison: Comparison) -> dict[str, Any]:
    samples = load_comparison_samples(comparison)
    return {
        "baseline_arm": comparison.baseline_arm,
        "arms": samples.arm_labels,
        "groups": [group_payload(samples, g, comparison.baseline_arm) for g in range(len(samples.group_labels))],
    }


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
        analysis = Analysis.objects.create(comparison=locked, version=version, engine=ENGINE_VERSION, result=result)
        runs = list(locked.runs.values_list("status", "error"))
        if any(status == Run.Status.DONE for status, _ in runs):
            locked.status = Comparison.Status.FINISHED
        else:
            locked.status = Comparison.Status.FAILED
            locked.error = "; ".join(sorted({error for _, error in runs if error})) or "no run succeeded"
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "error", "finished_at", "updated_at"])
    return analysis
