"""Rebuilds, from PostgreSQL, the work a lost task would have done. Celery tasks are acks_late,
but a Redis restart without persistence, or a message dropped by an operator, loses queued
tasks: a comparison would then wait forever for its planning or its analysis. A periodic task
(comparisons.reconcile, every minute) finds such comparisons by their state and age and does
the step again; each step is idempotent, so doing it twice is harmless. When the broker is
known to have lost its data (apps.core.broker_memory), age does not matter: every such
comparison is stranded now."""

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_complete_if_runs_done, comparison_plan

log = logging.getLogger(__name__)

# Planning normally starts within a second of creation; two minutes means its task was lost.
STRANDED_AFTER = timedelta(minutes=2)


def comparisons_reconcile(*, now: datetime | None = None, broker_lost: bool = False) -> dict[str, list[str]]:
    """Plans comparisons that were never planned and moves to analysis those whose runs are
    all over but whose last finish did not (its transaction did, the event's task did not).
    Returns the ids acted on, by step."""
    cutoff = (now or timezone.now()) - (timedelta(0) if broker_lost else STRANDED_AFTER)
    unplanned = Comparison.objects.filter(status=Comparison.Status.QUEUED, created_at__lt=cutoff, runs__isnull=True)
    planned = [str(pk) for pk in unplanned.values_list("pk", flat=True) if comparison_plan(comparison_id=str(pk))]
    runs_over = (Comparison.objects.filter(status__in=[Comparison.Status.QUEUED, Comparison.Status.RUNNING],
                                           updated_at__lt=cutoff, runs__isnull=False)
                 .exclude(runs__status__in=[s for s in Run.Status.values if s not in Run.TERMINAL]).distinct())
    analysing = [str(pk) for pk in runs_over.values_list("pk", flat=True)
                 if comparison_complete_if_runs_done(comparison_id=str(pk))]
    if planned or analysing:
        log.warning("reconciled comparisons whose task was lost%s: planned %s; to analysis %s",
                    " (the broker lost its data)" if broker_lost else "", planned, analysing)
    return {"planned": planned, "analysing": analysing}
