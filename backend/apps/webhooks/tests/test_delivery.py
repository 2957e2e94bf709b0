"""Deliveries to a real HTTP receiver on loopback: signature, payload, retries with
backoff (the clock is injected, nothing sleeps), no retry on 4xx, no redirects, and a
real Celery worker carrying a cancelled comparison's event through two failures."""

import datetime
import socket

import pytest
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.results.models import Analysis
from apps.webhooks.models import WebhookDelivery
from apps.webhooks.services import (
    webhook_create,
    webhook_deliveries_create,
    webhook_delivery_attempt,
    webhook_notifications_lost,
)
from config.celery import app as celery_app
from testing.waiting import wait_for

from .receiver import Receiver

SPEC = {"name": "webhook me", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3],
        "repetitions": 2}, "blocks": 2, "seed": 1, "tags": {"branch": "main", "commit": "abc123"}}


@pytest.fixture(autouse=True)
def local_pool(pool):
    return pool


def finished_comparison(org, outcomes: list[str]) -> Comparison:
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    # The series' own gate metric is series time; per-request rows beside it do not gate.
    rows = [{"metric": "series_ms", "arm": "h2", "verdict": {"outcome": o}} for o in outcomes]
    rows.append({"metric": "ttfb_ms", "arm": "h2", "verdict": {"outcome": "regression"}})  # not the gate metric
    rows.append({"metric": "total_ms", "arm": "h2", "verdict": {"outcome": "regression"}})  # nor this one
    Analysis.objects.create(comparison=comparison, version=1, engine="test", result={"analysis": {"comparisons": []}})
    Analysis.objects.create(comparison=comparison, version=2, engine="test", result={"analysis": {"comparisons": rows}})
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.FINISHED)
    comparison.refresh_from_db()
    return comparison


def queue(comparison, django_capture_on_commit_callbacks) -> WebhookDelivery:
    # The service only writes the deliveries; the task that called it sends them.
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
    assert callbacks == []
    return delivery


