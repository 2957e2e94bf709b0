from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.actor import actor_of
from apps.accounts.permissions import organization_of
from apps.core.parsers import TextYAMLParser, YAMLParser
from apps.core.query_params import NoParameters, query_of

from ..models import Comparison
from ..presets import PRESETS
from ..selectors import comparison_estimate, comparisons_for
from ..services import comparison_cancel, comparison_create, comparison_spec_check
from ..target_warnings import target_warnings
from .filters import TAG_DESCRIPTION, ComparisonFilterSet
from .serializers import (
    ComparisonCreatedSerializer,
    ComparisonDetailSerializer,
    ComparisonSummarySerializer,
    ComparisonValidationSerializer,
    PresetSerializer,
)
from .spec_schema_views import ComparisonSpecBody


@extend_schema_view(get=extend_schema(parameters=[
    OpenApiParameter("tag.KEY", str, description=TAG_DESCRIPTION),
]))
class ComparisonListCreateView(ListAPIView):
    serializer_class = ComparisonSummarySerializer
    filterset_class = ComparisonFilterSet
    parser_classes = [JSONParser, YAMLParser, TextYAMLParser]

    def get_queryset(self) -> QuerySet[Comparison]:
        return comparisons_for(organization=organization_of(self.request)).order_by("-created_at")

    @extend_schema(
        request=ComparisonSpecBody,
        responses={201: ComparisonCreatedSerializer},
        summary="Create a comparison from a spec (JSON or YAML); `warnings` says what is accepted but probably wrong",
    )
    def post(self, request: Request) -> Response:
        comparison = comparison_create(
            organization=organization_of(request), submitted_spec=request.data, created_by=request.user
        )
        comparison = get_object_or_404(comparisons_for(organization=organization_of(request)), pk=comparison.pk)
        comparison.warnings = target_warnings(comparison.spec)  # type: ignore[attr-defined]
        return Response(ComparisonCreatedSerializer(comparison).data, status=status.HTTP_201_CREATED)


class ComparisonValidateView(APIView):
    """The builder's dry run: the checks create makes, nothing created."""

    parser_classes = [JSONParser, YAMLParser, TextYAMLParser]

    @extend_schema(
        request=ComparisonSpecBody,
        responses={200: ComparisonValidationSerializer},
        summary="Validate a spec and estimate what it books, creating nothing (400 with the field map as create; "
                "`warnings` for what is accepted but probably wrong)",
    )
    def post(self, request: Request) -> Response:
        organization = organization_of(request)
        spec = comparison_spec_check(organization=organization, submitted_spec=request.data)
        return Response({"spec": spec, "estimate": comparison_estimate(organization=organization, spec=spec),
                         "warnings": target_warnings(spec)})


class ComparisonDetailView(APIView):
    @extend_schema(responses={200: ComparisonDetailSerializer}, summary="A comparison with its status and progress")
    def get(self, request: Request, comparison_id: str) -> Response:
        comparison = get_object_or_404(comparisons_for(organization=organization_of(request)), pk=comparison_id)
        return Response(ComparisonDetailSerializer(comparison).data)


class ComparisonCancelView(APIView):
    @extend_schema(request=None, responses={200: ComparisonDetailSerializer}, summary="Cancel a comparison")
    def post(self, request: Request, comparison_id: str) -> Response:
        comparison = get_object_or_404(comparisons_for(organization=organization_of(request)), pk=comparison_id)
        comparison_cancel(comparison=comparison, actor=actor_of(request))
        comparison = get_object_or_404(comparisons_for(organization=organization_of(request)), pk=comparison_id)
        return Response(ComparisonDetailSerializer(comparison).data)


class PresetListView(APIView):
    @extend_schema(responses={200: PresetSerializer(many=True)}, summary="The built-in presets")
    def get(self, request: Request) -> Response:
        query_of(request, NoParameters)
        return Response(
            [{"name": name, "title": p["title"], "description": p["description"], "spec": p["spec"]}
             for name, p in PRESETS.items()]
        )
