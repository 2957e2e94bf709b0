"""Writes for webhooks: register, delete, queue deliveries when a comparison ends, and
make one delivery attempt (signed POST, bounded exponential backoff)."""

import datetime
import hashlib
import hmac
import json
import secrets
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from rest_framework import serializers

from apps.accounts.actor import NO_ACTOR, Actor
from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.comparisons.spec import gate_metric_of
from apps.core.addresses import literal_address
from apps.core.events import publish
from apps.results.verdicts.ci_verdict import gate_outcome_within
from apps.results.verdicts.gate import metric_label

from . import transport
from .events import WEBHOOK_CREATED, WEBHOOK_DELETED, WEBHOOK_UPDATED
from .models import EVENTS, Webhook, WebhookDelivery

MAX_ATTEMPTS = 5
# Seconds to wait after attempt 1, 2, 3, 4 fails; tests shorten it with the setting.
DEFAULT_RETRY_DELAYS_S = (10, 30, 90, 270)
# An attempt in flight holds the delivery this long, so a duplicate task message cannot
# send it twice at the same time (acks_late may redeliver a message).
ATTEMPT_CLAIM_S = transport.TIMEOUT_S + 20
MAX_WEBHOOKS_PER_ORGANIZATION = 20

EVENT_FOR_STATUS: dict[str, str] = {
    Comparison.Status.FINISHED: "comparison.finished",
    Comparison.Status.FAILED: "comparison.failed",
    Comparison.Status.CANCELLED: "comparison.failed",
}


def retry_delays_s() -> tuple[float, ...]:
    return tuple(getattr(settings, "WEBHOOK_RETRY_DELAYS_S", DEFAULT_RETRY_DELAYS_S))


def public_base_url() -> str:
    return settings.PUBLIC_URL.rstrip("/")


