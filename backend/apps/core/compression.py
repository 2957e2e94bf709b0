"""Gzip for answers that are not compressed already."""
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

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
