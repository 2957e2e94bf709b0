"""Analyses whose task was lost (apps.comparisons.reconcile explains when): a comparison still
`analysing` well after any analysis task could have run out its time limit is claimed here
and queued for analysis again by results.reconcile_analyses (every minute). comparison_analyse acts only on an
`analysing` comparison, so an analysis that did finish meanwhile makes the retry a no-op."""

from datetime import datetime, timedelta

from django.utils import timezone

from apps.comparisons.models import Comparison

# The analysis task's hard time limit (660 s) and a margin: past this, no attempt is alive.
STUCK_AFTER = timedelta(seconds=660 + 120)


def stuck_analyses_claim(*, now: datetime | None = None) -> list[str]:
    """The ids of comparisons stuck in analysis, each touched so that one whose analysis keeps
    failing is retried every STUCK_AFTER rather than every minute."""
    now = now or timezone.now()
    stuck = Comparison.objects.filter(status=Comparison.Status.ANALYSING, updated_at__lt=now - STUCK_AFTER)
    ids = [str(pk) for pk in stuck.values_list("pk", flat=True)]
    Comparison.objects.filter(pk__in=ids).update(updated_at=now)
    return ids
