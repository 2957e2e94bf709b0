"""Thin Celery tasks: ids in, a service call, nothing else (docs/architecture.md, "Inside an app").
The scheduler's periodic tasks (the lease reaper, the reconciler) are apps.scheduler.tasks."""

from celery import shared_task

from apps.core.task_retries import RETRY_TRANSIENT_DATABASE_ERRORS

from .services import comparison_plan


# Retried when the database fails in passing: planning is idempotent (the comparison locked,
# runs made only while it has none), and a retry plans in seconds what the reconciler would
# otherwise find only once the comparison looks stranded (2 minutes).
@shared_task(name="comparisons.plan_comparison", acks_late=True, ignore_result=True,
             **RETRY_TRANSIENT_DATABASE_ERRORS)
def plan_comparison(comparison_id: str) -> None:
    comparison_plan(comparison_id=comparison_id)
