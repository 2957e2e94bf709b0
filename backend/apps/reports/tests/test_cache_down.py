"""Share links and their reports without the shared cache: with Redis unreachable (the cache
pointed at a loopback port nobody listens on, so a real client is refused) the public report,
its open count, the share-link lists and the results are served from the database, each
failed cache call counted for /metrics; none answers 500."""

import pytest
from django.conf import settings as django_settings
from prometheus_client import REGISTRY
from rest_framework.test import APIClient

from apps.reports.models import ShareLink
from apps.reports.services import share_link_create, share_link_record_open
from testing.ports import free_port


def cache_errors(use: str) -> float:
    return REGISTRY.get_sample_value("latencylab_cache_errors_total", {"use": use}) or 0.0


@pytest.fixture
def cache_down(settings):
    settings.CACHES = {"default": {**django_settings.CACHES["default"],
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}}


def share(comparison) -> tuple[ShareLink, str]:
    return share_link_create(organization=comparison.organization, comparison=comparison, created_by=None)


@pytest.mark.django_db
def test_the_public_report_is_served_and_each_open_written_at_once(finished, client_ip, cache_down):
    link, token = share(finished)
    before = cache_errors("analysis"), cache_errors("share-link-opens")
    client = APIClient(REMOTE_ADDR=client_ip)
    for opens in (1, 2):
        response = client.get(f"/api/v1/public/reports/{token}")
        assert response.status_code == 200, response.content
        assert response.json()["verdict_line"].startswith("Improvement: h2 (series time) vs https-h1")
        link.refresh_from_db()
        assert link.open_count == opens  # written to the link, none left waiting in a cache
    assert cache_errors("analysis") > before[0]
    assert cache_errors("share-link-opens") >= before[1] + 2


@pytest.mark.django_db
def test_the_lists_and_the_results_are_served_with_the_written_opens(finished, client_ip, api, cache_down):
    link, token = share(finished)
    assert APIClient(REMOTE_ADDR=client_ip).get(f"/api/v1/public/reports/{token}").status_code == 200
    [listed] = api.get(f"/api/v1/comparisons/{finished.id}/shares").json()["results"]
    assert listed["open_count"] == 1
    assert api.get("/api/v1/shares").json()["results"][0]["open_count"] == 1
    results = api.get(f"/api/v1/comparisons/{finished.id}/results")
    assert results.status_code == 200, results.content
    assert results.json()["analysis"]
    assert api.get(f"/api/v1/comparisons/{finished.id}/verdict").status_code == 200


@pytest.mark.django_db
def test_opens_counted_in_the_cache_are_written_once_when_it_comes_back(finished, settings):
    """An open counted while the cache was up and one while it was down: each written once."""
    link, _ = share(finished)
    share_link_record_open(link=link)  # cache up: the first open of the minute is written
    share_link_record_open(link=link)  # pending in the cache
    up = settings.CACHES
    settings.CACHES = {"default": {**up["default"], "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}}
    share_link_record_open(link=link)  # cache down: written at once
    settings.CACHES = up
    link.refresh_from_db()
    assert link.open_count == 2  # one written, one down; one still pending in the cache
