"""The offline HTML and the PDF: the frontend's standalone bundle inlined with the report
data, printed by headless Chromium. The tests with the real bundle need the built frontend
(npm run build; `make test` builds it after the backend suite, and the share-links e2e test
checks the real file offline and its PDF); the others use a small stand-in bundle with the
real Chromium, so escaping and printing are checked on every run. Without a bundle the
endpoints answer 503."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from apps.reports import standalone
from apps.reports.pdf import chromium_path
from apps.reports.services import share_link_create
from apps.reports.standalone import PRINT_WIDTH_PX

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


MINIMAL_BUNDLE = """(function () {
  var report = window.__LATENCYLAB_REPORT__;
  var heading = document.createElement('h1');
  heading.textContent = 'Report: ' + report.name + ' / ' + report.verdict_line.split(':')[0];
  document.getElementById('root').appendChild(heading);
  var trap = "</script><script>document.title = 'escaped badly'</script>";
})();
"""


@pytest.fixture
def minimal_dist(tmp_path, settings):
    """A stand-in for the built bundle: the page's own script draws the report's name, and it
    carries a </script> in a string that must not end its element."""
    (tmp_path / "standalone").mkdir()
    (tmp_path / "standalone" / "report.js").write_text(MINIMAL_BUNDLE)
    (tmp_path / "standalone" / "report.css").write_text("h1 { font-size: 40px; }")
    settings.FRONTEND_DIST = tmp_path
    return tmp_path


@pytest.mark.django_db
def test_inlined_code_and_data_cannot_end_their_script_elements(finished, client_ip, minimal_dist):
    finished.name = "</script><script>alert(1)</script> & <!-- x"
    finished.save(update_fields=["name"])
    token = share_token(finished)
    html = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.html").content.decode()
    assert html.lower().count("</script") == 2
    assert "<script>alert(1)" not in html
    assert "<style>h1 { font-size: 40px; }</style>" in html


@pytest.mark.skipif(chromium_path() is None or shutil.which("pdftotext") is None,
                    reason="needs Chromium and poppler-utils (infra/bin/bootstrap.sh installs both)")
@pytest.mark.django_db
def test_chromium_prints_what_the_inlined_script_drew(finished, client_ip, minimal_dist, tmp_path):
    token = share_token(finished)
    response = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.pdf")
    assert response.status_code == 200, response.content[:300]
    assert response.content.startswith(b"%PDF")
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(response.content)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    assert f"Report: {finished.name} / Improvement" in " ".join(text.split())


@pytest.mark.skipif(chromium_path() is None or shutil.which("pdftotext") is None,
                    reason="needs Chromium and poppler-utils (infra/bin/bootstrap.sh installs both)")
@pytest.mark.django_db
def test_the_page_is_laid_out_as_wide_as_the_printed_page_when_the_charts_draw(finished, client_ip, minimal_dist,
                                                                                 tmp_path):
    """Plotly sizes each chart to its container when the page loads, and printing does not draw it
    again: the window must be as wide as A4 less its margins, or the charts are cut at the edge."""
    (minimal_dist / "standalone" / "report.js").write_text(
        "document.getElementById('root').textContent = 'Drawn at ' + document.documentElement.clientWidth + ' px';")
    token = share_token(finished)
    response = APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}/report.pdf")
    assert response.status_code == 200, response.content[:300]
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(response.content)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    assert PRINT_WIDTH_PX == 703  # 186 mm at 96 px per inch
    assert f"Drawn at {PRINT_WIDTH_PX} px" in " ".join(text.split())


def test_the_cached_renderings_are_made_anew_when_the_print_styles_change(minimal_dist, monkeypatch) -> None:
    before = standalone.bundle_version()
    assert standalone.bundle_version() == before
    monkeypatch.setattr(standalone, "PRINT_CSS", standalone.PRINT_CSS + "\n.report { color: black; }")
    assert standalone.bundle_version() != before
