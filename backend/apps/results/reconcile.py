"""Analyses whose task was lost (apps.scheduler.reconcile explains when): a comparison still
`analysing` well after any analysis task could have run out its time limit is claimed here
and queued for analysis again by results.reconcile_analyses (every minute); every comparison in
analysis is, when the broker lost its data (apps.core.broker_memory). comparison_analyse acts only
on an `analysing` comparison and stores its result under a row lock, so an analysis that did
finish meanwhile, or one still running, makes the retry a no-op.

A cancelled comparison's partial analysis (services.comparison_analyse_partial) is the same task:
one cancelled lately, with blocks stored and no partial analysis yet, is claimed the same way."""

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from apps.comparisons.models import Comparison, RunBlock

from .models import Analysis, SampleRemoval

log = logging.getLogger(__name__)

# The analysis task's hard time limit (660 s) and a margin: past this, no attempt is alive.
STUCK_AFTER = timedelta(seconds=660 + 120)
# Cancelled comparisons are looked at for this long after the cancel (older ones had their day).
PARTIAL_WITHIN = timedelta(days=1)


def stuck_analyses_claim(*, now: datetime | None = None, broker_lost: bool = False) -> list[str]:
    """The ids of comparisons stuck in analysis, each touched so that one whose analysis keeps
    failing is retried every STUCK_AFTER rather than every minute."""
    now = now or timezone.now()
    stuck_after = timedelta(0) if broker_lost else STUCK_AFTER
    stuck = Comparison.objects.filter(status=Comparison.Status.ANALYSING, updated_at__lte=now - stuck_after)
    unanalysed_cancels = (
        Comparison.objects.filter(status=Comparison.Status.CANCELLED, finished_at__gte=now - PARTIAL_WITHIN,
                                  updated_at__lte=now - stuck_after)
        .filter(pk__in=RunBlock.objects.values("run__comparison_id"))
        .exclude(pk__in=Analysis.objects.filter(result__partial=True).values("comparison_id"))
        .exclude(pk__in=SampleRemoval.objects.values("comparison_id"))
    )
    ids = [str(pk) for pk in stuck.values_list("pk", flat=True)]
    ids += [str(pk) for pk in unanalysed_cancels.values_list("pk", flat=True)]
    Comparison.objects.filter(pk__in=ids).update(updated_at=now)
    if ids:
        log.warning("analyses queued again, their task lost%s: %s",
                    " (the broker lost its data)" if broker_lost else "", ids)
    return ids
