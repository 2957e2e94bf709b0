"""Analyses whose task was lost (apps.comparisons.reconcile explains when): a comparison still
`analysing` well after any analysis task could have run out its time limit is claimed here
and queued for analysis again by results.reconcile_analyses (every minute); every comparison in
analysis is, when the broker lost its data (apps.core.broker_memory). comparison_analyse acts only
on an `analysing` comparison and stores its result under a row lock, so an analysis that did
finish meanwhile, or one still running, makes the retry a no-op."""

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from apps.comparisons.models import Comparison

log = logging.getLogger(__name__)

# The analysis task's hard time limit (660 s) and a margin: past this, no attempt is alive.
STUCK_AFTER = timedelta(seconds=660 + 120)


def stuck_analyses_claim(*, now: datetime | None = None, broker_lost: bool = False) -> list[str]:
    """The ids of comparisons stuck in analysis, each touched so that one whose analysis keeps
    failing is retried every STUCK_AFTER rather than every minute."""
    now = now or timezone.now()
    stuck_after = timedelta(0) if broker_lost else STUCK_AFTER
    stuck = Comparison.objects.filter(status=Comparison.Status.ANALYSING, updated_at__lte=now - stuck_after)
    ids = [str(pk) for pk in stuck.values_list("pk", flat=True)]
    Comparison.objects.filter(pk__in=ids).update(updated_at=now)
    if ids:
        log.warning("analyses queued again, their task lost%s: %s",
                    " (the broker lost its data)" if broker_lost else "", ids)
    return ids
