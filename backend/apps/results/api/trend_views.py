"""Trends across comparisons (readers/trends.py): the points as JSON or CSV, and the filters' choices."""

import csv
import io
import re
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.core.query_params import query_of

from ..readers.trends import TREND_LIMIT, trend_csv_rows, trend_options, trend_points
from .trend_serializers import (
    TrendOptionsQuerySerializer,
    TrendOptionsSerializer,
    TrendQuerySerializer,
    TrendSerializer,
)


def _trend(request: Request) -> dict[str, Any]:
    return trend_points(organization=organization_of(request), **query_of(request, TrendQuerySerializer))


class TrendView(APIView):
    @extend_schema(parameters=[TrendQuerySerializer], responses={200: TrendSerializer},
                   summary=f"One metric of one arm across the comparisons of a branch (the latest {TREND_LIMIT})")
    def get(self, request: Request) -> Response:
        return Response(TrendSerializer(_trend(request)).data)


class TrendCsvView(APIView):
    @extend_schema(parameters=[TrendQuerySerializer], responses={(200, "text/csv"): str},
                   summary="The same trend as CSV, one row per point")
    def get(self, request: Request) -> HttpResponse:
        trend = _trend(request)
        buffer = io.StringIO()
        csv.writer(buffer).writerows(trend_csv_rows(trend))
        response = HttpResponse(buffer.getvalue(), content_type="text/csv")
        arm = re.sub(r"[^A-Za-z0-9._-]", "_", trend["arm"])
        response["Content-Disposition"] = f'attachment; filename="latencylab-trend-{arm}-{trend["metric"]}.csv"'
        return response


class TrendOptionsView(APIView):
    @extend_schema(parameters=[TrendOptionsQuerySerializer], responses={200: TrendOptionsSerializer},
                   summary="What the trend filters can choose from")
    def get(self, request: Request) -> Response:
        query = query_of(request, TrendOptionsQuerySerializer)
        return Response(TrendOptionsSerializer(trend_options(organization=organization_of(request), **query)).data)
