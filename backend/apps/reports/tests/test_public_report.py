"""The public report of a share link: no authentication, rendered from the stored analysis
(never the samples), nothing secret in it, 404 once revoked or expired, rate-limited, cached,
with its preview card and OpenGraph tags."""

import datetime as dt
import gzip
import io
import json

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from PIL import Image
from rest_framework.test import APIClient

from apps.accounts.models import Secret
from apps.accounts.services import secret_create
from apps.comparisons.services import comparison_create
from apps.reports.models import ShareLink
from apps.reports.selectors import share_links_with_pending_opens
from apps.reports.services import share_link_create, share_link_revoke
from apps.results.models import Sample
from apps.results.tests.openapi_schemas import schema_errors

from .conftest import fresh_ip

SECRET_VALUE = "Bearer sk-live-0123456789abcdef"
PLAIN_HEADER_VALUE = "plain-customer-key-5678"
SECRET_SPEC = {
    "name": "with secrets",
    "workload": {"kind": "requests", "repetitions": 1, "warmup": 0, "requests": [
        {"path": "/bytes/30?api_key=query-secret-42", "headers": {"Authorization": "{{secret.API_TOKEN}}",
                                                                  "X-Customer-Key": PLAIN_HEADER_VALUE}},
        {"path": "/bytes/10", "method": "POST", "body": "password=body-secret-31"},
    ]},
    "arms": [{"label": "a", "protocol": "h2", "endpoint": "https://example.com/api?k=endpoint-secret"},
             {"label": "b", "protocol": "h1"}],
    "blocks": 1,
}


def public(client_ip: str) -> APIClient:
    return APIClient(REMOTE_ADDR=client_ip)


def share(comparison, **kwargs) -> tuple[ShareLink, str]:
    return share_link_create(organization=comparison.organization, comparison=comparison, created_by=None, **kwargs)


@pytest.mark.django_db
def test_the_report_is_served_without_a_session_from_the_stored_analysis(finished, client_ip):
    link, token = share(finished)
    assert Sample.objects.filter(comparison=finished).exists()
    with CaptureQueriesContext(connection) as queries:
        response = public(client_ip).get(f"/api/v1/public/reports/{token}")
    assert response.status_code == 200, response.content
    sample_table = f'"{Sample._meta.db_table}"'  # quoted: results_sampleremoval is another table
    assert not [q["sql"] for q in queries.captured_queries if sample_table in q["sql"]]
    body = response.json()
    assert schema_errors("PublicReport", body) == []
    assert body["name"] == finished.name
    assert body["tags"] == {"branch": "main"}
    assert body["status"] == "finished"
    assert body["verdict"]["outcome"] == "improvement"
    assert body["verdict_line"].startswith("Improvement: h2 (series time) vs https-h1")
    [row] = body["verdict"]["verdicts"]
    assert row["cliffs_delta"] < -0.474
    assert row["ratio"] < 0.6
    assert body["results"]["analysis_version"] == 1
    assert body["results"]["groups"]
    method = body["method"]
    assert method["sample_count"] == 10 * 2 * 3
    assert [run["samples"] for run in method["runs"]] == [60]
    assert method["runs"][0]["network_profile"]
    assert {arm["label"] for arm in method["arms"]} == {"https-h1", "h2"}
    link.refresh_from_db()
    assert link.open_count == 1
    assert link.last_opened_at is not None



@pytest.mark.django_db
def test_opens_are_written_at_most_once_a_minute_and_listed_at_once(finished, client_ip, api):
    link, token = share(finished)
    client = public(client_ip)
    for _ in range(3):
        assert client.get(f"/api/v1/public/reports/{token}").status_code == 200
    link.refresh_from_db()
    assert link.open_count == 1  # the first open of the minute was written; two are pending
    [listed] = api.get(f"/api/v1/comparisons/{finished.id}/shares").json()["results"]
    assert listed["open_count"] == 3
    assert api.get("/api/v1/shares").json()["results"][0]["open_count"] == 3
@pytest.mark.django_db
def test_no_secret_reaches_the_public_document(org, pool, client_ip):
    secret_create(organization=org, name="API_TOKEN", value=SECRET_VALUE)
    comparison = comparison_create(organization=org, submitted_spec=SECRET_SPEC)
    # Stored before specs refused credentials in URLs (apps.comparisons.url_credentials): such
    # a comparison keeps its endpoint's user:password@, which the report must not show.
    legacy = "https://user:pw-in-url@example.com/api?k=endpoint-secret"
    comparison.spec["arms"][0]["endpoint"] = legacy
    comparison.save(update_fields=["spec"])
    comparison.arms.filter(label="a").update(endpoint=legacy)
    _, token = share(comparison)
    response = public(client_ip).get(f"/api/v1/public/reports/{token}")
    assert response.status_code == 200, response.content
    text = response.content.decode()
    sealed = bytes(Secret.objects.get().sealed_value)
    for leaked in (SECRET_VALUE, "sk-live", PLAIN_HEADER_VALUE, "query-secret-42", "body-secret-31", "pw-in-url",
                   "endpoint-secret", sealed.hex(), json.dumps(sealed.decode("latin-1"))[1:-1][:24]):
        assert leaked not in text, leaked
    request = response.json()["method"]["spec"]["workload"]["requests"][0]
    assert request["headers"]["authorization"].startswith("{{secret.API_TOKEN}}")
    assert response.json()["method"]["arms"][0]["endpoint"] == "https://example.com/api?[redacted]"


