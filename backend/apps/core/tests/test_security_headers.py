"""Every response carries the Content-Security-Policy and refuses framing; the pages Django
renders itself (the API docs, the admin) work under it: no inline script, their files served."""

import re

import pytest

from apps.core.csp import policy_header
from testing.operators import operator_client


def directives(response) -> dict[str, list[str]]:
    parts = [p.split() for p in response["Content-Security-Policy"].split(";")]
    return {p[0]: p[1:] for p in parts if p}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/auth/csrf", "/api/docs/", "/admin/login/", "/comparisons/1"])
def test_pages_and_api_answers_carry_the_policy_and_deny_framing(client, path, settings, tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><div id=root></div><script type=module src=/a.js></script>")
    settings.FRONTEND_DIST = str(tmp_path)
    response = client.get(path)
    assert response.status_code in (200, 204)
    policy = directives(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_header_is_built_from_the_settings(settings):
    assert policy_header({"default-src": ["'self'"], "img-src": ["'self'", "data:"]}) == \
        "default-src 'self'; img-src 'self' data:"


def inline_scripts(html: str) -> list[str]:
    return [m for m in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S) if m.strip()]


@pytest.mark.django_db
def test_the_api_docs_run_no_inline_script_and_their_files_are_served(client):
    page = client.get("/api/docs/").content.decode()
    assert inline_scripts(page) == []
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', page)
    assert any("swagger-ui" in s for s in sources)
    for source in sources:
        assert source.startswith("/"), f"{source} is not on our origin"
        assert client.get(source).status_code == 200, source


@pytest.mark.django_db
def test_the_admin_login_page_runs_no_inline_script_and_its_styles_are_served(client):
    page = client.get("/admin/login/").content.decode()
    assert inline_scripts(page) == []
    stylesheets = re.findall(r'<link[^>]+href="(/static/[^"]+\.css)"', page)
    assert stylesheets
    for sheet in stylesheets:
        response = client.get(sheet)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/css")


@pytest.mark.django_db
def test_static_files_stay_inside_the_apps_static_directories(client):
    assert client.get("/static/admin/css/../../../../settings/base.py").status_code in (400, 404)
    assert client.get("/static/no/such/file.css").status_code == 404


@pytest.mark.django_db
def test_the_admin_pages_an_operator_uses_run_no_inline_script(org, runner_api, queued_run):
    ops = operator_client()
    device = queued_run.pool.devices.get()
    for path in ("/admin/", "/admin/accounts/organization/", f"/admin/accounts/organization/{org.pk}/change/",
                 "/admin/devices/device/", f"/admin/devices/device/{device.pk}/change/",
                 "/admin/comparisons/comparison/", f"/admin/comparisons/comparison/{queued_run.comparison_id}/change/",
                 "/admin/comparisons/usagequota/add/"):
        page = ops.get(path)
        assert page.status_code == 200, path
        assert inline_scripts(page.content.decode()) == [], path
