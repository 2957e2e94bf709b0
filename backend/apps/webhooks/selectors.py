from typing import Any

from django.db.models import QuerySet

from apps.accounts.models import Organization

from .models import Webhook, WebhookDelivery


def webhooks_for(*, organization: Organization) -> QuerySet[Webhook]:
    return Webhook.objects.filter(organization=organization).order_by("-created_at")


def webhook_get(*, organization: Organization, webhook_id: Any) -> Webhook:
    """Another organization's id answers 404, exactly like an unknown one."""
    return webhooks_for(organization=organization).get(pk=webhook_id)


def webhook_deliveries_for(*, organization: Organization) -> QuerySet[WebhookDelivery]:
    return WebhookDelivery.objects.filter(webhook__organization=organization)


def webhook_deliveries_of(*, webhook: Webhook) -> QuerySet[WebhookDelivery]:
    """One webhook's deliveries, newest first (get the webhook with webhook_get: it is org-scoped)."""
    return (WebhookDelivery.objects.filter(webhook=webhook).select_related("comparison")
            .defer("payload", "comparison__submitted_spec").order_by("-created_at"))
