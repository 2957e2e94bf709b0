import gzip

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from apps.core.compression import ALREADY_COMPRESSED, GZipUncompressedMiddleware

BODY = b"latency " * 500  # compressible, and long enough for Django to bother


def answer(content_type: str):
    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse(BODY, content_type=content_type)
    return GZipUncompressedMiddleware(view)(RequestFactory().get("/", HTTP_ACCEPT_ENCODING="gzip, br"))


@pytest.mark.parametrize("content_type", ["application/json", "text/csv; charset=utf-8", "text/html; charset=utf-8",
                                          "application/x-ndjson", "application/octet-stream"])
def test_other_answers_are_gzipped(content_type: str) -> None:
    response = answer(content_type)
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == BODY


@pytest.mark.parametrize("content_type", sorted(ALREADY_COMPRESSED) + ["application/PDF", "application/gzip; x=1"])
def test_answers_compressed_already_are_sent_as_they_are(content_type: str) -> None:
    response = answer(content_type)
    assert not response.has_header("Content-Encoding")
    assert response.content == BODY


def test_it_is_the_middleware_the_project_uses(settings) -> None:
    assert "apps.core.compression.GZipUncompressedMiddleware" in settings.MIDDLEWARE
    assert "django.middleware.gzip.GZipMiddleware" not in settings.MIDDLEWARE
