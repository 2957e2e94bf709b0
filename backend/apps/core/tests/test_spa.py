import gzip

import pytest
from django.test import Client


@pytest.fixture
def dist(tmp_path, settings):
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>LatencyLab</title>")
    (tmp_path / "assets" / "plotly-abc123.js").write_text("var plotly = 1;\n" * 5000)
    (tmp_path / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path.parent / "secret.txt").write_text("not served")
    settings.FRONTEND_DIST = tmp_path
    return tmp_path


def test_scripts_are_gzipped_for_browsers_that_accept_it_and_cached_for_good(dist) -> None:
    response = Client().get("/assets/plotly-abc123.js", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["Content-Type"].startswith(("text/javascript", "application/javascript"))
    body = gzip.decompress(response.content)
    assert body == (dist / "assets" / "plotly-abc123.js").read_bytes()
    assert len(response.content) < len(body) / 10


def test_without_gzip_the_file_comes_plain(dist) -> None:
    response = Client().get("/assets/plotly-abc123.js")
    assert response.status_code == 200
    assert "Content-Encoding" not in response
    assert b"".join(response.streaming_content) == (dist / "assets" / "plotly-abc123.js").read_bytes()


def test_files_outside_assets_are_not_marked_immutable(dist) -> None:
    response = Client().get("/favicon.svg", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert "immutable" not in response.get("Cache-Control", "")


def test_client_routes_get_the_app_shell_and_nothing_outside_dist_is_served(dist) -> None:
    response = Client().get("/comparisons/123")
    assert b"LatencyLab" in b"".join(response.streaming_content)
    outside = Client().get("/../secret.txt")
    assert b"not served" not in (outside.content if not outside.streaming else b"".join(outside.streaming_content))
