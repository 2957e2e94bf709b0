"""A comparison's measurements as users read them: chart aggregates, the CI verdict and
the raw samples export. Routed under /comparisons/{id}/ beside the comparisons app's own
endpoints, but owned here because they read what this app stores."""

import uuid

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.comparisons.selectors import comparison_rows_for
from apps.comparisons.spec import blocks_range
from apps.core.compression import accepts_gzip, answer

from ..readers.export import stream_csv, stream_json_lines
from ..readers.results_json import results_json, results_json_gzip
from ..selectors import verdict_history
from ..storage.retention import samples_available_check
from ..verdicts.ci_verdict import verdict_for
from .serializers import (
    ComparisonResultsSerializer,
    ComparisonVerdictSerializer,
    SamplesRemovedErrorSerializer,
    VerdictHistorySerializer,
)


class ComparisonResultsView(APIView):
    @extend_schema(responses={200: ComparisonResultsSerializer}, summary="Aggregates shaped for the charts")
    def get(self, request: Request, comparison_id: str) -> HttpResponse:
        comparison = get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)
        # Rendered by results_json, which splices in the stored analysis's JSON text as it is, and
        # gzipped here from the analysis's compressed form kept beside it (the gzip middleware leaves
        # an answer with a Content-Encoding alone).
        if accepts_gzip(request):
            return answer(results_json_gzip(comparison=comparison), gzipped=True)
        return answer(results_json(comparison=comparison), gzipped=False)


class ComparisonSamplesExportView(APIView):
    """Raw samples, one row per request, with the derived durations in ms."""

    @extend_schema(responses={(200, "text/csv"): str, (200, "application/x-ndjson"): str,
                              410: SamplesRemovedErrorSerializer},
                   summary="Export raw samples (CSV, or JSON lines)")
    def get(self, request: Request, comparison_id: str, fmt: str) -> StreamingHttpResponse:
        # The path's pattern (36 of [0-9a-f-], for the ".csv" suffix) admits strings no UUID spells.
        try:
            uuid.UUID(comparison_id)
        except ValueError as exc:
            raise Http404 from exc
        comparison = get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)
        samples_available_check(comparison=comparison)  # before the stream starts: a 410, not a cut-off body
        if fmt == "csv":
            response = StreamingHttpResponse(stream_csv(comparison), content_type="text/csv")
        else:
            response = StreamingHttpResponse(stream_json_lines(comparison), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="latencylab-{comparison.id}.{fmt}"'
        return response


class ComparisonVerdictView(APIView):
    """The CI gate: per arm × device class × profile verdicts on the gate's metric, with
    effect sizes and CIs, and the overall outcome."""

    @extend_schema(
        parameters=[OpenApiParameter("baseline", str, description="comparison id, branch:NAME or tag:KEY=VALUE; "
                                     "default: the comparison's own baseline arm")],
        responses={200: ComparisonVerdictSerializer}, summary="Verdict of a finished comparison (CI gate)",
    )
    def get(self, request: Request, comparison_id: str) -> Response:
        comparison = get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)
        base_url = request.build_absolute_uri("/").rstrip("/")
        return Response(verdict_for(comparison, baseline_ref=request.query_params.get("baseline") or None,
                                    base_url=base_url))


class ComparisonVerdictHistoryView(APIView):
    """Run until decided: the verdict at each look so far, while the comparison runs and after."""

    @extend_schema(responses={200: VerdictHistorySerializer}, summary="Verdict history of a run-until-decided "
                   "comparison (the looks so far)")
    def get(self, request: Request, comparison_id: str) -> Response:
        comparison = get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)
        bounds = blocks_range(comparison.spec)
        return Response({"comparison": str(comparison.id), "status": comparison.status,
                         "blocks_min": bounds[0] if bounds else None, "blocks_max": bounds[1] if bounds else None,
                         "history": verdict_history(comparison=comparison)})
