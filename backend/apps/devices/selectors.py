from django.db.models import Q, QuerySet

from apps.accounts.models import Organization

from .models import Device, DevicePool


def pools_visible_to(*, organization: Organization) -> QuerySet[DevicePool]:
    return DevicePool.objects.filter(Q(organization=organization) | Q(kind=DevicePool.Kind.HOSTED))


def devices_visible_to(*, organization: Organization) -> QuerySet[Device]:
    return Device.objects.filter(pool__in=pools_visible_to(organization=organization)).select_related("runner", "pool")
