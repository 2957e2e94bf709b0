from django.db import models

from apps.accounts.models import Organization
from apps.core.models import TimeStampedModel


class DevicePool(TimeStampedModel):
    class Kind(models.TextChoices):
        PRIVATE = "private"  # owned by one organization
        HOSTED = "hosted"  # LatencyLab's fleet, shared by every organization

    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.CASCADE, related_name="device_pools"
    )
    slug = models.SlugField(max_length=64)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.PRIVATE)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "slug"], name="pool_unique_slug_per_org")]

    def __str__(self) -> str:
        return self.slug


class Runner(TimeStampedModel):
    pool = models.ForeignKey(DevicePool, on_delete=models.CASCADE, related_name="runners")
    name = models.CharField(max_length=100)
    token_prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    version = models.CharField(max_length=32, blank=True)
    hostname = models.CharField(max_length=200, blank=True)
    drivers = models.JSONField(default=list)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "name"], name="runner_unique_name_per_pool")]


class Device(TimeStampedModel):
    class Platform(models.TextChoices):
        IOS = "ios"
        ANDROID = "android"
        HOST = "host"

    class State(models.TextChoices):
        AVAILABLE = "available"
        BUSY = "busy"
        OFFLINE = "offline"
        QUARANTINED = "quarantined"

    runner = models.ForeignKey(Runner, on_delete=models.CASCADE, related_name="devices")
    pool = models.ForeignKey(DevicePool, on_delete=models.CASCADE, related_name="devices")
    serial = models.CharField(max_length=128)
    platform = models.CharField(max_length=16, choices=Platform.choices)
    model = models.CharField(max_length=128, blank=True)
    os_version = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.OFFLINE)
    battery = models.FloatField(null=True, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    capabilities = models.JSONField(default=dict)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["runner", "serial"], name="device_unique_serial_per_runner")]
        indexes = [models.Index(fields=["pool", "platform", "state"])]

    def __str__(self) -> str:
        return self.serial
