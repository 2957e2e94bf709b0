from django.db import models

from apps.accounts.models import Organization
from apps.core.models import TimeStampedModel


class NetworkProfile(TimeStampedModel):
    """An organization's own network conditions; `spec` is the wire format the runners'
    link emulator takes (per direction delay, jitter, loss, rate, queue; blackouts)."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="network_profiles")
    name = models.SlugField(max_length=64)
    description = models.CharField(max_length=500, blank=True)
    spec = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "name"], name="netprofile_unique_name")]
        ordering = ["name"]
