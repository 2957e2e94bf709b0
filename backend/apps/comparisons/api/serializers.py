from typing import Any

from django.db.models import Manager, Prefetch, QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.devices.stand_in import stand_in_of_run

from ..artifacts import run_artifacts_listing
from ..models import Arm, Comparison, Run, RunArtifact
from ..selectors import comparison_progress, run_waiting_reason, run_waiting_reasons


class ComparisonProgressSerializer(serializers.Serializer):
    runs_total = serializers.IntegerField()
    runs_done = serializers.IntegerField()
    blocks_total = serializers.IntegerField(help_text="blocks the runs are scheduled for now")
    blocks_done = serializers.IntegerField()
    percent = serializers.FloatField()
    blocks_min = serializers.IntegerField(help_text="the device time's lower bound in blocks: blocks_total, or for a "
                                          "run-until-decided comparison every run stopping at min blocks")
    blocks_max = serializers.IntegerField(help_text="the upper bound: blocks_total, or every run going to max blocks")
    seconds_per_block = serializers.FloatField(
        allow_null=True, help_text="device seconds a block has taken so far (between a run's stored blocks); null "
        "until a run has stored two")
    device_seconds_left_min = serializers.IntegerField(
        allow_null=True, help_text="device time still to come at that pace if every run stops at blocks_min (summed "
        "over devices); null when finished or not yet measured")
    device_seconds_left_max = serializers.IntegerField(
        allow_null=True, help_text="the same if every run goes to blocks_max")


class ComparisonSummarySerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    tags = serializers.DictField(child=serializers.CharField())
    preset = serializers.SerializerMethodField()

    class Meta:
        model = Comparison
        fields = ["id", "name", "preset", "status", "progress", "tags", "created_at", "finished_at"]
        read_only_fields = fields  # output only: every field is always present

    @extend_schema_field(ComparisonProgressSerializer)
    def get_progress(self, obj: Comparison) -> dict[str, Any]:
        return comparison_progress(obj)

    def get_preset(self, obj: Comparison) -> str | None:
        return obj.preset or None


class ArmOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Arm
        fields = ["label", "protocol", "connection", "endpoint"]
        read_only_fields = fields


