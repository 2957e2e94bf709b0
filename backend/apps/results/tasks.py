"""Thin Celery tasks: ids in, a service call, nothing else (docs/architecture.md, "Inside an app")."""

import logging

from celery import shared_task

from apps.core.broker_memory import broker_loss_check
from apps.core.task_retries import RETRY_TRANSIENT_DATABASE_ERRORS

from .reconcile import stuck_analyses_claim
from .services import comparison_analyse
from .storage.retention import sample_storage_maintain

logger = logging.getLogger(__name__)


# Retried when the database fails in passing: an analysis is stored only while the comparison,
# locked, is still `analysing`, so a retry never stores two, and it comes in seconds where the
# reconciler waits 13 minutes. Hitting the time limit is not retried (it would again).
@shared_task(
    name="results.analyse_comparison", acks_late=True, ignore_result=True,
    soft_time_limit=600, time_limit=660, **RETRY_TRANSIENT_DATABASE_ERRORS,
)
def analyse_comparison(comparison_id: str) -> None:
    comparison_analyse(comparison_id=comparison_id)


@shared_task(name="results.reconcile_analyses", acks_late=True, ignore_result=True)
def reconcile_analyses() -> None:
    with broker_loss_check("analyses") as broker_lost:
        for comparison_id in stuck_analyses_claim(broker_lost=broker_lost):
            analyse_comparison.delay(comparison_id)


@shared_task(name="results.maintain_sample_storage", acks_late=True, ignore_result=True,
             soft_time_limit=3000, time_limit=3300)
def maintain_sample_storage() -> None:
    report = sample_storage_maintain()
    if report.created or report.dropped or report.deferred:
        logger.info("sample storage: created %s, dropped %s (%d comparisons' samples), deferred %s",
                    report.created, report.dropped, report.comparisons_affected, report.deferred)
