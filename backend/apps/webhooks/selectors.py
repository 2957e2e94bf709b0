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
