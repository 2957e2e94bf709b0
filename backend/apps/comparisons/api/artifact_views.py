"""A run's artifacts for the people who own the comparison: listed without their bytes,
downloaded one at a time. Another organization's ids answer 404."""

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of

from ..artifacts import run_artifacts_listing, served_content_type
from ..models import Run, RunArtifact
from ..selectors import comparison_rows_for
from .serializers import RunArtifactOutputSerializer


def _run_of(request: Request, comparison_id: str, run_id: str) -> Run:
    comparison = get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)
    return get_object_or_404(Run.objects.filter(comparison=comparison), pk=run_id)


class RunArtifactListView(ListAPIView):
    serializer_class = RunArtifactOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[RunArtifact]:
        run = _run_of(self.request, self.kwargs["comparison_id"], self.kwargs["run_id"])
        return run_artifacts_listing().filter(run=run).select_related("run")

    @extend_schema(summary="A run's artifacts (fastlane logs, raw result documents), without their bytes")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class RunArtifactDownloadView(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
                   summary="Download one artifact (always as an attachment)")
    def get(self, request: Request, comparison_id: str, run_id: str, artifact_id: str) -> HttpResponse:
        run = _run_of(request, comparison_id, run_id)
        artifact = RunArtifact.objects.filter(run=run, pk=artifact_id).first()
        if artifact is None:
            raise Http404
        response = HttpResponse(bytes(artifact.data), content_type=served_content_type(artifact))
        response["Content-Disposition"] = f'attachment; filename="{artifact.name}"'
        # Bytes a runner sent are never rendered or sniffed as a page of this origin.
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        return response
