from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.comparisons.api.serializers import ComparisonDetailSerializer
from apps.comparisons.selectors import comparisons_for
from apps.comparisons.url_credentials import refuse_url_credentials

from ..ingest.imports import comparison_import, parse_csv, rows_to_samples


class CSVTextParser(BaseParser):
    media_type = "text/csv"

    # The stubs want a Mapping back; a CSV import body is text, and the view expects a str.
    def parse(  # type: ignore[override]
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> str:
        return stream.read().decode("utf-8-sig")


class ImportInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    baseline_arm = serializers.CharField(max_length=64, required=False, allow_null=True, default=None)
    # Stored in the import's spec, which every member reads: a tag that is a URL carries no credentials.
    tags = serializers.DictField(child=serializers.CharField(max_length=200, validators=[refuse_url_credentials]),
                                 required=False, default=dict)
    rows = serializers.ListField(child=serializers.JSONField(), required=False,
                                 help_text="one object per request: arm, device, round, sequence, ms, bytes, "
                                 "optional dns_ms, connect_ms, tls_ms, ttfb_ms, new_connection, network_profile, error")
    csv = serializers.CharField(required=False, help_text="the same columns as CSV text, with a header line")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("rows" in attrs) == ("csv" in attrs):
            raise serializers.ValidationError({"rows": ["give either rows (JSON) or csv (text), not both"]})
        return attrs


class ImportView(APIView):
    parser_classes = [JSONParser, CSVTextParser]

    @extend_schema(request=ImportInputSerializer, responses={201: ComparisonDetailSerializer},
                   summary="Import external measurements as a comparison (JSON rows, or text/csv with ?name=)")
    def post(self, request: Request) -> Response:
        if isinstance(request.data, str):  # text/csv body; the rest comes from the query string
            params = request.query_params
            body = ImportInputSerializer(data={
                "name": params.get("name", ""), "baseline_arm": params.get("baseline_arm"),
                "tags": {k[4:]: v for k, v in params.items() if k.startswith("tag.")}, "csv": request.data})
        else:
            body = ImportInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if "csv" in data:
            rows = rows_to_samples(parse_csv(data["csv"]), first_line=2)
        else:
            rows = rows_to_samples(data["rows"], first_line=0, where="rows[{}]")
        comparison = comparison_import(organization=organization_of(request), name=data["name"],
                                       baseline_arm=data["baseline_arm"], tags=data["tags"], rows=rows)
        comparison = get_object_or_404(comparisons_for(organization=organization_of(request)), pk=comparison.pk)
        return Response(ComparisonDetailSerializer(comparison).data, status=status.HTTP_201_CREATED)