class RunListSerializer(serializers.ListSerializer):
    """A comparison's runs in a constant number of queries: the runs with their pool and device in one,
    the devices every queued run may be waiting for in one more (run_waiting_reasons)."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        if isinstance(data, Manager | QuerySet):
            data = data.select_related("pool", "device").prefetch_related(
                Prefetch("artifacts", queryset=run_artifacts_listing()))
        runs = list(data)
        child = self.child
        if not isinstance(child, RunOutputSerializer):  # the only child this list serializer is declared for
            raise RuntimeError(f"child is {type(child).__name__}, not RunOutputSerializer")
        child.waiting_reasons = run_waiting_reasons(runs)
        return [child.to_representation(run) for run in runs]


class RunArtifactOutputSerializer(serializers.ModelSerializer):
    device = serializers.SerializerMethodField(help_text="serial of the device the attempt ran on")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = RunArtifact
        fields = ["id", "name", "content_type", "size", "attempt", "device", "created_at", "download_url"]
        read_only_fields = fields

    def get_device(self, obj: RunArtifact) -> str | None:
        return obj.device.serial if obj.device else None

    def get_download_url(self, obj: RunArtifact) -> str:
        return f"/api/v1/comparisons/{obj.run.comparison_id}/runs/{obj.run_id}/artifacts/{obj.id}"


class RunOutputSerializer(serializers.ModelSerializer):
    device = serializers.SerializerMethodField(help_text="serial of the device running or that ran it")
    device_id = serializers.SerializerMethodField()
    device_model = serializers.SerializerMethodField()
    stand_in = serializers.SerializerMethodField(help_text="\"jvm\" when the run's device was the phone simulator's "
                                                           "JVM stand-in, not a phone; null otherwise")
    waiting_for = serializers.SerializerMethodField(help_text="why a queued run has not started yet")
    error_kind = serializers.SerializerMethodField(help_text="how the latest attempt ended badly; null if it did not")
    artifacts = RunArtifactOutputSerializer(many=True, help_text="files the runner kept: logs, raw results")
    waiting_reasons: dict[Any, str | None] | None = None  # filled for a whole list by RunListSerializer

    class Meta:
        model = Run
        list_serializer_class = RunListSerializer
        fields = [
            "id", "slot", "device", "device_id", "device_model", "stand_in", "network_profile", "status", "attempt",
            "next_block", "blocks_total", "error_kind", "error", "fingerprint", "link", "started_at", "finished_at",
            "waiting_for", "artifacts",
        ]
        read_only_fields = fields

    def get_device(self, obj: Run) -> str | None:
        return obj.device.serial if obj.device else None

    def get_device_id(self, obj: Run) -> str | None:
        return str(obj.device_id) if obj.device_id else None

    def get_device_model(self, obj: Run) -> str | None:
        return obj.device.model if obj.device else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stand_in(self, obj: Run) -> str | None:
        return stand_in_of_run(obj)

    @extend_schema_field(serializers.ChoiceField(choices=Run.ErrorKind.choices, allow_null=True))
    def get_error_kind(self, obj: Run) -> str | None:
        return obj.error_kind or None

    def get_waiting_for(self, obj: Run) -> str | None:
        if self.waiting_reasons is not None and obj.pk in self.waiting_reasons:
            return self.waiting_reasons[obj.pk]
        return run_waiting_reason(obj)


class ComparisonDetailSerializer(ComparisonSummarySerializer):
    arms = ArmOutputSerializer(many=True)
    runs = RunOutputSerializer(many=True)
    spec = serializers.JSONField()
    submitted_spec = serializers.JSONField(help_text="the spec as it was sent (preset unmerged, no seed unless given): "
                                           "what re-run and edit-a-copy start from")

    class Meta(ComparisonSummarySerializer.Meta):
        fields = [*ComparisonSummarySerializer.Meta.fields,
                  "spec", "submitted_spec", "baseline_arm", "arms", "runs", "error", "started_at"]
        read_only_fields = fields


class PresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    spec = serializers.JSONField()


class ComparisonEstimateSerializer(serializers.Serializer):
    runs = serializers.IntegerField(help_text="device slots × network profiles, as the scheduler plans them")
    blocks_min = serializers.IntegerField(help_text="blocks over all runs if every run stops at its first blocks")
    blocks_max = serializers.IntegerField(help_text="blocks over all runs if every run goes to max (run until "
                                          "decided); equal to blocks_min for fixed blocks")
    requests_min = serializers.IntegerField(help_text="measured requests over all runs and arms (warm-ups excluded)")
    requests_max = serializers.IntegerField()
    device_minutes_min = serializers.FloatField(
        allow_null=True, help_text="requests_min at the pace measured in the organization's latest finished "
        "comparisons; null before one has finished")
    device_minutes_max = serializers.FloatField(allow_null=True)
    seconds_per_request = serializers.FloatField(allow_null=True, help_text="the pace applied (device seconds)")
    pace_basis = serializers.ChoiceField(choices=["same_spec", "recent"], allow_null=True,
                                         help_text="same_spec: comparisons of the same fingerprint; recent: the "
                                         "organization's latest finished ones")
    pace_comparisons = serializers.IntegerField(help_text="how many comparisons the pace is the median of")


class SpecWarningSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="the spec field's path, e.g. arms.1.endpoint")
    message = serializers.CharField()


_WARNINGS_HELP = ("what is accepted but probably wrong, e.g. an endpoint whose host name does not resolve from the "
                  "service (a private lab may resolve names the service cannot); [] when nothing")


class ComparisonValidationSerializer(serializers.Serializer):
    spec = serializers.JSONField(help_text="the normalized spec create would store (seed drawn if absent)")
    estimate = ComparisonEstimateSerializer()
    warnings = SpecWarningSerializer(many=True, help_text=_WARNINGS_HELP)


class ComparisonCreatedSerializer(ComparisonDetailSerializer):
    """The created comparison, with the warnings its spec raised (given in this answer only)."""

    warnings = SpecWarningSerializer(many=True, read_only=True, help_text=_WARNINGS_HELP)

    class Meta(ComparisonDetailSerializer.Meta):
        fields = [*ComparisonDetailSerializer.Meta.fields, "warnings"]
        read_only_fields = fields
