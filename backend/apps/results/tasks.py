"""Thin Celery tasks: ids in, a service call, nothing else (DESIGN §10)."""

from celery import shared_task

from .services import comparison_analyse


@shared_task(
    name="results.analyse_comparison", acks_late=True, max_retries=3, ignore_result=True,
    soft_time_limit=600, time_limit=660,
)
def analyse_comparison(comparison_id: str) -> None:
    comparison_analyse(comparison_id=comparison_id)
