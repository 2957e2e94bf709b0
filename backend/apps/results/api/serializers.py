"""Output shapes of the results endpoints (the charts' aggregates)."""

from rest_framework import serializers


class RequestStatsSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    # A declared field, which DRF's metaclass moves into _declared_fields (Serializer.errors is untouched at runtime);
    # the stubs see it as overriding the property.
    errors = serializers.IntegerField()  # type: ignore[assignment]
    median_ms = serializers.FloatField(allow_null=True)
    p90_ms = serializers.FloatField(allow_null=True)
    p95_ms = serializers.FloatField(allow_null=True)


class ArmSeriesSerializer(serializers.Serializer):
    avg_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    median_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    throughput_bps = serializers.ListField(child=serializers.FloatField(allow_null=True))
    gain_pct = serializers.ListField(child=serializers.FloatField(allow_null=True))
    n = serializers.ListField(child=serializers.IntegerField())
    series_ms = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))


class ResultGroupSerializer(serializers.Serializer):
    device = serializers.CharField()
    network_profile = serializers.CharField()
    periods = serializers.ListField(child=serializers.IntegerField())
    arms = serializers.DictField(child=ArmSeriesSerializer())
    requests = serializers.DictField(child=RequestStatsSerializer())


class ComparisonResultsSerializer(serializers.Serializer):
    comparison = serializers.UUIDField()
    status = serializers.CharField()
    baseline_arm = serializers.CharField()
    arms = serializers.ListField(child=serializers.CharField())
    analysis_version = serializers.IntegerField(allow_null=True)
    groups = ResultGroupSerializer(many=True)
    analysis = serializers.JSONField(
        required=False, help_text="the statistics engine's full output: descriptive, series, first_vs_rest, "
        "delay_sweep, payload_sweep, requests and the arm comparisons with their verdicts")
