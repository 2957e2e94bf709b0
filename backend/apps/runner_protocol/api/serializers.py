"""Bodies of the runner protocol v1 (device-runner/contract/README.md), both ways: every
response goes through an output serializer, so the OpenAPI schema describes it."""

import json
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.comparisons.blame import reported_kinds
from apps.comparisons.models import Run
from apps.devices.models import Device, DevicePool
from apps.results.ingest import ColumnarSamples

DRIVERS = ["host", "android", "ios"]
# Serials and UDIDs are printable ASCII without spaces (adb over Wi-Fi: "192.168.1.7:5555").
SERIAL_PATTERN = r"^[\x21-\x7e]{1,128}$"
RUNNER_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,100}$"


NUL_MESSAGE = "must not contain NUL characters (\\u0000): they cannot be stored"


def has_nul(value: Any) -> bool:
    """Whether a decoded JSON value holds U+0000 in a key or string anywhere (PostgreSQL's jsonb
    refuses it: a 500 unless refused here)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_nul(v) for v in value)
    return False


@extend_schema_field({"type": "object", "additionalProperties": True})
class JSONObjectField(serializers.JSONField):
    """A JSON object of bounded size (what a runner knows of a device, a fingerprint)."""

    def __init__(self, *, max_bytes: int = 4096, **kwargs: Any) -> None:
        self.max_bytes = max_bytes
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if value is None:
            return value
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be a JSON object")
        if len(json.dumps(value)) > self.max_bytes:
            raise serializers.ValidationError(f"at most {self.max_bytes} bytes as JSON")
        if has_nul(value):
            raise serializers.ValidationError(NUL_MESSAGE)
        return value


class RunnerInfoSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False)
    version = serializers.CharField(max_length=32)
    drivers = serializers.ListField(child=serializers.ChoiceField(choices=DRIVERS), max_length=3)
    hostname = serializers.CharField(max_length=200, required=False, allow_blank=True)


class DeviceDescriptorSerializer(serializers.Serializer):
    """One device as the runner sees it (README "Device descriptors"). In a heartbeat only
    `serial` is required for a device reported before; what is left out keeps its value."""

    serial = serializers.RegexField(SERIAL_PATTERN, max_length=128,
                                    error_messages={"invalid": "1 to 128 printable ASCII characters, no spaces"})
    platform = serializers.ChoiceField(choices=Device.Platform.choices, required=False,
                                       help_text="required the first time a device is reported")
    model = serializers.CharField(max_length=128, required=False, allow_blank=True)
    os_version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    capabilities = JSONObjectField(required=False, help_text='e.g. {"protocols": ["h1", "h2", "h3"], "sdk": 34}')
    state = serializers.ChoiceField(choices=[(s, s) for s in Device.REPORTABLE], required=False,
                                    help_text="as the runner sees it; the backend adds quarantined")
    reason = serializers.CharField(max_length=200, required=False, allow_null=True, allow_blank=True,
                                   help_text="why it is not_ready, unauthorized or offline, e.g. 'battery 32 % < 50 %'")
    battery = serializers.FloatField(min_value=0, max_value=100, required=False, allow_null=True,
                                     help_text="percent")
    charging = serializers.BooleanField(required=False, allow_null=True)
    temperature = serializers.FloatField(min_value=-40, max_value=150, required=False, allow_null=True,
                                         help_text="battery temperature, °C")
    thermal_status = serializers.RegexField(r"^[a-z_]{1,32}$", required=False, allow_null=True,
                                            error_messages={"invalid": "1 to 32 of a-z and _"},
                                            help_text="the platform's thermal status, e.g. none, light, severe")
    fingerprint = JSONObjectField(required=False, help_text="manufacturer, build and the like")


class HelloDeviceSerializer(DeviceDescriptorSerializer):
    platform = serializers.ChoiceField(choices=Device.Platform.choices)


def _unique_serials(devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    for index, device in enumerate(devices):
        if device["serial"] in seen:
            raise serializers.ValidationError(f"devices[{index}].serial: {device['serial']!r} is listed twice")
        seen.add(device["serial"])
    return devices


class HelloInputSerializer(serializers.Serializer):
    runner = RunnerInfoSerializer()
    devices = HelloDeviceSerializer(many=True, max_length=64)  # type: ignore[call-arg]

    def validate_devices(self, devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _unique_serials(devices)


class RunnerDeviceRefSerializer(serializers.Serializer):
    serial = serializers.CharField()
    id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=Device.State.choices, help_text="the effective state")
    reason = serializers.CharField(source="state_reason")


class HelloOutputSerializer(serializers.Serializer):
    runner_id = serializers.UUIDField()
    heartbeat_interval_s = serializers.IntegerField()
    lease_wait_s = serializers.IntegerField()
    devices = RunnerDeviceRefSerializer(many=True)


class RunLeaseRefSerializer(serializers.Serializer):
    run_id = serializers.UUIDField()
    lease_token = serializers.CharField(max_length=64)


class HeartbeatInputSerializer(serializers.Serializer):
    devices = DeviceDescriptorSerializer(many=True, max_length=64,  # type: ignore[call-arg]
                                         help_text="every device the runner sees; one it no longer lists is offline")
    runs = RunLeaseRefSerializer(many=True, required=False, default=list, max_length=64)  # type: ignore[call-arg]

    def validate_devices(self, devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _unique_serials(devices)


class RunnerCommandSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["cancel_run"])
    run_id = serializers.UUIDField()


class DeviceEffectiveStateSerializer(serializers.Serializer):
    serial = serializers.CharField()
    state = serializers.ChoiceField(choices=Device.State.choices,
                                    help_text="the effective state: a quarantined device must not be offered")
    reason = serializers.CharField()


class HeartbeatOutputSerializer(serializers.Serializer):
    commands = RunnerCommandSerializer(many=True)
    lease_expires_at = serializers.DateTimeField(allow_null=True,
                                                 help_text="the extended leases' new expiry; null if none was extended")
    devices = DeviceEffectiveStateSerializer(many=True)


class LeaseInputSerializer(serializers.Serializer):
    devices = serializers.ListField(child=serializers.RegexField(SERIAL_PATTERN, max_length=128), max_length=64,
                                    help_text="serials of the free (ready) devices")
    wait_s = serializers.FloatField(min_value=0, max_value=25, default=25)


@extend_schema_field({"type": "object", "additionalProperties": True, "required": ["name"],
                      "properties": {"name": {"type": "string"}},
                      "description": "the network profile's name and, unless `none`, its link spec"})
class NetworkProfileWireField(serializers.JSONField):
    pass


@extend_schema_field({"type": "object", "additionalProperties": True,
                      "description": "the normalized comparison spec: preset expanded, defaults filled "
                                     "(contract README, NORMALIZED_SPEC)"})
class NormalizedSpecField(serializers.JSONField):
    pass


class LeasedRunSerializer(serializers.Serializer):
    run_id = serializers.UUIDField()
    comparison_id = serializers.UUIDField()
    lease_token = serializers.CharField()
    attempt = serializers.IntegerField()
    next_block = serializers.IntegerField(help_text="the first block not stored yet")
    device_serial = serializers.CharField(allow_null=True)
    lease_expires_at = serializers.DateTimeField(allow_null=True)
    network_profile = NetworkProfileWireField()
    pool_kind = serializers.ChoiceField(
        choices=DevicePool.Kind.choices,
        help_text="`hosted`: before the first block, resolve every customer host once, refuse private, loopback, "
                  "link-local, CGNAT, metadata and reserved addresses, and connect only to the address checked")
    spec = NormalizedSpecField()
    secrets = serializers.DictField(
        child=serializers.CharField(), default=dict,
        help_text="values of the organization secrets the spec references as {{secret.NAME}} (only those): "
                  "substituted into header values in memory, never written to disk or logs, dropped after the run")


class LeaseOutputSerializer(serializers.Serializer):
    runs = LeasedRunSerializer(many=True)


class SampleListField(serializers.ListField):
    """A list taken as it is: the samples were checked against the contract by msgspec
    while the body was decoded (apps.results.ingest.SampleBatchParser) and are checked
    against the run by samples_validate; a DRF field per sample would cost ~50× more. A
    columnar upload's samples (ColumnarSamples) are taken as they are too: columnar_validate
    checks them."""

    def to_internal_value(self, data: object) -> list | ColumnarSamples:  # type: ignore[override]
        if isinstance(data, ColumnarSamples):
            return data
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        return data


class BatchInputSerializer(serializers.Serializer):
    lease_token = serializers.CharField(max_length=64)
    attempt = serializers.IntegerField(min_value=1)
    batch_seq = serializers.IntegerField(min_value=0, max_value=2**31 - 1)  # RunBlock.batch_seq's column
    block = serializers.IntegerField(min_value=0, max_value=1000)
    baseline = serializers.JSONField(required=False, allow_null=True)
    samples = SampleListField(child=serializers.JSONField(), allow_empty=True)

    def validate_baseline(self, baseline: Any) -> Any:
        if has_nul(baseline):
            raise serializers.ValidationError(NUL_MESSAGE)
        return baseline


class BatchOutputSerializer(serializers.Serializer):
    stored = serializers.IntegerField(help_text="samples stored by this request")
    duplicate = serializers.BooleanField(help_text="the block was stored before; nothing changed")
    next_block = serializers.IntegerField()


# What a runner may report (lease_expired is the backend's own), and with which status: the
# contract's table of error kinds (apps.comparisons.blame).
FINISH_ERROR_KINDS = [*reported_kinds("infra_error"), *reported_kinds("failed")]


class FinishInputSerializer(serializers.Serializer):
    lease_token = serializers.CharField(max_length=64)
    status = serializers.ChoiceField(choices=["ok", "failed", "infra_error"])
    error_kind = serializers.ChoiceField(
        choices=FINISH_ERROR_KINDS, required=False, allow_null=True,
        help_text="with status failed: test_failure (the default) or target_unreachable (the comparison's own "
                  "endpoint); with infra_error: any other kind (default runner_fault). Who each kind blames: the "
                  "contract's table (device faults count towards quarantine, lab faults towards the runner's "
                  "breaker)")
    fingerprint = JSONObjectField(max_bytes=16384, required=False, allow_null=True)
    link = JSONObjectField(max_bytes=16384, required=False, allow_null=True)
    error = serializers.CharField(max_length=4000, required=False, allow_null=True, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        status, kind = attrs["status"], attrs.get("error_kind")
        if status == "ok" and kind:
            raise serializers.ValidationError({"error_kind": ["must be null when status is ok"]})
        if status == "failed" and kind not in (None, *reported_kinds("failed")):
            raise serializers.ValidationError(
                {"error_kind": [f"status failed takes {' or '.join(reported_kinds('failed'))}; {kind} is an "
                                "infra_error"]})
        if status == "infra_error" and kind in reported_kinds("failed"):
            raise serializers.ValidationError(
                {"error_kind": [f"{kind} goes with status failed; infra_error takes an infrastructure kind"]})
        return attrs


class FinishOutputSerializer(serializers.Serializer):
    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Run.Status.choices,
                                     help_text="queued: requeued for another attempt (an infra_error)")
    attempt = serializers.IntegerField()
    error_kind = serializers.ChoiceField(choices=Run.ErrorKind.choices, allow_null=True)


class RegisterInputSerializer(serializers.Serializer):
    name = serializers.RegexField(RUNNER_NAME_PATTERN, error_messages={"invalid": "1 to 100 of A-Z a-z 0-9 . _ -"})
    hostname = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    version = serializers.CharField(max_length=32, required=False, allow_blank=True, default="")
    drivers = serializers.ListField(child=serializers.ChoiceField(choices=DRIVERS), max_length=3, default=list)


class RegisterOutputSerializer(serializers.Serializer):
    runner_id = serializers.UUIDField()
    runner_token = serializers.CharField(help_text="`Runner <token>` from now on; shown only here")
    pool = serializers.CharField(help_text="the pool's slug")


class ArtifactStoredSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    size = serializers.IntegerField()
