from django.conf import settings
from django.db import models

from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.core.models import TimeStampedModel


class ShareLink(TimeStampedModel):
    """A read-only link to one comparison's report (/r/<token>), for people without an account.
    The token is shown once at creation and stored as a SHA-256 digest with a short visible
    prefix, like API tokens; revoked or expired links answer 404."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="share_links")
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="share_links")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_opened_at = models.DateTimeField(null=True, blank=True)
    open_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "-created_at"])]
