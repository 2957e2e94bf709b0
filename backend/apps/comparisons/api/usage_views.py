from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import Membership
from apps.accounts.permissions import IsOrganizationMember, organization_of, role_in
from apps.core.query_params import query_of

from ..quota import quota_of
from ..usage import MONTHS_MAX, usage_by_month


class IsOrganizationOwner(IsOrganizationMember):
    message = "Only an owner of the organization may see its usage."

    def has_permission(self, request: Request, view: Any) -> bool:
        return (super().has_permission(request, view)
                and role_in(organization=organization_of(request), request=request) == Membership.Role.OWNER)


class UsageQuerySerializer(serializers.Serializer):
    months = serializers.IntegerField(
        min_value=1, max_value=MONTHS_MAX, default=12,
        help_text=f"how many months back, this one included (1…{MONTHS_MAX})",
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value", "max_string_length"),
                                     f"months: expected a whole number 1…{MONTHS_MAX}"))


class UsagePoolSerializer(serializers.Serializer):
    pool = serializers.CharField(source="pool_slug")
    pool_name = serializers.CharField()
    device_minutes = serializers.FloatField()


class UsageMonthSerializer(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM (UTC)")
    device_minutes = serializers.FloatField(help_text="every pool's device-minutes that month")
    pools = UsagePoolSerializer(many=True)


class UsageOutputSerializer(serializers.Serializer):
    monthly_quota_device_minutes = serializers.IntegerField(
        allow_null=True, help_text="new comparisons are refused once a month's device-minutes reach it; null: none")
    months = UsageMonthSerializer(many=True, help_text="newest first")


class UsageView(APIView):
    permission_classes = [IsOrganizationOwner]

    @extend_schema(parameters=[UsageQuerySerializer], responses={200: UsageOutputSerializer},
                   summary="Device-minutes per month and pool, and the monthly quota (owners)")
    def get(self, request: Request) -> Response:
        query = query_of(request, UsageQuerySerializer)
        organization = organization_of(request)
        months = usage_by_month(organization=organization, months=query["months"])
        body = {"monthly_quota_device_minutes": quota_of(organization=organization),
                "months": [{"month": f"{m.month:%Y-%m}", "device_minutes": round(m.device_minutes, 2),
                            "pools": m.pools} for m in months]}
        return Response(UsageOutputSerializer(body).data)
