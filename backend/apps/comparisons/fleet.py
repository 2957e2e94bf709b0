"""The Devices page's reads: devices with the attempts they ran recently. Here, not in
the devices app, because runs are comparisons' (the apps depend one way)."""

from django.db.models import Prefetch, QuerySet

from apps.accounts.models import Organization
from apps.devices.models import Device
from apps.devices.selectors import devices_visible_to

from .models import RunAttempt

RECENT_RUNS_PER_DEVICE = 5


def _recent_attempts(*, organization: Organization, limit: int) -> Prefetch:
    """The device's latest attempts at this organization's runs only: a hosted device also
    runs other organizations' comparisons, and those are none of this one's business."""
    attempts = (RunAttempt.objects.filter(run__comparison__organization=organization)
                .select_related("run__comparison")
                .only("id", "number", "outcome", "error_kind", "error", "started_at", "ended_at", "device_id",
                      "run__id", "run__status", "run__network_profile", "run__comparison__id",
                      "run__comparison__name")
                .order_by("-started_at", "-id"))
    return Prefetch("attempts", queryset=attempts[:limit], to_attr="recent_attempts")


def devices_with_recent_runs(*, organization: Organization, limit: int = RECENT_RUNS_PER_DEVICE) -> QuerySet[Device]:
    """One query for the devices (runner and pool joined), one for all their recent attempts."""
    return (devices_visible_to(organization=organization)
            .prefetch_related(_recent_attempts(organization=organization, limit=limit))
            .order_by("pool__slug", "platform", "model", "serial"))
