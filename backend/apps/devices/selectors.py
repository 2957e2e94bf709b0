"""Reads for pools, runners and devices, always scoped by the organization asking."""

from typing import Any

from django.db.models import Count, F, Q, QuerySet

from apps.accounts.models import Organization

from .models import Device, DevicePool, DeviceStateChange, EnrollmentToken, Runner

# Who may enroll runners into a pool and release its devices from quarantine.


def pools_visible_to(*, organization: Organization) -> QuerySet[DevicePool]:
    return DevicePool.objects.filter(Q(organization=organization) | Q(kind=DevicePool.Kind.HOSTED))


def pools_with_counts(*, organization: Organization) -> QuerySet[DevicePool]:
    """Visible pools with their runners and their devices counted by state: one query."""
    per_state = {f"devices_{state}": Count("devices", filter=Q(devices__state=state), distinct=True)
                 for state in Device.State.values}
    return (pools_visible_to(organization=organization)
            .annotate(devices_total=Count("devices", distinct=True), runners_total=Count("runners", distinct=True),
                      **per_state)
            .order_by("kind", "slug"))


def pool_managed_by(*, organization: Organization, slug: str) -> DevicePool:
    """An organization manages its own private pools only; anything else is 404."""
    return DevicePool.objects.get(organization=organization, kind=DevicePool.Kind.PRIVATE, slug=slug)


def runners_visible_to(*, organization: Organization) -> QuerySet[Runner]:
    return (Runner.objects.filter(pool__in=pools_visible_to(organization=organization))
            .select_related("pool").annotate(device_count=Count("devices")).order_by("pool__slug", "name"))


def devices_visible_to(*, organization: Organization) -> QuerySet[Device]:
    return Device.objects.filter(pool__in=pools_visible_to(organization=organization)).select_related("runner", "pool")


def device_state_history(*, device: Device, limit: int = 100) -> QuerySet[DeviceStateChange]:
    return device.state_changes.select_related("changed_by").order_by("-at", "-id")[:limit]


def enrollment_tokens_of(*, pool: DevicePool) -> QuerySet[EnrollmentToken]:
    return (EnrollmentToken.objects.filter(pool=pool).select_related("created_by", "pool")
            .annotate(runners_enrolled=Count("runners")).order_by("-created_at"))


def pool_devices_with_capabilities(*, pool_id: Any) -> list[dict[str, Any]]:
    """Every device a pool has registered (whatever its state now), with what its runner says
    it can do: serial, model, platform, capabilities and the runner's name. One query."""
    rows = (Device.objects.filter(pool_id=pool_id).order_by("platform", "serial")
            .values("serial", "model", "platform", "capabilities", runner_name=F("runner__name")))
    return [dict(row) for row in rows]


def pool_platforms(*, pool_id: Any) -> set[str]:
    """The platforms of the devices a pool has ever registered (whatever their state now)."""
    return set(Device.objects.filter(pool_id=pool_id).values_list("platform", flat=True).distinct())
