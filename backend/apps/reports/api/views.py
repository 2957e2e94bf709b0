"""Share links of a comparison (create, list, revoke), every link of the organization, and
the signed-in report downloads (HTML, PDF) for API and CLI users without a share link."""

from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.actor import actor_of
from apps.accounts.models import Membership
from apps.accounts.permissions import ADMIN_ROLES, organization_of, role_in
from apps.comparisons.models import Comparison
from apps.comparisons.selectors import comparison_rows_for

from ..document import report_filename
from ..models import ShareLink
from ..rendering import report_html_cached, report_pdf_cached
from ..selectors import share_links_for, share_links_of_comparison, share_links_with_pending_opens
from ..services import share_link_create, share_link_revoke
from .public_views import html_download, pdf_download
from .serializers import ShareLinkCreatedSerializer, ShareLinkInputSerializer, ShareLinkOutputSerializer


def _comparison(request: Request, comparison_id: str) -> Comparison:
    return get_object_or_404(comparison_rows_for(organization=organization_of(request)), pk=comparison_id)


def public_report_url(request: Request, token: str) -> str:
    return request.build_absolute_uri(f"/r/{token}")


class ShareLinkListView(ListAPIView):
    serializer_class = ShareLinkOutputSerializer

    def paginate_queryset(self, queryset: QuerySet[Any] | Sequence[Any]) -> list[Any] | None:
        page = super().paginate_queryset(queryset)
        return None if page is None else share_links_with_pending_opens(page)


class ComparisonShareListCreateView(ShareLinkListView):

    def get_queryset(self) -> QuerySet[ShareLink]:
        comparison = _comparison(self.request, self.kwargs["comparison_id"])
        return share_links_of_comparison(organization=organization_of(self.request), comparison=comparison)

    @extend_schema(summary="A comparison's share links: who created each, when it was last opened")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=ShareLinkInputSerializer, responses={201: ShareLinkCreatedSerializer},
                   summary="Create a share link (its URL is shown once)")
    def post(self, request: Request, comparison_id: str) -> Response:
        organization = organization_of(request)
        comparison = _comparison(request, comparison_id)
        if role_in(organization=organization, request=request) not in (*ADMIN_ROLES, Membership.Role.MEMBER):
            raise PermissionDenied("Viewers cannot share comparisons; ask a member, admin or owner.")
        data = ShareLinkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        link, token = share_link_create(
            organization=organization, comparison=comparison,
            created_by=request.user if request.user.is_authenticated else None,
            expires_in_days=data.validated_data.get("expires_in_days"),
            expires_at=data.validated_data.get("expires_at"), actor=actor_of(request))
        link = share_links_for(organization=organization).get(pk=link.pk)
        body = {**ShareLinkOutputSerializer(link).data, "token": token, "url": public_report_url(request, token)}
        return Response(body, status=status.HTTP_201_CREATED)


class ShareRevokeView(APIView):
    @extend_schema(request=None, responses={200: ShareLinkOutputSerializer},
                   summary="Revoke a share link (its creator, or an owner or admin)")
    def post(self, request: Request, comparison_id: str, share_id: str) -> Response:
        organization = organization_of(request)
        comparison = _comparison(request, comparison_id)
        link = share_links_of_comparison(organization=organization, comparison=comparison).filter(pk=share_id).first()
        if link is None:
            raise Http404
        creator = request.user.is_authenticated and link.created_by_id == request.user.pk
        if not creator and role_in(organization=organization, request=request) not in ADMIN_ROLES:
            raise PermissionDenied("Only the link's creator, or an owner or admin, may revoke it.")
        share_link_revoke(link=link, actor=actor_of(request))
        return Response(ShareLinkOutputSerializer(link).data)


class ShareListView(ShareLinkListView):

    def get_queryset(self) -> QuerySet[ShareLink]:
        return share_links_for(organization=organization_of(self.request))

    @extend_schema(summary="Every share link of the organization, newest first")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class ComparisonReportHtmlView(APIView):
    @extend_schema(responses={(200, "text/html"): OpenApiTypes.STR,
                              503: OpenApiResponse(description="the frontend is not built")},
                   summary="The comparison's report as one self-contained HTML file (opens offline)")
    def get(self, request: Request, comparison_id: str) -> HttpResponse:
        comparison = _comparison(request, comparison_id)
        return html_download(report_html_cached(scope=str(comparison.pk), comparison=comparison),
                             report_filename(comparison, "html"))


class ComparisonReportPdfView(APIView):
    @extend_schema(responses={(200, "application/pdf"): OpenApiTypes.BINARY,
                              503: OpenApiResponse(description="no Chromium, or the frontend is not built")},
                   summary="The comparison's report as PDF (A4)")
    def get(self, request: Request, comparison_id: str) -> HttpResponse:
        comparison = _comparison(request, comparison_id)
        return pdf_download(report_pdf_cached(scope=str(comparison.pk), comparison=comparison),
                            report_filename(comparison, "pdf"))
