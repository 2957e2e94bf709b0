from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from apps.accounts.models import Organization
from apps.devices.models import Device

from .models import Comparison, Run


def comparisons_for(*, organization: Organization) -> QuerySet[Comparison]:
    return Comparison.objects.filter(organization=organization).annotate(
        runs_total=Count("runs", distinct=True),
        runs_done=Count("runs", filter=Q(runs__status__in=Run.TERMINAL), distinct=True),
    )


def comparison_get(*, organization: Organization, comparison_id: Any) -> Comparison:
    """Another organization's id answers 404, exactly like an unknown one."""
    return comparisons_for(organization=organization).get(pk=comparison_id)


def comparison_progress(comparison: Comparison) -> dict[str, Any]:
    runs = comparison.runs.aggregate(
        blocks_total=Sum("blocks_total"),
        runs_total=Count("id"),
        runs_done=Count("id", filter=Q(status__in=Run.TERMINAL)),
    )
    blocks_done = comparison.runs.aggregate(n=Count("blocks"))["n"] or 0
    blocks_total = runs["blocks_total"] or 0
    if comparison.status in Comparison.TERMINAL:
        percent = 100.0
    else:
        percent = round(100.0 * blocks_done / blocks_total, 1) if blocks_total else 0.0
    return {
        "runs_total": runs["runs_total"],
        "runs_done": runs["runs_done"],
        "blocks_total": blocks_total,
        "blocks_done": blocks_done,
        "percent": percent,
    }


def run_waiting_reason(run: Run) -> str | None:
    """Why a queued run has not started, in words a user can act on; None otherwise."""
    if run.status != Run.Status.QUEUED:
        return None
    matching = Device.objects.filter(pool=run.pool, platform__in=run.platforms).exclude(
        state=Device.State.QUARANTINED)
    platforms = "/".join(run.platforms) or "any"
    total = matching.count()
    if total == 0:
        return f"no {platforms} device is registered in pool {run.pool.slug!r}"
    if total <= run.slot:
        return (f"this comparison asks for {run.slot + 1}+ distinct {platforms} devices per profile; "
                f"pool {run.pool.slug!r} has {total}")
    online = matching.exclude(state=Device.State.OFFLINE).count()
    if online == 0:
        return f"all {total} {platforms} devices of pool {run.pool.slug!r} are offline"
    return f"waiting for a free {platforms} device in pool {run.pool.slug!r}"
