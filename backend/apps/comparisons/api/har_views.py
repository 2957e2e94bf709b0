"""POST /api/v1/har-import: a HAR file → a `requests` workload preview (apps.comparisons.har).
Nothing is saved: the user reviews the preview and submits it in a spec."""

import json
from collections.abc import Mapping
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.accounts.selectors import secret_names_of
from apps.core.errors import PayloadTooLarge

from ..har import MAX_HAR_BYTES, check_secret_map, har_preview


class RawHarParser(BaseParser):
    """The HAR as the request body (application/json or the .har file as it is), read up
    to its size bound: a larger file is a 413 before anything is parsed."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        data = stream.read(MAX_HAR_BYTES + 1) if stream is not None else b""
        if len(data) > MAX_HAR_BYTES:
            raise PayloadTooLarge(f"HAR: at most {MAX_HAR_BYTES} bytes; export fewer requests")
        try:
            return json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise serializers.ValidationError({"log": [f"Not a HAR file: not JSON ({e})."]}) from None


class HarDroppedSerializer(serializers.Serializer):
    entry = serializers.IntegerField(help_text="index of the entry in the HAR's log.entries")
    header = serializers.CharField()
    reason = serializers.CharField()


class HarPreviewSerializer(serializers.Serializer):
    workload = serializers.JSONField(help_text="a `requests` workload, valid as it is in a spec")
    origin = serializers.CharField(help_text="the recording's main origin: its requests became paths")
    dropped = HarDroppedSerializer(many=True, help_text="headers not copied (credentials)")
    concurrency_groups = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="indexes into workload.requests that overlapped in the recording")


def _secret_map(request: Request) -> dict[str, str]:
    """The `secret_map` query parameter, checked, naming only secrets the organization has."""
    raw = request.query_params.get("secret_map")
    if not raw:
        return {}
    try:
        given = json.loads(raw)
    except json.JSONDecodeError:
        raise serializers.ValidationError({"secret_map": ['JSON: {"Authorization": "API_TOKEN"}.']}) from None
    secret_map = check_secret_map(given)
    known = secret_names_of(organization_id=organization_of(request).pk)
    unknown = {header: [f"No secret named {name} in this organization: create it first (POST /api/v1/secrets)."]
               for header, name in given.items() if name not in known}
    if unknown:
        raise serializers.ValidationError({"secret_map": unknown})
    return secret_map


class HarImportView(APIView):
    parser_classes = [RawHarParser]

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        parameters=[
            OpenApiParameter("origin", str, description="the main server (scheme://host[:port]); default: the "
                                                        "first request's"),
            OpenApiParameter("repetitions", int, description="1–500, default 10"),
            OpenApiParameter("secret_map", str, description='JSON {header: secret name}, e.g. '
                             '{"Authorization": "API_TOKEN"}: those headers become {{secret.API_TOKEN}} instead of '
                             'being dropped; each secret must exist in the organization'),
        ],
        responses={200: HarPreviewSerializer},
        summary="Preview the requests workload a HAR file replays (nothing is saved)",
    )
    def post(self, request: Request) -> Response:
        if int(request.META.get("CONTENT_LENGTH") or 0) > MAX_HAR_BYTES:
            raise PayloadTooLarge(f"HAR: at most {MAX_HAR_BYTES} bytes; export fewer requests")
        try:
            repetitions = int(request.query_params.get("repetitions", 10))
        except ValueError:
            raise serializers.ValidationError({"repetitions": ["An integer 1–500."]}) from None
        if not 1 <= repetitions <= 500:
            raise serializers.ValidationError({"repetitions": ["An integer 1–500."]})
        origin = request.query_params.get("origin")
        secret_map = _secret_map(request)
        preview = har_preview(request.data, origin=origin, repetitions=repetitions, secret_map=secret_map)
        return Response(HarPreviewSerializer(preview).data)
