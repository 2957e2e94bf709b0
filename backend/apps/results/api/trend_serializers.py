"""Trends (GET /api/v1/trends, /trends/options, /trends.csv) and the dashboard's home
(GET /api/v1/home): query parameters and response shapes."""

import datetime as dt
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from rest_framework import serializers

from apps.comparisons.api.serializers import ComparisonProgressSerializer
from apps.comparisons.models import Comparison
from apps.devices.models import Device

from ..readers.trends import METRICS, ORDERS, PLATFORMS, STATISTICS


def _choice(name: str, choices: tuple[str, ...] | list[str], **kwargs: Any) -> serializers.ChoiceField:
    allowed = ", ".join(choices)
    return serializers.ChoiceField(
        choices=list(choices), error_messages={"invalid_choice": f"{name}: {{input}} is not one of {allowed}"},
        **kwargs)


class TrendQuerySerializer(serializers.Serializer):
    metric = _choice("metric", METRICS, default="total_ms")
    statistic = _choice("statistic", tuple(STATISTICS), default="median")
    arm = serializers.CharField(max_length=64, help_text="the arm's label, e.g. h2",
                                error_messages={"required": "arm: required, the label of an arm (see /trends/options)"})
    branch = serializers.CharField(max_length=200, required=False, help_text="tags.branch of the comparisons; "
                                   "every comparison when absent")
    device_model = serializers.CharField(max_length=128, required=False, help_text="the device's model as the "
                                         "Devices page shows it, e.g. Pixel 8")
    platform = _choice("platform", PLATFORMS, required=False)
    profile = serializers.CharField(max_length=64, required=False, help_text="network profile name, e.g. lte")
    order = _choice("order", ORDERS, default="time", help_text="time: oldest first; commit: the comparisons of one "
                    "tags.commit together, commits in the order they were first measured")
    since = serializers.CharField(required=False, help_text="ISO 8601 date or date-time: comparisons created then "
                                  "or later")

    def validate_since(self, value: str) -> dt.datetime:
        moment = parse_datetime(value)
        if moment is None and (day := parse_date(value)) is not None:
            moment = dt.datetime.combine(day, dt.time.min)
        if moment is None:
            raise serializers.ValidationError(f"since: {value!r} is not an ISO 8601 date (2026-01-31) or date-time "
                                              "(2026-01-31T12:00:00Z)")
        return moment if timezone.is_aware(moment) else timezone.make_aware(moment, dt.UTC)


class TrendOptionsQuerySerializer(serializers.Serializer):
    branch = serializers.CharField(max_length=200, required=False,
                                   help_text="narrow the arms, devices and profiles to this branch's comparisons")


class TrendPointSerializer(serializers.Serializer):
    comparison_id = serializers.UUIDField()
    comparison_name = serializers.CharField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    branch = serializers.CharField(allow_null=True)
    commit = serializers.CharField(allow_null=True)
    version = serializers.CharField(allow_null=True)
    tags = serializers.DictField(child=serializers.CharField())
    device = serializers.CharField(help_text="the device's serial (or label) in the analysis")
    device_model = serializers.CharField()
    platform = serializers.CharField(allow_null=True)
    stand_in = serializers.CharField(allow_null=True, help_text="\"jvm\" when the device was the phone simulator's "
                                                               "JVM stand-in, not a phone; null otherwise")
    profile = serializers.CharField()
    value = serializers.FloatField(help_text="the statistic of the metric, in ms, over every period of the run")
    ci95 = serializers.ListField(child=serializers.FloatField(), allow_null=True,
                                 help_text="95 % bootstrap CI of the median; null for other statistics")
    n = serializers.IntegerField(help_text="measured requests without error")
    failed_requests = serializers.IntegerField(help_text="measured requests that failed")
    baseline_arm = serializers.CharField()
    verdict = serializers.ChoiceField(
        choices=["regression", "improvement", "equivalent", "inconclusive", "baseline"], allow_null=True,
        help_text="the arm against this comparison's baseline arm on this metric, device and profile; 'baseline' when "
        "the arm is the baseline arm; null when not compared")
    verdict_summary = serializers.CharField(allow_null=True)
    change_pct = serializers.FloatField(allow_null=True, help_text="median change against the baseline arm")
    change_ci95_pct = serializers.ListField(child=serializers.FloatField(), allow_null=True)


class TrendSerializer(serializers.Serializer):
    metric = serializers.CharField()
    statistic = serializers.CharField()
    unit = serializers.CharField()
    arm = serializers.CharField()
    branch = serializers.CharField(allow_null=True)
    device_model = serializers.CharField(allow_null=True)
    platform = serializers.CharField(allow_null=True)
    profile = serializers.CharField(allow_null=True)
    order = serializers.CharField()
    limit = serializers.IntegerField(help_text="at most this many comparisons, the latest")
    truncated = serializers.BooleanField(help_text="older comparisons were left out")
    points = TrendPointSerializer(many=True)


class TrendDeviceModelSerializer(serializers.Serializer):
    platform = serializers.CharField()
    model = serializers.CharField()


class TrendOptionsSerializer(serializers.Serializer):
    branch = serializers.CharField(allow_null=True)
    branches = serializers.ListField(child=serializers.CharField())
    arms = serializers.ListField(child=serializers.CharField())
    baseline_arms = serializers.ListField(child=serializers.CharField())
    device_models = TrendDeviceModelSerializer(many=True)
    profiles = serializers.ListField(child=serializers.CharField())
    platforms = serializers.ListField(child=serializers.CharField())
    metrics = serializers.ListField(child=serializers.CharField())
    statistics = serializers.ListField(child=serializers.CharField())
    orders = serializers.ListField(child=serializers.CharField())
    comparisons = serializers.IntegerField(help_text="analysed comparisons (of the branch)")


class HomeSparklineSeriesSerializer(serializers.Serializer):
    arm = serializers.CharField()
    values = serializers.ListField(child=serializers.FloatField(allow_null=True))


class HomeSparklineSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="periods: each arm's median per period "
                                   "(x holds the periods); arms: each arm's median over the run (one value each)")
    metric = serializers.CharField()
    statistic = serializers.CharField()
    unit = serializers.CharField()
    device = serializers.CharField(help_text="the device the values are of (the analysis's first)")
    profile = serializers.CharField()
    x = serializers.ListField(child=serializers.IntegerField())
    series = HomeSparklineSeriesSerializer(many=True)


class HomeComparisonSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    preset = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=Comparison.Status.choices)
    tags = serializers.DictField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    progress = ComparisonProgressSerializer()


class HomeRecentComparisonSerializer(HomeComparisonSerializer):
    gate_metric = serializers.CharField()
    headline_verdict = serializers.ChoiceField(
        choices=["regression", "inconclusive", "improvement", "equivalent", "no_data"], allow_null=True,
        help_text="the worst verdict of the arms on the gate's metric; null until finished")
    sparkline = HomeSparklineSerializer(allow_null=True)


class HomeFarmStateSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=Device.State.choices)
    count = serializers.IntegerField()


class HomeFarmPlatformSerializer(serializers.Serializer):
    platform = serializers.ChoiceField(choices=Device.Platform.choices)
    total = serializers.IntegerField()
    states = HomeFarmStateSerializer(many=True)


class HomeFarmSerializer(serializers.Serializer):
    devices = serializers.IntegerField()
    platforms = HomeFarmPlatformSerializer(many=True)


class HomeSerializer(serializers.Serializer):
    recent = HomeRecentComparisonSerializer(many=True)
    in_flight = HomeComparisonSerializer(many=True, help_text="queued, running or analysing, newest first")
    farm = HomeFarmSerializer()
