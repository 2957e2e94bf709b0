from django.conf import settings
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


class EnrollmentToken(TimeStampedModel):
    """Lets a lab host enroll runners into one pool (`latencylab-runner register`). Shown
    once, stored as a digest; usable by several hosts until it expires or is revoked."""

    pool = models.ForeignKey(DevicePool, on_delete=models.CASCADE, related_name="enrollment_tokens")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class Runner(TimeStampedModel):
    pool = models.ForeignKey(DevicePool, on_delete=models.CASCADE, related_name="runners")
    enrolled_with = models.ForeignKey(EnrollmentToken, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="runners")
    name = models.CharField(max_length=100)
    token_prefix = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64, unique=True)
    version = models.CharField(max_length=32, blank=True)
    hostname = models.CharField(max_length=200, blank=True)
    drivers = models.JSONField(default=list)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # Set by an operator (the Django admin): the runner's calls answer 403 and its devices
    # are offline until it is enabled again.
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=500, blank=True)
    # The lab's breaker (apps.devices.services.runner_record_lab_fault): lab faults in a row
    # (reference target down, shaping unavailable, a bad harness build) blame the lab, not
    # a phone; enough of them trip it, and none of the runner's devices is leased until an
    # owner or admin resets it.
    lab_faults = models.JSONField(default=list, blank=True,
                                  help_text="the latest consecutive lab faults: kind, error, run, at")
    breaker_tripped_at = models.DateTimeField(null=True, blank=True)
    breaker_reason = models.CharField(max_length=500, blank=True)

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
        NOT_READY = "not_ready"  # the runner's readiness gate holds it (battery, temperature, thermal status)
        UNAUTHORIZED = "unauthorized"  # e.g. adb authorization pending on the phone
        OFFLINE = "offline"
        QUARANTINED = "quarantined"  # repeated infrastructure failures; only an admin releases it

    # What a runner may report; `quarantined` is the backend's own verdict.
    REPORTABLE = (State.AVAILABLE, State.BUSY, State.NOT_READY, State.UNAUTHORIZED, State.OFFLINE)

    runner = models.ForeignKey(Runner, on_delete=models.CASCADE, related_name="devices")
    pool = models.ForeignKey(DevicePool, on_delete=models.CASCADE, related_name="devices")
    serial = models.CharField(max_length=128)
    platform = models.CharField(max_length=16, choices=Platform.choices)
    model = models.CharField(max_length=128, blank=True)
    os_version = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.OFFLINE,
                             help_text="effective state: the runner's report unless quarantined or leased")
    state_reason = models.CharField(max_length=500, blank=True, help_text="why it is in that state")
    reported_state = models.CharField(max_length=16, choices=State.choices, default=State.OFFLINE,
                                      help_text="the state the runner last reported")
    reported_reason = models.CharField(max_length=500, blank=True)
    battery = models.FloatField(null=True, blank=True)
    charging = models.BooleanField(null=True, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    thermal_status = models.CharField(max_length=32, blank=True)
    capabilities = models.JSONField(default=dict)
    fingerprint = models.JSONField(default=dict, help_text="what the runner knows of the device: build, manufacturer")
    infra_failures = models.JSONField(
        default=list, help_text="the consecutive infrastructure failures since the last good run (kind, error, run)")
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["runner", "serial"], name="device_unique_serial_per_runner")]
        indexes = [models.Index(fields=["pool", "platform", "state"])]

    def __str__(self) -> str:
        return self.serial


class DeviceStateChange(models.Model):
    """Every change of a device's state, with its reason and, for an admin's action, who."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="state_changes")
    from_state = models.CharField(max_length=16, choices=Device.State.choices)
    to_state = models.CharField(max_length=16, choices=Device.State.choices)
    reason = models.CharField(max_length=1000, blank=True)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    at = models.DateTimeField()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["device", "-at"])]
