from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator
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

    class ErrorKind(models.TextChoices):
        """How an attempt ended badly (contract README, "Finishing with a classification"); who
        each kind blames is the contract's table (apps.scheduler.blame)."""

        DEVICE_LOST = "device_lost"
        DEVICE_NOT_READY = "device_not_ready"
        BUILD_FAILURE = "build_failure"
        TIMEOUT = "timeout"
        MALFORMED_RESULT = "malformed_result"
        LINK_UNAVAILABLE = "link_unavailable"
        LAB_FAULT = "lab_fault"  # the lab's reference target does not answer
        RUNNER_FAULT = "runner_fault"
        TARGET_UNREACHABLE = "target_unreachable"  # the comparison's own endpoint: status `failed`
        TEST_FAILURE = "test_failure"  # status `failed`, like target_unreachable; the others are `infra_error`
        LEASE_EXPIRED = "lease_expired"  # the backend's own: the runner stopped extending the lease

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
    lease_token = models.CharField(max_length=64, blank=True,
                                   help_text="the current or, once it ended, the last lease's token")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    lease_ended_at = models.DateTimeField(null=True, blank=True,
                                          help_text="when the last lease ended (artifacts are taken for a while)")
    last_device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                    help_text="the device of the latest attempt; kept when the run is requeued")
    failed_device_ids = ArrayField(models.UUIDField(), default=list, blank=True,
                                   help_text="devices an attempt failed on; the scheduler prefers others")
    fingerprint = models.JSONField(default=dict)
    link = models.JSONField(default=dict)
    error_kind = models.CharField(max_length=32, choices=ErrorKind.choices, blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The lease order's first key, copied from the comparison so that one index gives the order:
    # set by the database whenever a run is inserted or becomes queued (migration
    # 0008_run_queue_order's trigger), whichever code path queues it. Empty while the run's
    # organization is suspended (0009_run_queue_eligibility): its queued runs are then out of
    # the lease queue, and back in their place when it is reinstated.
    queue_order = models.DateTimeField(null=True, blank=True, editable=False,
                                       help_text="the comparison's created_at, copied by the database when queued; "
                                                 "empty while the organization is suspended")

    class Meta:
        ordering = ["comparison", "slot", "network_profile"]
        indexes = [
            models.Index(fields=["status", "pool"]),
            models.Index(fields=["status", "lease_expires_at"]),
            # The lease's check that a device holds no other slot of the same comparison and
            # profile, once per queued run: an exact lookup, however many runs a comparison has.
            models.Index(fields=["comparison", "network_profile", "device"], name="run_slot_device_idx"),
            # Which devices hold a live lease (the lease's free devices, hello and heartbeat).
            models.Index(fields=["device"], condition=models.Q(status="leased"), name="run_leased_device_idx"),
            # The queue in lease order, per pool and per platform (apps.scheduler.leasing._next_run_for):
            # a device's lease walks its platform's queue from the front and stops at the first run
            # it may take, instead of sorting the pool's whole queue, and never reads the runs of
            # another platform or of a suspended organization (no queue_order) on the way. A run
            # for several platforms is in the queue of each.
            *(models.Index(fields=["pool", "queue_order", "slot", "network_profile"],
                           condition=models.Q(status="queued", queue_order__isnull=False,
                                              platforms__contains=[platform]),
                           name=f"run_queue_{platform}_idx")
              for platform in Device.Platform.values),
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


class RunArtifact(TimeStampedModel):
    """A file a runner kept with a run: the fastlane log, the raw result document. Small
    and bounded (apps.comparisons.artifacts), so it lives in PostgreSQL with the run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="artifacts")
    attempt = models.PositiveSmallIntegerField()
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=100)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["attempt", "name"]
        constraints = [models.UniqueConstraint(fields=["run", "attempt", "name"], name="runartifact_unique_name")]


class RunAttempt(models.Model):
    """One lease of a run on one device and how it ended: the device's recent activity on
    the Devices page, and the run's history across devices."""

    class Outcome(models.TextChoices):
        RUNNING = "running"
        OK = "ok"
        FAILED = "failed"  # the harness ran and the block failed (test_failure), or the run ended incomplete
        INFRA_ERROR = "infra_error"
        LEASE_EXPIRED = "lease_expired"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.SET_NULL, related_name="attempts")
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RUNNING)
    error_kind = models.CharField(max_length=32, choices=Run.ErrorKind.choices, blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "number"]
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="runattempt_unique_number")]
        indexes = [models.Index(fields=["device", "-started_at"])]


# About 230 devices busy for a whole month.
QUOTA_MAX_DEVICE_MINUTES = 10_000_000


class UsageQuota(TimeStampedModel):
    """An organization's monthly allowance of device-minutes (apps.comparisons.usage), set by
    LatencyLab's operators (`set_usage_quota`, the Django admin). No row: no limit."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="usage_quota")
    monthly_device_minutes = models.PositiveIntegerField(
        validators=[MaxValueValidator(QUOTA_MAX_DEVICE_MINUTES)],
        help_text="new comparisons are refused once this month's (UTC) device-minutes reach it")

    def __str__(self) -> str:
        return f"{self.organization}: {self.monthly_device_minutes} device-minutes a month"
