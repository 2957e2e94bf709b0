from django.db import models

from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.core.models import TimeStampedModel

EVENTS = ["comparison.finished", "comparison.failed"]


class Webhook(TimeStampedModel):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    # Kept in clear because HMAC signing needs it; the API shows it once, at creation.
    secret = models.CharField(max_length=100)
    events = models.JSONField(default=list)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "active"])]


class WebhookDelivery(TimeStampedModel):
    """One event for one webhook, with its chain of attempts."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="+")
    event = models.CharField(max_length=32)
    payload = models.JSONField(help_text="the comparison as it was when the event happened")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "comparison", "event"], name="webhook_delivery_once_per_event")
        ]
