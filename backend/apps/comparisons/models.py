from django.conf import settings
from django.db import models

from apps.accounts.models import Organization
from apps.core.models import TimeStampedModel
from apps.devices.models import Device, DevicePool


class Comparison(TimeStampedModel):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        ANALYSING = "analysing"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"

    TERMINAL = (Status.FINISHED, Status.FAILED, Status.CANCELLED)

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="comparisons")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    name = models.CharField(max_length=200)
    preset = models.CharField(max_length=64, blank=True)
    submitted_spec = models.JSONField(help_text="the spec exactly as the user sent it")
    spec = models.JSONField(help_text="the normalized spec: preset expanded, defaults filled")
    spec_hash = models.CharField(max_length=64, db_index=True, help_text="identifies 'the same spec' for baselines")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    tags = models.JSONField(default=dict)
    baseline_arm = models.CharField(max_length=64)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["organization", "-created_at"])]
        ordering = ["-created_at"]


class Arm(models.Model):
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="arms")
    position = models.PositiveSmallIntegerField()
    label = models.CharField(max_length=64)
    protocol = models.CharField(max_length=8)
    connection = models.CharField(max_length=8)
    endpoint = models.URLField(max_length=500, blank=True)
    options = models.JSONField(default=dict)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["comparison", "label"], name="arm_unique_label")]


class Run(TimeStampedModel):
    """One comparison on one device under one network profile: every arm, interleaved."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        LEASED = "leased"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    TERMINAL = (Status.DONE, Status.FAILED, Status.CANCELLED)

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="runs")
    slot = models.PositiveSmallIntegerField(help_text="device slot within the comparison")
    pool = models.ForeignKey(DevicePool, on_delete=models.PROTECT, related_name="runs")
    platforms = models.JSONField(default=list)
    network_profile = models.CharField(max_length=64)
    network_profile_spec = models.JSONField(default=dict)
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")
    device_label = models.CharField(max_length=128, blank=True, help_text="the device of imported measurements")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempt = models.PositiveSmallIntegerField(default=0)
    blocks_total = models.PositiveSmallIntegerField()
    next_block = models.PositiveSmallIntegerField(default=0)
    lease_token = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    fingerprint = models.JSONField(default=dict)
    link = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["comparison", "slot", "network_profile"]
        indexes = [
            models.Index(fields=["status", "pool"]),
            models.Index(fields=["status", "lease_expires_at"]),
        ]


class RunBlock(models.Model):
    """A block stored atomically with its baseline; (run, block) is the idempotency key."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="blocks")
    block = models.PositiveSmallIntegerField()
    attempt = models.PositiveSmallIntegerField()
    batch_seq = models.PositiveIntegerField()
    baseline = models.JSONField(default=dict)
    sample_count = models.PositiveIntegerField()
    stored_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "block"], name="runblock_unique_block")]
        ordering = ["run", "block"]
