"""The public face of a share link, without authentication: the report document, its card
image, the offline HTML and the PDF. The token is the only key; a revoked, expired or
unknown one answers 404 before anything is read from a cache."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.core.compression import accepts_gzip, answer

from ..document import report_filename
from ..models import ShareLink
from ..og import app_shell_with_meta
from ..rendering import report_card_cached, report_document_json_cached, report_html_cached, report_pdf_cached
from ..selectors import share_link_live
from ..services import share_link_record_open
from .serializers import PublicReportSerializer
from .throttling import PublicReportThrottle

INVALID = "This share link is no longer valid: it was revoked, it expired, or it never existed."
NOT_FOUND = OpenApiResponse(description=INVALID)


def live_link(token: str) -> ShareLink:
    link = share_link_live(token=token)
    if link is None:
        raise NotFound(INVALID)
    return link


class PublicView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicReportThrottle]


class PublicReportView(PublicView):
    @extend_schema(responses={200: PublicReportSerializer, 404: NOT_FOUND}, auth=[],
                   summary="A shared comparison's report (no authentication)")
    def get(self, request: Request, token: str) -> HttpResponse:
        link = live_link(token)
        gzipped = accepts_gzip(request)
        body = report_document_json_cached(scope=str(link.pk), comparison=link.comparison, gzipped=gzipped)
        share_link_record_open(link=link)
        return answer(body, gzipped=gzipped)


class PublicReportCardView(PublicView):
    @extend_schema(responses={(200, "image/png"): OpenApiTypes.BINARY, 404: NOT_FOUND}, auth=[],
                   summary="The report's 1200×630 preview image (OpenGraph / Twitter card)")
    def get(self, request: Request, token: str) -> HttpResponse:
        link = live_link(token)
        response = HttpResponse(report_card_cached(scope=str(link.pk), comparison=link.comparison),
                                content_type="image/png")
        response["Cache-Control"] = "public, max-age=300"
        return response


def html_download(html: str, filename: str) -> HttpResponse:
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def pdf_download(pdf: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class PublicReportHtmlView(PublicView):
    @extend_schema(responses={(200, "text/html"): OpenApiTypes.STR, 404: NOT_FOUND,
                              503: OpenApiResponse(description="the frontend is not built")}, auth=[],
                   summary="The report as one self-contained HTML file that opens offline")
    def get(self, request: Request, token: str) -> HttpResponse:
        link = live_link(token)
        html = report_html_cached(scope=str(link.pk), comparison=link.comparison)
        return html_download(html, report_filename(link.comparison, "html"))


class PublicReportPdfView(PublicView):
    @extend_schema(responses={(200, "application/pdf"): OpenApiTypes.BINARY, 404: NOT_FOUND,
                              503: OpenApiResponse(description="no Chromium, or the frontend is not built")},
                   auth=[], summary="The report as PDF (A4)")
    def get(self, request: Request, token: str) -> HttpResponse:
        link = live_link(token)
        pdf = report_pdf_cached(scope=str(link.pk), comparison=link.comparison)
        return pdf_download(pdf, report_filename(link.comparison, "pdf"))


class ShareLinkPageView(PublicView):
    """/r/<token> (outside /api/): the app shell with the report's preview meta tags."""

    schema = None  # a page, not an API endpoint

    def get(self, request: Request, token: str) -> HttpResponse:
        return app_shell_with_meta(request, share_link_live(token=token), token)
