"""Thin Celery tasks: ids in, a service call, nothing else (DESIGN §10)."""

from celery import shared_task

from .reconcile import stuck_analyses_claim
from .services import comparison_analyse


@shared_task(
    name="results.analyse_comparison", acks_late=True, max_retries=3, ignore_result=True,
    soft_time_limit=600, time_limit=660,
)
def analyse_comparison(comparison_id: str) -> None:
    comparison_analyse(comparison_id=comparison_id)


@shared_task(name="results.reconcile_analyses", acks_late=True, ignore_result=True)
def reconcile_analyses() -> None:
    for comparison_id in stuck_analyses_claim():
        analyse_comparison.delay(comparison_id)
