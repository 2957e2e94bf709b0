"""Monthly device-minute quotas: operators set them (`set_usage_quota`, the Django admin);
creating a comparison is refused once this month's usage has reached the quota."""

from django.db import transaction
from django.utils import timezone
from rest_framework import status

from apps.accounts.models import Organization
from apps.core.errors import ApplicationError

from .models import UsageQuota
from .usage import device_minutes_this_month


class QuotaExceeded(ApplicationError):
    # 403, not 429: waiting a few seconds does not help; next month or a larger quota does.
    status_code = status.HTTP_403_FORBIDDEN


def quota_of(*, organization: Organization) -> int | None:
    """The monthly device-minute quota, or None: no limit."""
    return (UsageQuota.objects.filter(organization=organization)
            .values_list("monthly_device_minutes", flat=True).first())


def quota_check(*, organization: Organization) -> None:
    """Raise QuotaExceeded when this month's device-minutes have reached the quota."""
    quota = quota_of(organization=organization)
    if quota is None:
        return
    now = timezone.now()
    used = device_minutes_this_month(organization=organization, now=now)
    if used >= quota:
        raise QuotaExceeded(
            f"This organization has used {used:,.0f} of its {quota:,} device-minutes for {now:%B %Y} (UTC); "
            "new comparisons start again next month, or ask LatencyLab to raise the quota.")


@transaction.atomic
def usage_quota_set(*, organization: Organization, monthly_device_minutes: int | None) -> UsageQuota | None:
    """Set the quota, or remove it (None: no limit)."""
    if monthly_device_minutes is None:
        UsageQuota.objects.filter(organization=organization).delete()
        return None
    quota, _ = UsageQuota.objects.update_or_create(
        organization=organization, defaults={"monthly_device_minutes": monthly_device_minutes})
    return quota
