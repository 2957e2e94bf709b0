"""The webhook management API beyond create/list: turn on and off, change events, see a
webhook's deliveries, and redeliver one through the real Celery task to a real receiver."""

import pytest
from celery.contrib.testing.worker import start_worker

from apps.devices.services import pool_get_or_create
from apps.webhooks.models import Webhook, WebhookDelivery
from apps.webhooks.services import webhook_create, webhook_deliveries_create, webhook_delivery_attempt
from config.celery import app as celery_app

from .receiver import Receiver
from .test_delivery import finished_comparison, wait_for


@pytest.fixture(autouse=True)
def local_pool(pool):
    return pool


@pytest.mark.django_db
def test_toggle_active_and_change_events(api, org):
    webhook, _ = webhook_create(organization=org, url="https://ci.example.com/h", events=["comparison.finished"])
    off = api.patch(f"/api/v1/webhooks/{webhook.id}", {"active": False}, format="json")
    assert off.status_code == 200, off.content
    assert (off.json()["active"], off.json()["events"]) == (False, ["comparison.finished"])
    assert "secret" not in off.json()
    # An inactive webhook gets no delivery for a comparison that ends.
    comparison = finished_comparison(org, ["equivalent"])
    assert webhook_deliveries_create(comparison_id=str(comparison.id)) == []

    changed = api.patch(f"/api/v1/webhooks/{webhook.id}", {"active": True,
                                                          "events": ["comparison.failed", "comparison.finished"]},
                        format="json")
    assert changed.json()["events"] == ["comparison.failed", "comparison.finished"]
    assert api.get(f"/api/v1/webhooks/{webhook.id}").json()["active"] is True

    bad = api.patch(f"/api/v1/webhooks/{webhook.id}", {"events": ["comparison.exploded"]}, format="json")
    assert bad.status_code == 400
    assert "not a valid choice" in str(bad.json()["events"])
    assert api.patch(f"/api/v1/webhooks/{webhook.id}", {"events": []}, format="json").status_code == 400
    webhook.refresh_from_db()
    assert webhook.events == ["comparison.failed", "comparison.finished"]


@pytest.mark.django_db
def test_deliveries_list_with_status_attempts_and_the_receivers_answer(api, org, django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent"])
    with Receiver(statuses=[404]) as receiver:
        webhook, _ = webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
        assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None
    listed = api.get(f"/api/v1/webhooks/{webhook.id}/deliveries")
    assert listed.status_code == 200, listed.content
    assert listed.json()["count"] == 1
    [row] = listed.json()["results"]
    assert row["id"] == str(delivery.id)
    assert row["comparison"] == {"id": str(comparison.id), "name": "webhook me"}
    assert (row["event"], row["status"], row["attempts"], row["last_status_code"], row["last_error"]) == (
        "comparison.finished", "failed", 1, 404, "HTTP 404")
    assert row["delivered_at"] is None
    assert "payload" not in row


@pytest.mark.django_db
def test_another_organizations_webhook_and_deliveries_answer_404(api, org, other_org):
    pool_get_or_create(organization=other_org, slug="local", name="Globex local")
    comparison = finished_comparison(other_org, ["equivalent"])
    theirs, _ = webhook_create(organization=other_org, url="https://globex.example.com/h",
                               events=["comparison.finished"])
    [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
    mine, _ = webhook_create(organization=org, url="https://acme.example.com/h", events=["comparison.finished"])
    assert api.get(f"/api/v1/webhooks/{theirs.id}").status_code == 404
    assert api.patch(f"/api/v1/webhooks/{theirs.id}", {"active": False}, format="json").status_code == 404
    assert api.get(f"/api/v1/webhooks/{theirs.id}/deliveries").status_code == 404
    assert api.post(f"/api/v1/webhooks/{theirs.id}/deliveries/{delivery.id}/redeliver").status_code == 404
    # Their delivery under my webhook's id is not found either.
    assert api.post(f"/api/v1/webhooks/{mine.id}/deliveries/{delivery.id}/redeliver").status_code == 404
    assert Webhook.objects.get(pk=theirs.pk).active is True
    delivery.refresh_from_db()
    assert delivery.attempts == 0


@pytest.mark.django_db(transaction=True)
def test_redeliver_sends_a_failed_delivery_again_through_the_worker_once(api, org):
    comparison = finished_comparison(org, ["equivalent"])
    with Receiver(statuses=[410]) as receiver, \
            start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        webhook, receiver.secret = webhook_create(organization=org, url=receiver.url, events=["comparison.finished"])
        [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
        assert webhook_delivery_attempt(delivery_id=str(delivery.id)) is None  # 410: failed for good
        delivery.refresh_from_db()
        assert delivery.status == "failed"

        url = f"/api/v1/webhooks/{webhook.id}/deliveries/{delivery.id}/redeliver"
        queued = api.post(url)
        assert queued.status_code == 202, queued.content
        assert queued.json()["id"] == str(delivery.id)
        assert wait_for(lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == "succeeded"), receiver.received
        assert len(receiver.received) == 2
        again = api.post(url)  # succeeded: a new attempt again, on purpose (the receiver lost it, say)
        assert again.status_code == 202
        assert wait_for(lambda: len(receiver.received) == 3)
        assert wait_for(lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == "succeeded")
    assert all(hit["signature_ok"] for hit in receiver.received)
    assert {hit["headers"]["X-LatencyLab-Delivery"] for hit in receiver.received} == {str(delivery.id)}
    assert receiver.received[1]["body"]["comparison"] == receiver.received[0]["body"]["comparison"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code, delivery.last_error) == (
        "succeeded", 3, 200, "")
    assert delivery.delivered_at is not None


@pytest.mark.django_db
def test_redeliver_of_a_pending_delivery_adds_nothing(api, org, django_capture_on_commit_callbacks):
    comparison = finished_comparison(org, ["equivalent"])
    webhook, _ = webhook_create(organization=org, url="https://ci.example.com/h", events=["comparison.finished"])
    [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
    response = api.post(f"/api/v1/webhooks/{webhook.id}/deliveries/{delivery.id}/redeliver")
    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("pending", 0)
