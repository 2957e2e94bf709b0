import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.accounts.models import ApiToken, Organization


class AuditEvent(models.Model):
    """One thing an owner may need to trace later: who did it, to what, when. Written only
    by apps.audit.handlers from the domain events the lower apps publish; never changed."""

    class Action(models.TextChoices):
        MEMBER_INVITED = "member.invited"
        MEMBER_REMOVED = "member.removed"
        MEMBER_ROLE_CHANGED = "member.role_changed"
        API_TOKEN_CREATED = "api_token.created"  # noqa: S105  (action names, not secrets)
        API_TOKEN_REVOKED = "api_token.revoked"  # noqa: S105
        SHARE_LINK_CREATED = "share_link.created"
        SHARE_LINK_REVOKED = "share_link.revoked"
        COMPARISON_CANCELLED = "comparison.cancelled"
        DEVICE_QUARANTINE_RELEASED = "device.quarantine_released"
        RUNNER_BREAKER_RESET = "runner.breaker_reset"
        WEBHOOK_CREATED = "webhook.created"
        WEBHOOK_UPDATED = "webhook.updated"
        WEBHOOK_DELETED = "webhook.deleted"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="audit_events")
    created_at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=40, choices=Action.choices)
    # Who: kept as a label too, so the record still reads right after the user or token is gone.
    actor_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    actor_token = models.ForeignKey(ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    actor_label = models.CharField(max_length=200, blank=True, help_text="empty: the system (a task, an operator)")
    target_type = models.CharField(max_length=32)
    target_id = models.CharField(max_length=64, blank=True)
    target_label = models.CharField(max_length=300, blank=True)
    details = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["organization", "-created_at"]),
            models.Index(fields=["organization", "action", "-created_at"]),
        ]
