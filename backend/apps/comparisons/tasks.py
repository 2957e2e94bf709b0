"""Thin Celery tasks: ids in, a service call, nothing else (docs/architecture.md, "Inside an app")."""

from celery import shared_task

from apps.core.broker_memory import broker_loss_check
from apps.core.task_retries import RETRY_TRANSIENT_DATABASE_ERRORS
from apps.devices.services import devices_mark_silent_offline

from .leasing import leases_reap_expired
from .reconcile import comparisons_reconcile
from .services import comparison_plan


# Retried when the database fails in passing: planning is idempotent (the comparison locked,
# runs made only while it has none), and a retry plans in seconds what the reconciler would
# otherwise find only once the comparison looks stranded (2 minutes).
@shared_task(name="comparisons.plan_comparison", acks_late=True, ignore_result=True,
             **RETRY_TRANSIENT_DATABASE_ERRORS)
def plan_comparison(comparison_id: str) -> None:
    comparison_plan(comparison_id=comparison_id)


@shared_task(name="comparisons.reap_expired_leases", acks_late=True, ignore_result=True)
def reap_expired_leases() -> None:
    leases_reap_expired()
    devices_mark_silent_offline()


@shared_task(name="comparisons.reconcile", acks_late=True, ignore_result=True)
def reconcile_comparisons() -> None:
    with broker_loss_check("comparisons") as broker_lost:
        comparisons_reconcile(broker_lost=broker_lost)
