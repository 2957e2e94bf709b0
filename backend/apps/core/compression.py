"""Gzip for answers that are not compressed already, and for views that send a body compressed ahead."""
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.utils.cache import patch_vary_headers

# Media types whose bytes are compressed already: gzipping them again costs the server CPU on every
# download (run artifacts are often .gz or .zip, reports' PDFs and chart images are deflated) and
# saves nothing.
ALREADY_COMPRESSED = frozenset({
    "application/gzip", "application/x-gzip", "application/zip", "application/pdf",
    "image/png", "image/jpeg", "image/webp",
})


def media_type(response: HttpResponseBase) -> str:
    return response.get("Content-Type", "").split(";", 1)[0].strip().lower()


class GZipUncompressedMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (BREACH padding, Vary, streaming), skipping ALREADY_COMPRESSED media types."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if media_type(response) in ALREADY_COMPRESSED:
            return response
        return super().process_response(request, response)


def accepts_gzip(request: HttpRequest) -> bool:
    """Whether the client takes gzip, read as Django's GZipMiddleware reads it."""
    return bool(re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


def answer(body: bytes, *, content_type: str = "application/json", gzipped: bool) -> HttpResponse:
    """A body as it is, or gzipped ahead (then marked so; the middleware leaves it alone).
    Either way it varies with Accept-Encoding."""
    response = HttpResponse(body, content_type=content_type)
    if gzipped:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding",))
    return response
