from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.devices.selectors import pools_visible_to

from ..readers.aa import aa_report


class AAComparisonOutcomesSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    created_at = serializers.DateTimeField()
    metric = serializers.CharField()
    outcomes = serializers.ListField(child=serializers.CharField())


class AAReportSerializer(serializers.Serializer):
    pool = serializers.CharField()
    comparisons = serializers.IntegerField(help_text="finished A/A comparisons in this pool")
    verdicts = serializers.IntegerField(help_text="verdicts on the gate metric over those comparisons")
    false_positives = serializers.IntegerField(help_text="regression + improvement verdicts (false by construction)")
    false_positive_rate = serializers.FloatField(allow_null=True)
    false_positive_rate_ci95 = serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2,
                                                     allow_null=True, help_text="Wilson score interval")
    regression = serializers.IntegerField()
    improvement = serializers.IntegerField()
    equivalent = serializers.IntegerField()
    inconclusive = serializers.IntegerField()
    latest = AAComparisonOutcomesSerializer(many=True, help_text="the 20 newest A/A comparisons")


class PoolAAReportView(APIView):
    @extend_schema(responses={200: AAReportSerializer},
                   summary="Empirical false-positive rate of the gate from this pool's A/A comparisons")
    def get(self, request: Request, slug: str) -> Response:
        pool = get_object_or_404(pools_visible_to(organization=organization_of(request)), slug=slug)
        return Response(AAReportSerializer(aa_report(organization=organization_of(request), pool=pool)).data)
