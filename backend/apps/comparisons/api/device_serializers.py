from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.devices.api.serializers import DeviceOutputSerializer, DeviceStateChangeOutputSerializer
from apps.devices.models import Device

from ..models import Run, RunAttempt


class DeviceRecentRunSerializer(serializers.ModelSerializer):
    """One attempt of a run on this device."""

    run_id = serializers.UUIDField(source="run.id")
    comparison_id = serializers.UUIDField(source="run.comparison.id")
    comparison_name = serializers.CharField(source="run.comparison.name")
    network_profile = serializers.CharField(source="run.network_profile")
    attempt = serializers.IntegerField(source="number")
    status = serializers.SerializerMethodField(help_text="how this attempt ended; running while it runs")
    error_kind = serializers.SerializerMethodField()
    finished_at = serializers.DateTimeField(source="ended_at", allow_null=True)

    class Meta:
        model = RunAttempt
        fields = ["run_id", "comparison_id", "comparison_name", "network_profile", "attempt", "status", "error_kind",
                  "error", "started_at", "finished_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=[*RunAttempt.Outcome.values, "cancelled"]))
    def get_status(self, attempt: RunAttempt) -> str:
        # A comparison cancelled under a lease ends the run, not the attempt's record.
        if attempt.outcome == RunAttempt.Outcome.RUNNING and attempt.run.status == Run.Status.CANCELLED:
            return "cancelled"
        return attempt.outcome

    @extend_schema_field(serializers.ChoiceField(choices=Run.ErrorKind.choices, allow_null=True))
    def get_error_kind(self, attempt: RunAttempt) -> str | None:
        return attempt.error_kind or None


class DeviceWithRunsOutputSerializer(DeviceOutputSerializer):
    recent_runs = DeviceRecentRunSerializer(many=True, source="recent_attempts",
                                            help_text="this organization's latest attempts on the device, newest first")

    class Meta(DeviceOutputSerializer.Meta):
        fields = [*DeviceOutputSerializer.Meta.fields, "recent_runs"]
        read_only_fields = fields


class DeviceInfraFailureSerializer(serializers.Serializer):
    kind = serializers.CharField()
    error = serializers.CharField()
    run = serializers.CharField(help_text="comparison id / run id")
    at = serializers.DateTimeField()


class DeviceDetailOutputSerializer(DeviceWithRunsOutputSerializer):
    state_changes = DeviceStateChangeOutputSerializer(many=True, source="history",
                                                      help_text="the latest 100 changes, newest first")
    infra_failures = serializers.SerializerMethodField(
        help_text="the consecutive infrastructure failures since the device's last good run")

    class Meta(DeviceWithRunsOutputSerializer.Meta):
        fields = [*DeviceWithRunsOutputSerializer.Meta.fields, "state_changes", "infra_failures"]
        read_only_fields = fields

    @extend_schema_field(DeviceInfraFailureSerializer(many=True))
    def get_infra_failures(self, device: Device) -> list[dict[str, Any]]:
        return DeviceInfraFailureSerializer(device.infra_failures, many=True).data  # type: ignore[return-value]
