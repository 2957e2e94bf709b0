"""The scheduler's periodic tasks (CELERY_BEAT_SCHEDULE), thin: a service call each. Their
registered names keep the `comparisons.` prefix they were scheduled and queued under before
the scheduler became an app of its own, so a beat schedule or a queued message of an older
deploy still finds them."""

from celery import shared_task

from apps.core.broker_memory import broker_loss_check
from apps.devices.services import devices_mark_silent_offline

from .leasing import leases_reap_expired
from .reconcile import comparisons_reconcile


@shared_task(name="comparisons.reap_expired_leases", acks_late=True, ignore_result=True)
def reap_expired_leases() -> None:
    leases_reap_expired()
    devices_mark_silent_offline()


@shared_task(name="comparisons.reconcile", acks_late=True, ignore_result=True)
def reconcile_comparisons() -> None:
    with broker_loss_check("comparisons") as broker_lost:
        comparisons_reconcile(broker_lost=broker_lost)
