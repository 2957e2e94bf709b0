"""The offline HTML and the PDF: the frontend's standalone bundle inlined with the report
data, printed by headless Chromium. They need the built frontend (npm run build) and Chromium;
without them the endpoints answer 503, which is tested with an empty dist."""

import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from apps.reports.pdf import chromium_path
from apps.reports.services import share_link_create

BUNDLE = Path(django_settings.FRONTEND_DIST) / "standalone" / "report.js"
needs_bundle = pytest.mark.skipif(not BUNDLE.is_file(), reason="the frontend is not built (npm run build)")


def share_token(comparison) -> str:
    return share_link_create(organization=comparison.organization, comparison=comparison, created_by=None)[1]


@pytest.mark.django_db
def test_without_the_built_frontend_the_html_is_a_503_saying_so(finished, client_ip, tmp_path, settings, api):
    settings.FRONTEND_DIST = tmp_path
    token = share_token(finished)
    response = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.html")
    assert response.status_code == 503
    assert "frontend is not built" in response.json()["detail"]
    assert api.get(f"/api/v1/comparisons/{finished.id}/report.pdf").status_code == 503


@pytest.mark.django_db
def test_a_missing_chromium_is_a_503(finished, api, settings):
    settings.LATENCYLAB_CHROMIUM = "/nonexistent/chromium"
    if not BUNDLE.is_file():
        pytest.skip("the frontend is not built (npm run build)")
    response = api.get(f"/api/v1/comparisons/{finished.id}/report.pdf")
    assert response.status_code == 503
    assert "Chromium" in response.json()["detail"]


@needs_bundle
@pytest.mark.django_db
def test_the_html_inlines_data_and_code_and_loads_nothing(finished, client_ip, api):
    token = share_token(finished)
    public = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.html")
    signed_in = api.get(f"/api/v1/comparisons/{finished.id}/report.html")
    for response in (public, signed_in):
        assert response.status_code == 200
        assert response["Content-Disposition"].startswith("attachment;")
        html = response.content.decode()
        assert "window.__LATENCYLAB_REPORT__" in html
        assert finished.name in html
        assert not re.search(r"<script[^>]*\ssrc=", html, re.IGNORECASE)
        assert not re.search(r"<link[^>]*\shref=", html, re.IGNORECASE)
        # Only the report's own <script> elements end: nothing inlined closes one early.
        assert html.lower().count("</script") == 2


@needs_bundle
@pytest.mark.skipif(chromium_path() is None and shutil.which("chromium") is None, reason="no Chromium")
@pytest.mark.django_db
def test_the_pdf_is_printed_by_chromium(finished, client_ip):
    token = share_token(finished)
    response = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.pdf")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    assert len(response.content) > 10_000