@pytest.mark.django_db
def test_revoked_expired_and_unknown_links_answer_404(finished, client_ip):
    client = public(client_ip)
    revoked, revoked_token = share(finished)
    assert client.get(f"/api/v1/public/reports/{revoked_token}").status_code == 200  # cached now
    share_link_revoke(link=revoked)
    expired, expired_token = share(finished, expires_in_days=1)
    ShareLink.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    for token in (revoked_token, expired_token, "lls_" + "x" * 43):
        for suffix in ("", "/card.png", "/report.html", "/report.pdf"):
            response = client.get(f"/api/v1/public/reports/{token}{suffix}")
            assert response.status_code == 404, (token, suffix)
            assert "no longer valid" in response.json()["detail"]
        page = client.get(f"/r/{token}")
        assert page.status_code in (404, 503)
        assert b"og:title" not in page.content


@pytest.mark.django_db
def test_the_token_reaches_nothing_else(finished, client_ip):
    _, token = share(finished)
    client = public(client_ip)
    assert client.get(f"/api/v1/comparisons/{finished.id}").status_code in (401, 403)
    assert client.get(f"/api/v1/comparisons/{finished.id}/report.html").status_code in (401, 403)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get(f"/api/v1/comparisons/{finished.id}").status_code in (401, 403)
    assert client.get("/api/v1/shares").status_code in (401, 403)


@pytest.mark.django_db
def test_public_endpoints_are_rate_limited_per_ip(finished, client_ip):
    other_ip_address = fresh_ip()
    _, token = share(finished)
    with override_settings(PUBLIC_REPORT_RATE="3/minute"):
        client = public(client_ip)
        statuses = [client.get(f"/api/v1/public/reports/{token}").status_code for _ in range(3)]
        limited = client.get(f"/api/v1/public/reports/{token}/card.png")
        other_ip = public(other_ip_address).get(f"/api/v1/public/reports/{token}")
    assert statuses == [200, 200, 200]
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert other_ip.status_code == 200


@pytest.mark.django_db
def test_the_rendered_report_is_cached_and_revocation_still_wins(finished, client_ip):
    _, token = share(finished)
    client = public(client_ip)
    first = client.get(f"/api/v1/public/reports/{token}").json()
    with CaptureQueriesContext(connection) as queries:
        second = client.get(f"/api/v1/public/reports/{token}").json()
    assert second == first
    # Served from the cache: the stored analysis's aggregates are not read again.
    assert not [q["sql"] for q in queries.captured_queries if '"results_analysis"."result"' in q["sql"]]


@pytest.mark.django_db
def test_the_card_is_a_1200_by_630_png(finished, client_ip):
    _, token = share(finished)
    response = public(client_ip).get(f"/api/v1/public/reports/{token}/card.png")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    assert image.size == (1200, 630)
    # Not blank: the title, the verdict and the bars are drawn in many colours.
    assert len(image.convert("RGB").getcolors(maxcolors=1_000_000) or []) > 20


@pytest.mark.django_db
def test_the_link_page_carries_opengraph_tags(finished, client_ip, tmp_path, settings):
    (tmp_path / "index.html").write_text("<!doctype html><html><head><title>LatencyLab</title></head>"
                                         "<body><div id=\"root\"></div></body></html>")
    settings.FRONTEND_DIST = tmp_path
    _, token = share(finished)
    page = public(client_ip).get(f"/r/{token}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<meta property="og:title" content="{finished.name} · LatencyLab" />' in html
    assert f'content="http://testserver/api/v1/public/reports/{token}/card.png"' in html
    assert '<meta name="twitter:card" content="summary_large_image" />' in html
    assert 'property="og:description" content="Improvement: h2 (series time) vs https-h1' in html
    assert html.index("og:title") < html.index("</head>")
    gone = public(client_ip).get("/r/lls_unknown")
    assert gone.status_code == 404
    assert b'<div id="root">' in gone.content


@pytest.mark.django_db
def test_the_report_travels_gzipped_kept_rendered_and_counts_each_open(finished, client_ip):
    link, token = share(finished)
    client = public(client_ip)
    plain = client.get(f"/api/v1/public/reports/{token}")
    packed = client.get(f"/api/v1/public/reports/{token}", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert gzip.decompress(packed.content) == plain.content
    assert len(packed.content) * 3 < len(plain.content)
    assert schema_errors("PublicReport", json.loads(plain.content)) == []
    # Kept as sent: the next answers are the same bytes, and every open still counts.
    assert client.get(f"/api/v1/public/reports/{token}", HTTP_ACCEPT_ENCODING="gzip").content == packed.content
    assert [listed.open_count for listed in share_links_with_pending_opens([ShareLink.objects.get(pk=link.pk)])] == [3]