@pytest.mark.django_db
def test_finished_comparison_is_delivered_signed_and_only_once(org, other_org, django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent", "improvement"])
    with Receiver() as receiver:
        webhook, secret = webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        webhook_create(organization=org, url=receiver.url, events=["comparison.failed"])  # not subscribed
        webhook_create(organization=other_org, url=receiver.url, events=["comparison.finished"])  # not theirs
        receiver.secret = secret
        delivery = queue(comparison, django_capture_on_commit_callbacks)
        assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None
        # Idempotent: queueing again creates nothing, attempting again sends nothing.
        assert webhook_deliveries_create(comparison_id=str(comparison.id)) == []
        assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None
    [hit] = receiver.received
    assert hit["signature_ok"]
    assert hit["path"] == "/hooks/latencylab?src=test"
    assert hit["headers"]["X-LatencyLab-Event"] == "comparison.finished"
    assert hit["headers"]["X-LatencyLab-Delivery"] == str(delivery.id)
    assert hit["headers"]["Content-Type"] == "application/json"
    body = hit["body"]
    assert body["event"] == "comparison.finished"
    assert body["delivered_at"].endswith("Z")
    assert body["comparison"] == {
        "id": str(comparison.id), "name": "webhook me", "status": "finished",
        "url": f"http://127.0.0.1:8000/comparisons/{comparison.id}", "tags": {"branch": "main", "commit": "abc123"},
        "outcome": "improvement",  # worst of equivalent, improvement on the gate metric of the latest analysis
        "gate": {"metric": "series_ms", "metric_label": "series time, period 3"},
    }
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("succeeded", 1, 200)
    assert delivery.delivered_at is not None
    assert delivery.webhook_id == webhook.id


@pytest.mark.django_db
def test_server_errors_are_retried_with_backoff_until_success(org, django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent"])
    with Receiver(statuses=[503, 429]) as receiver:
        _, receiver.secret = webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        delivery = queue(comparison, django_capture_on_commit_callbacks)
        t0 = timezone.now()
        assert webhook_delivery_attempt(delivery_id=str(delivery.id), now=t0) == 10
        # A duplicate message before the backoff is over sends nothing and says how long to wait.
        assert webhook_delivery_attempt(delivery_id=str(delivery.id), now=t0 + datetime.timedelta(seconds=4)) == 6
        assert len(receiver.received) == 1
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("pending", 1, 503)
        assert delivery.next_attempt_at == t0 + datetime.timedelta(seconds=10)
        assert webhook_delivery_attempt(delivery_id=str(delivery.id), now=t0 + datetime.timedelta(seconds=10)) == 30
        assert webhook_delivery_attempt(delivery_id=str(delivery.id), now=t0 + datetime.timedelta(seconds=40)) is None
    assert len(receiver.received) == 3
    assert all(hit["signature_ok"] for hit in receiver.received)
    assert len({hit["headers"]["X-LatencyLab-Delivery"] for hit in receiver.received}) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code, delivery.last_error) == (
        "succeeded", 3, 200, "")


@pytest.mark.django_db
def test_gives_up_after_five_attempts(org, django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent"])
    with Receiver(statuses=[500] * 10) as receiver:
        webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        delivery = queue(comparison, django_capture_on_commit_callbacks)
        now, waits = timezone.now(), []
        while (wait := webhook_delivery_attempt(delivery_id=str(delivery.id), now=now)) is not None:
            waits.append(wait)
            now += datetime.timedelta(seconds=wait)
    assert waits == [10, 30, 90, 270]
    assert len(receiver.received) == 5
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("failed", 5, "HTTP 500")


@pytest.mark.django_db
@pytest.mark.parametrize("status, error", [(404, "HTTP 404"), (401, "HTTP 401"),
                                               (302, "redirects are not followed")])
def test_client_errors_and_redirects_are_not_retried(org, django_capture_on_commit_callbacks, status, error):
    comparison = finished_comparison(org, ["equivalent"])
    with Receiver() as target, Receiver(statuses=[status], location=target.url) as receiver:
        webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        delivery = queue(comparison, django_capture_on_commit_callbacks)
        assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None
    assert len(receiver.received) == 1
    assert target.received == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 1, status)
    assert error in delivery.last_error


@pytest.mark.django_db
def test_network_errors_are_retried(org, django_capture_on_commit_callbacks):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    comparison = finished_comparison(org, ["equivalent"])
    webhook_create(organization=org, url=f"http://127.0.0.1:{closed_port}/h", events=["comparison.finished"])
    delivery = queue(comparison, django_capture_on_commit_callbacks)
    assert webhook_delivery_attempt(delivery_id=str(delivery.id)) == 10
    delivery.refresh_from_db()
    assert delivery.status == "pending"
    assert "ConnectionRefused" in delivery.last_error
    assert delivery.last_status_code is None


@pytest.mark.django_db
def test_hostnames_resolving_to_private_addresses_are_refused_at_send_time(org, settings,
                                                                          django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent"])
    webhook_create(organization=org, url="http://localhost:9/h", events=["comparison.finished"])
    settings.WEBHOOKS_ALLOW_LOOPBACK = False  # production: localhost is an internal address like any other
    delivery = queue(comparison, django_capture_on_commit_callbacks)
    assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None
    delivery.refresh_from_db()
    assert delivery.status == "failed"
    assert "may not reach" in delivery.last_error


@pytest.mark.django_db(transaction=True)
def test_cancelled_comparison_reaches_the_receiver_through_a_real_worker(api, pool, settings):
    settings.WEBHOOK_RETRY_DELAYS_S = (0, 0, 0, 0)  # the real backoff is covered above with an injected clock
    with Receiver(statuses=[502, 503]) as receiver, \
            start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        registered = api.post("/api/v1/webhooks", {"url": receiver.url, "events": ["comparison.failed"]},
                              format="json").json()
        receiver.secret = registered["secret"]
        created = api.post("/api/v1/comparisons", SPEC, format="json").json()
        assert api.post(f"/api/v1/comparisons/{created['id']}/cancel").json()["status"] == "cancelled"
        assert wait_for(lambda: WebhookDelivery.objects.filter(status="succeeded").exists()), receiver.received
    assert len(receiver.received) == 3
    assert all(hit["signature_ok"] for hit in receiver.received)
    body = receiver.received[-1]["body"]
    assert body["event"] == "comparison.failed"
    assert body["comparison"]["status"] == "cancelled"
    assert body["comparison"]["outcome"] is None
    delivery = WebhookDelivery.objects.get()
    assert (delivery.attempts, delivery.last_status_code) == (3, 200)


@pytest.mark.django_db
def test_a_delivery_whose_task_message_was_lost_is_found_and_sent(org, django_capture_on_commit_callbacks):
    from apps.webhooks.services import webhook_deliveries_stranded

    comparison = finished_comparison(org, ["equivalent"])
    with Receiver() as receiver:
        _, receiver.secret = webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        delivery = queue(comparison, django_capture_on_commit_callbacks)  # its deliver() message never runs
        assert webhook_deliveries_stranded() == []  # not overdue yet
        later = timezone.now() + datetime.timedelta(minutes=5)
        assert webhook_deliveries_stranded(now=later) == [str(delivery.id)]
        assert webhook_delivery_attempt(delivery_id=str(delivery.id), now=later) is None
        assert webhook_deliveries_stranded(now=later + datetime.timedelta(minutes=5)) == []
    assert len(receiver.received) == 1
    assert receiver.received[0]["signature_ok"]


@pytest.mark.django_db
def test_a_comparison_whose_notification_task_was_lost_is_found_until_its_deliveries_exist(org):
    comparison = finished_comparison(org, ["equivalent"])
    now = timezone.now()
    Comparison.objects.filter(pk=comparison.pk).update(finished_at=now)
    assert webhook_notifications_lost(now=now, broker_lost=True) == []  # no webhook: nothing to send
    with Receiver() as receiver:
        webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
    assert webhook_notifications_lost(now=now) == []  # seconds old: its task may yet run
    assert webhook_notifications_lost(now=now, broker_lost=True) == [str(comparison.pk)]
    later = now + datetime.timedelta(minutes=5)
    assert webhook_notifications_lost(now=later) == [str(comparison.pk)]
    webhook_deliveries_create(comparison_id=str(comparison.pk))  # what the re-queued task does
    assert webhook_notifications_lost(now=later, broker_lost=True) == []
    assert webhook_notifications_lost(now=now + datetime.timedelta(days=2), broker_lost=True) == []
