"""The comparison spec's JSON Schema: served to editors and clients, and the documented
request body of POST /api/v1/comparisons (apps.comparisons.spec_schema generates both
from the validator)."""

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..spec_schema import ROOT, comparison_spec_schema, openapi_components


class ComparisonSpecBody(serializers.Serializer):
    """Documentation only: the body is a spec (docs/api.md, "The spec"), validated by apps.comparisons.spec."""


class ComparisonSpecBodyExtension(OpenApiSerializerExtension):
    """Documents ComparisonSpecBody as the generated schema: its definitions become
    components (Protocol, ConnectionPolicy, SpecArm, SeriesWorkload, …) and the body the
    `ComparisonSpecRequest` component."""

    target_class = ComparisonSpecBody

    def get_name(self, auto_schema: Any, direction: str) -> str:
        return ROOT

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        components = openapi_components()
        root = components.pop(ROOT)
        for name, schema in components.items():
            auto_schema.registry.register_on_missing(
                ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema))
        return root


class ComparisonSpecSchemaView(APIView):
    """Public, like the OpenAPI schema: an editor (e.g. a YAML language server) fetches it
    without credentials."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiResponse(
        response=OpenApiTypes.OBJECT,
        description="A JSON Schema (draft 2020-12) of what POST /api/v1/comparisons accepts; the same schema is "
                    "that operation's request body (component ComparisonSpecRequest).")},
                   summary="The comparison spec's JSON Schema")
    def get(self, request: Request) -> Response:
        return Response(comparison_spec_schema())
