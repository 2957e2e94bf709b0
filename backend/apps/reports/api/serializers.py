from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.comparisons.models import Comparison
from apps.results.api.serializers import ComparisonResultsSerializer, ComparisonVerdictSerializer

from ..models import ShareLink
from ..services import MAX_EXPIRY_DAYS


class ShareLinkComparisonSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class ShareLinkOutputSerializer(serializers.ModelSerializer):
    comparison = ShareLinkComparisonSerializer()
    created_by = serializers.SerializerMethodField(help_text="the username of whoever created the link")
    state = serializers.SerializerMethodField()

    class Meta:
        model = ShareLink
        fields = ["id", "prefix", "comparison", "created_by", "created_at", "expires_at", "revoked_at",
                  "last_opened_at", "open_count", "state"]
        read_only_fields = fields

    def get_created_by(self, obj: ShareLink) -> str | None:
        return obj.created_by.get_username() if obj.created_by else None

    @extend_schema_field(serializers.ChoiceField(choices=["active", "expired", "revoked"]))
    def get_state(self, obj: ShareLink) -> str:
        if obj.revoked_at is not None:
            return "revoked"
        if obj.expires_at is not None and obj.expires_at <= timezone.now():
            return "expired"
        return "active"


class ShareLinkCreatedSerializer(ShareLinkOutputSerializer):
    token = serializers.CharField(help_text="the link's secret; shown only in this answer, never again")
    url = serializers.URLField(help_text="the public report, /r/<token>: copy it now, it is shown only once")

    class Meta(ShareLinkOutputSerializer.Meta):
        fields = [*ShareLinkOutputSerializer.Meta.fields, "token", "url"]
        read_only_fields = fields


class ShareLinkInputSerializer(serializers.Serializer):
    expires_in_days = serializers.IntegerField(required=False, allow_null=True, min_value=1,
                                               max_value=MAX_EXPIRY_DAYS,
                                               help_text=f"1–{MAX_EXPIRY_DAYS}; omit both for a link that does "
                                                         "not expire")
    expires_at = serializers.DateTimeField(required=False, allow_null=True,
                                           help_text=f"between 1 hour and {MAX_EXPIRY_DAYS} days from now")


class ReportArmSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a field, though Field has .label
    protocol = serializers.CharField()
    connection = serializers.CharField()
    endpoint = serializers.CharField(allow_blank=True, help_text="without credentials or query; empty: the "
                                                                "reference target")


class ReportRunSerializer(serializers.Serializer):
    device = serializers.CharField()
    platforms = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    network_profile = serializers.CharField()
    network_profile_applied = serializers.DictField(help_text="the profile the link emulated")
    network_measured = serializers.DictField(help_text="what the runner measured of the link")
    fingerprint = serializers.DictField(help_text="the device's and runner's fingerprint")
    stand_in = serializers.CharField(allow_null=True, help_text="\"jvm\" when the device was the phone simulator's "
                                                               "JVM stand-in, not a phone; null otherwise")
    blocks = serializers.IntegerField()
    samples = serializers.IntegerField()


class ReportMethodSerializer(serializers.Serializer):
    spec = serializers.DictField(help_text="the normalized spec without header values, bodies, URL credentials "
                                           "or query strings")
    baseline_arm = serializers.CharField()
    arms = ReportArmSerializer(many=True)
    runs = ReportRunSerializer(many=True)
    sample_count = serializers.IntegerField()


class PublicReportSerializer(serializers.Serializer):
    name = serializers.CharField()
    tags = serializers.DictField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=Comparison.Status.choices)
    preset = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    generated_at = serializers.DateTimeField()
    verdict_line = serializers.CharField(help_text="the outcome and its deciding row, as previews show it")
    results = ComparisonResultsSerializer()
    verdict = ComparisonVerdictSerializer(allow_null=True, help_text="null until the comparison is finished")
    method = ReportMethodSerializer()