def webhook_url_validate(url: str) -> str:
    """https anywhere public; plain http only to localhost (development and tests)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise serializers.ValidationError({"url": ["Must be an https:// URL."]})
    if parts.username or parts.password:
        raise serializers.ValidationError({"url": ["Must not carry credentials; sign with the secret instead."]})
    if transport.is_loopback_host(host):
        if not transport.loopback_allowed():
            raise serializers.ValidationError({"url": ["Loopback receivers are not allowed here."]})
        return url
    if parts.scheme != "https":
        raise serializers.ValidationError({"url": ["Must be https:// (http:// only to localhost)."]})
    literal = literal_address(host)  # decimal, octal and hex forms too: http://2130706433/ is 127.0.0.1
    if literal is not None and not transport.address_allowed(str(literal)):
        raise serializers.ValidationError({"url": ["Must not point at a private, link-local or reserved address."]})
    return url


@transaction.atomic
def webhook_create(*, organization: Organization, url: str, events: list[str],
                   actor: Actor = NO_ACTOR) -> tuple[Webhook, str]:
    """Returns the webhook and its secret: the only time the secret leaves the service."""
    webhook_url_validate(url)
    events = _check_events(events)
    if Webhook.objects.filter(organization=organization).count() >= MAX_WEBHOOKS_PER_ORGANIZATION:
        raise serializers.ValidationError(
            {"non_field_errors": [f"At most {MAX_WEBHOOKS_PER_ORGANIZATION} webhooks per organization."]})
    secret = f"whsec_{secrets.token_urlsafe(32)}"
    webhook = Webhook.objects.create(organization=organization, url=url, secret=secret, events=events)
    _announce(WEBHOOK_CREATED, webhook=webhook, actor=actor, changes={"active": True, "events": events})
    return webhook, secret


def _check_events(events: list[str]) -> list[str]:
    unknown = [e for e in events if e not in EVENTS]
    if not events or unknown:
        raise serializers.ValidationError({"events": [f"Choose one or more of {EVENTS}."]})
    return list(dict.fromkeys(events))


@transaction.atomic
def webhook_update(*, webhook: Webhook, active: bool | None = None, events: list[str] | None = None,
                   actor: Actor = NO_ACTOR) -> Webhook:
    """Turn a webhook on or off, or change its events; the URL and secret stay (register a
    new webhook for a new URL, so the URL is checked once, at creation)."""
    fields = ["updated_at"]
    if active is not None:
        webhook.active = active
        fields.append("active")
    if events is not None:
        webhook.events = _check_events(events)
        fields.append("events")
    webhook.save(update_fields=fields)
    changes = {field: getattr(webhook, field) for field in fields if field != "updated_at"}
    if changes:
        _announce(WEBHOOK_UPDATED, webhook=webhook, actor=actor, changes=changes)
    return webhook


@transaction.atomic
def webhook_delete(*, webhook: Webhook, actor: Actor = NO_ACTOR) -> None:
    _announce(WEBHOOK_DELETED, webhook=webhook, actor=actor, changes={})
    webhook.delete()


def _announce(event: str, *, webhook: Webhook, actor: Actor, changes: dict[str, Any]) -> None:
    publish(event, organization_id=webhook.organization_id, **actor.event_fields(), webhook_id=str(webhook.pk),
            url=webhook.url, changes=changes)


@transaction.atomic
def webhook_delivery_redeliver(*, delivery_id: str) -> bool:
    """Put a settled (succeeded or failed) delivery back in the queue for a new attempt,
    with the same payload and delivery id, and retries while it is under MAX_ATTEMPTS in
    all. True when it was re-queued: the caller sends the deliver task. False when it is
    still pending: its own attempts go on, and asking again adds none."""
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
    if delivery.status == WebhookDelivery.Status.PENDING:
        return False
    delivery.status = WebhookDelivery.Status.PENDING
    delivery.next_attempt_at = None
    delivery.delivered_at = None
    delivery.save(update_fields=["status", "next_attempt_at", "delivered_at", "updated_at"])
    return True


def comparison_event_payload(comparison: Comparison) -> dict[str, Any]:
    outcome = gate_outcome_within(comparison) if comparison.status == Comparison.Status.FINISHED else None
    metric = gate_metric_of(comparison.spec)
    return {
        "id": str(comparison.id),
        "name": comparison.name,
        "status": comparison.status,
        "url": f"{public_base_url()}/comparisons/{comparison.id}",
        "tags": comparison.tags,
        "outcome": outcome,
        # What `outcome` judged, as GET …/verdict names it.
        "gate": {"metric": metric, "metric_label": metric_label(metric, comparison.spec.get("workload"))},
    }


@transaction.atomic
def webhook_deliveries_create(*, comparison_id: str) -> list[WebhookDelivery]:
    """One delivery per subscribed active webhook; calling it again creates nothing new."""
    comparison = Comparison.objects.filter(pk=comparison_id).first()
    if comparison is None or comparison.status not in EVENT_FOR_STATUS:
        return []
    event = EVENT_FOR_STATUS[comparison.status]
    webhooks = [w for w in Webhook.objects.filter(organization_id=comparison.organization_id, active=True)
                if event in w.events]
    if not webhooks:
        return []
    payload = comparison_event_payload(comparison)
    created = []
    for webhook in webhooks:
        delivery, is_new = WebhookDelivery.objects.get_or_create(
            webhook=webhook, comparison=comparison, event=event, defaults={"payload": payload})
        if is_new:
            created.append(delivery)
    return created


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _claim(delivery_id: str, now: datetime.datetime) -> tuple[WebhookDelivery | None, float | None]:
    """(delivery to send now, None) | (None, seconds until it is due) | (None, None) when done."""
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().select_related("webhook").filter(
            pk=delivery_id).first()
        if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
            return None, None
        if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
            return None, (delivery.next_attempt_at - now).total_seconds()
        delivery.attempts += 1
        delivery.next_attempt_at = now + datetime.timedelta(seconds=ATTEMPT_CLAIM_S)
        delivery.save(update_fields=["attempts", "next_attempt_at", "updated_at"])
        return delivery, None


def webhook_delivery_attempt(*, delivery_id: str, now: datetime.datetime | None = None) -> float | None:
    """Make one attempt. Returns seconds until the next attempt is due, or None when the
    delivery is settled (succeeded, failed for good, gone). Idempotent: a succeeded or
    failed delivery is never sent again; an attempt in flight is not duplicated."""
    now = now or timezone.now()
    delivery, wait_s = _claim(delivery_id, now)
    if delivery is None:
        return wait_s
    body = json.dumps({"event": delivery.event, "comparison": delivery.payload,
                       "delivered_at": now.isoformat().replace("+00:00", "Z")}, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "LatencyLab-Webhooks/1",
        "X-LatencyLab-Event": delivery.event,
        "X-LatencyLab-Delivery": str(delivery.id),
        "X-LatencyLab-Signature": signature(delivery.webhook.secret, body),
    }
    status_code: int | None = None
    retryable = True
    try:
        response = transport.post(delivery.webhook.url, body=body, headers=headers)
        status_code = response.status
        if 200 <= status_code < 300:
            error = ""
        elif 300 <= status_code < 400:
            error, retryable = f"HTTP {status_code}: redirects are not followed", False
        else:
            error, retryable = f"HTTP {status_code}", status_code >= 500 or status_code == 429
    except transport.BlockedAddress as exc:
        error, retryable = str(exc), False
    except OSError as exc:  # refused, reset, timeout, TLS, DNS
        error = f"{type(exc).__name__}: {exc}"[:500]
    return _record(delivery_id=str(delivery.id), status_code=status_code, error=error, retryable=retryable, now=now)


@transaction.atomic
def _record(*, delivery_id: str, status_code: int | None, error: str, retryable: bool,
            now: datetime.datetime) -> float | None:
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
    delivery.last_status_code = status_code
    delivery.last_error = error[:500]
    wait_s = None
    if not error:
        delivery.status = WebhookDelivery.Status.SUCCEEDED
        delivery.delivered_at = now
        delivery.next_attempt_at = None
    elif retryable and delivery.attempts < MAX_ATTEMPTS:
        delays = retry_delays_s()
        wait_s = float(delays[min(delivery.attempts - 1, len(delays) - 1)])
        delivery.next_attempt_at = now + datetime.timedelta(seconds=wait_s)
    else:
        delivery.status = WebhookDelivery.Status.FAILED
        delivery.next_attempt_at = None
    delivery.save()
    return wait_s


# A pending delivery this far past its due time lost its task message (a worker died
# between claim and record, or a broker restart dropped the retry): send it again.
STRANDED_AFTER_S = 120


NOTIFY_LOOKBACK = datetime.timedelta(days=1)


def webhook_notifications_lost(*, now: datetime.datetime | None = None, broker_lost: bool = False) -> list[str]:
    """Comparisons that ended within the last day, in an organization with an active webhook,
    without a single delivery: their `notify_comparison_ended` task was lost (a Redis restart)
    after the comparison's last transaction. Ended at least STRANDED_AFTER_S ago, or at any
    time when the broker lost its data. A webhook that takes none of the event leaves its
    comparisons here, and the notification finds nothing to send: harmless."""
    now = now or timezone.now()
    until = now if broker_lost else now - datetime.timedelta(seconds=STRANDED_AFTER_S)
    delivered = WebhookDelivery.objects.filter(comparison_id=OuterRef("pk"))
    ended = (Comparison.objects.filter(status__in=list(EVENT_FOR_STATUS), finished_at__gte=now - NOTIFY_LOOKBACK,
                                       finished_at__lte=until, organization__webhooks__active=True)
             .exclude(Exists(delivered)).distinct())
    return [str(pk) for pk in ended.values_list("pk", flat=True)[:500]]


def webhook_deliveries_stranded(*, now: datetime.datetime | None = None, broker_lost: bool = False) -> list[str]:
    """Pending deliveries whose task message is gone: late by STRANDED_AFTER_S, or every
    pending one when the broker lost its data (apps.core.broker_memory)."""
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=0 if broker_lost else STRANDED_AFTER_S)
    stranded = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING).filter(
        Q(next_attempt_at__lt=cutoff) | Q(next_attempt_at__isnull=True, created_at__lt=cutoff))
    return [str(pk) for pk in stranded.values_list("pk", flat=True)[:500]]
