"""Thin Celery tasks: ids in, a service call, nothing else (docs/architecture.md, "Inside an app")."""

from celery import shared_task

from apps.core.broker_memory import broker_loss_check
from apps.core.task_retries import RETRY_TRANSIENT_DATABASE_ERRORS

from .services import (
    MAX_ATTEMPTS,
    webhook_deliveries_create,
    webhook_deliveries_stranded,
    webhook_delivery_attempt,
    webhook_notifications_lost,
)


# Retried when the database fails in passing: the deliveries are created in one transaction,
# all or none, and each only once however often this runs, so a retry queues exactly the
# ones a failed try left uncreated. A broker that cannot take the deliveries' messages is
# not retried here (the retry needs the broker too): webhooks.requeue_stranded finds them.
@shared_task(name="webhooks.notify_comparison_ended", acks_late=True, ignore_result=True,
             **RETRY_TRANSIENT_DATABASE_ERRORS)
def notify_comparison_ended(comparison_id: str) -> None:
    # The deliveries are committed when the service returns: each task finds its row.
    for delivery in webhook_deliveries_create(comparison_id=comparison_id):
        deliver.delay(str(delivery.id))


# Each attempt that is not the last reschedules the message once, and a duplicate message
# may wait for an attempt in flight: twice the attempts bounds the reschedules.
@shared_task(bind=True, name="webhooks.deliver", acks_late=True, max_retries=2 * MAX_ATTEMPTS,
             ignore_result=True, soft_time_limit=60, time_limit=90)
def deliver(self, delivery_id: str) -> None:
    wait_s = webhook_delivery_attempt(delivery_id=delivery_id)
    if wait_s is not None:
        raise self.retry(countdown=max(wait_s, 0.0))


@shared_task(name="webhooks.requeue_stranded", acks_late=True, ignore_result=True)
def requeue_stranded() -> None:
    """Beat: re-queue deliveries whose task message was lost, and the notification of a
    comparison whose deliveries were never created. A duplicate message is harmless: an
    attempt is claimed under a row lock, a settled delivery is never re-sent, and a
    notification creates each delivery once."""
    with broker_loss_check("webhooks") as broker_lost:
        for delivery_id in webhook_deliveries_stranded(broker_lost=broker_lost):
            deliver.delay(delivery_id)
        for comparison_id in webhook_notifications_lost(broker_lost=broker_lost):
            notify_comparison_ended.delay(comparison_id)
