from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import Device, DevicePool, DeviceStateChange, EnrollmentToken, Runner
from ..services import ENROLLMENT_TOKEN_DEFAULT_DAYS, ENROLLMENT_TOKEN_MAX_DAYS
from ..stand_in import device_stand_in


class PoolRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = DevicePool
        fields = ["slug", "name", "kind"]
        read_only_fields = fields


class RunnerRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Runner
        fields = ["id", "name"]
        read_only_fields = fields


class PoolDeviceCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    available = serializers.IntegerField()
    busy = serializers.IntegerField()
    not_ready = serializers.IntegerField()
    unauthorized = serializers.IntegerField()
    offline = serializers.IntegerField()
    quarantined = serializers.IntegerField()


class PoolOutputSerializer(serializers.ModelSerializer):
    devices = serializers.SerializerMethodField(help_text="devices of the pool by state")
    runners = serializers.IntegerField(source="runners_total")
    can_manage = serializers.SerializerMethodField(
        help_text="whether the caller may enroll runners into this pool and release its devices")

    class Meta:
        model = DevicePool
        fields = ["slug", "name", "kind", "devices", "runners", "can_manage"]
        read_only_fields = fields

    @extend_schema_field(PoolDeviceCountsSerializer)
    def get_devices(self, pool: Any) -> dict[str, int]:
        return {"total": pool.devices_total, **{state: getattr(pool, f"devices_{state}")
                                                for state in Device.State.values}}

    def get_can_manage(self, pool: DevicePool) -> bool:
        return bool(self.context.get("manages_own_pools")) and pool.kind == DevicePool.Kind.PRIVATE


class RunnerBreakerSerializer(serializers.Serializer):
    tripped = serializers.BooleanField(help_text="lab faults in a row tripped it: none of the runner's devices is "
                                                 "leased until an owner or admin resets it")
    tripped_at = serializers.DateTimeField(allow_null=True)
    reason = serializers.CharField(help_text="the lab faults that tripped it; empty when not tripped")
    consecutive_lab_faults = serializers.IntegerField(
        help_text="lab faults in a row (reference target down, shaping unavailable, a bad harness build)")


class RunnerOutputSerializer(serializers.ModelSerializer):
    pool = PoolRefSerializer()
    drivers = serializers.ListField(child=serializers.CharField())
    hostname = serializers.SerializerMethodField(help_text="null for LatencyLab's hosted runners")
    device_count = serializers.IntegerField()
    last_heartbeat_at = serializers.DateTimeField(source="last_seen_at", allow_null=True)
    breaker = serializers.SerializerMethodField(help_text="the lab's breaker: lab faults count here, never "
                                                          "towards a device's quarantine")
    can_reset_breaker = serializers.SerializerMethodField(help_text="tripped and the caller may reset it")

    class Meta:
        model = Runner
        fields = ["id", "name", "pool", "version", "hostname", "drivers", "last_heartbeat_at", "device_count",
                  "created_at", "breaker", "can_reset_breaker"]
        read_only_fields = fields

    def get_hostname(self, runner: Runner) -> str | None:
        return runner.hostname if runner.pool.kind == DevicePool.Kind.PRIVATE else None

    @extend_schema_field(RunnerBreakerSerializer)
    def get_breaker(self, runner: Runner) -> dict[str, Any]:
        return {"tripped": runner.breaker_tripped_at is not None, "tripped_at": runner.breaker_tripped_at,
                "reason": runner.breaker_reason, "consecutive_lab_faults": len(runner.lab_faults)}

    def get_can_reset_breaker(self, runner: Runner) -> bool:
        return (runner.breaker_tripped_at is not None and bool(self.context.get("manages_own_pools"))
                and runner.pool.kind == DevicePool.Kind.PRIVATE
                and runner.pool.organization_id == self.context.get("organization_id"))


class DeviceOutputSerializer(serializers.ModelSerializer):
    """A device as the Devices page shows it: what it is, its state and why, its health."""

    state = serializers.ChoiceField(choices=Device.State.choices)
    state_reason = serializers.CharField(help_text="why it waits, is offline or quarantined; empty when available")
    runner = RunnerRefSerializer()
    pool = PoolRefSerializer()
    capabilities = serializers.JSONField()
    fingerprint = serializers.JSONField()
    stand_in = serializers.SerializerMethodField(help_text="\"jvm\" when the device is the phone simulator's JVM "
                                                           "stand-in, not a phone; null for a real device")
    consecutive_infra_failures = serializers.SerializerMethodField()
    can_release = serializers.SerializerMethodField(help_text="quarantined and the caller may release it")

    class Meta:
        model = Device
        fields = ["id", "serial", "platform", "model", "os_version", "state", "state_reason", "battery", "charging",
                  "temperature", "thermal_status", "last_seen_at", "runner", "pool", "capabilities", "fingerprint",
                  "stand_in", "consecutive_infra_failures", "can_release"]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stand_in(self, device: Device) -> str | None:
        return device_stand_in(device.fingerprint)

    def get_consecutive_infra_failures(self, device: Device) -> int:
        return len(device.infra_failures)

    def get_can_release(self, device: Device) -> bool:
        return (device.state == Device.State.QUARANTINED and bool(self.context.get("manages_own_pools"))
                and device.pool.kind == DevicePool.Kind.PRIVATE
                and device.pool.organization_id == self.context.get("organization_id"))


class DeviceStateChangeOutputSerializer(serializers.ModelSerializer):
    changed_by = serializers.SerializerMethodField(help_text="the user behind an admin's action; null otherwise")

    class Meta:
        model = DeviceStateChange
        fields = ["from_state", "to_state", "reason", "changed_by", "at"]
        read_only_fields = fields

    def get_changed_by(self, change: DeviceStateChange) -> str | None:
        return change.changed_by.get_username() if change.changed_by else None


class EnrollmentTokenOutputSerializer(serializers.ModelSerializer):
    pool = serializers.CharField(source="pool.slug", help_text="the pool's slug")
    created_by = serializers.SerializerMethodField()
    runners_enrolled = serializers.IntegerField()
    status = serializers.SerializerMethodField()

    class Meta:
        model = EnrollmentToken
        fields = ["id", "pool", "name", "prefix", "created_by", "created_at", "expires_at", "revoked_at",
                  "last_used_at", "runners_enrolled", "status"]
        read_only_fields = fields

    def get_created_by(self, token: EnrollmentToken) -> str | None:
        return token.created_by.get_username() if token.created_by else None

    @extend_schema_field(serializers.ChoiceField(choices=["active", "expired", "revoked"]))
    def get_status(self, token: EnrollmentToken) -> str:
        if token.revoked_at:
            return "revoked"
        return "expired" if token.expires_at <= self.context["now"] else "active"


class EnrollmentTokenCreatedSerializer(EnrollmentTokenOutputSerializer):
    token = serializers.CharField(help_text="`Enroll <token>` for `latencylab-runner register`; shown only here")

    class Meta(EnrollmentTokenOutputSerializer.Meta):
        fields = [*EnrollmentTokenOutputSerializer.Meta.fields, "token"]
        read_only_fields = fields


class EnrollmentTokenInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="",
                                 help_text="a label, e.g. the lab or the person it was handed to")
    expires_in_days = serializers.IntegerField(min_value=1, max_value=ENROLLMENT_TOKEN_MAX_DAYS,
                                               default=ENROLLMENT_TOKEN_DEFAULT_DAYS)
