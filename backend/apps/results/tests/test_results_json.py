"""GET results splices the stored analysis's JSON text (cached by row) into the document
instead of rendering it as data: the same document as results_for_charts, every time."""

import gzip
import json

import pytest
from django.core.cache import cache

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.results.models import Analysis
from apps.results.selectors import results_for_charts
from apps.results.storage.analysis_cache import analysis_cache_key
from testing.factories import run_measured_comparison

SPEC = {"name": "splice", "preset": "mid-image-series",
        "workload": {"kind": "series", "periods": [3], "repetitions": 10}, "blocks": 10, "seed": 9}


def fetched(api, comparison: Comparison) -> dict:
    response = api.get(f"/api/v1/comparisons/{comparison.id}/results")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content, object_pairs_hook=members_once)


def members_once(pairs: list[tuple[str, object]]) -> dict:
    """An object whose members are each named once (a splice could name one twice)."""
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names)), names
    return dict(pairs)


@pytest.mark.django_db
def test_the_spliced_document_is_the_document(api, org, runner_api):
    analysed = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.6}, seed=4)
    pending = comparison_create(organization=org, submitted_spec={**SPEC, "name": "not yet run"})
    for comparison in (analysed, pending, analysed):  # the second read of `analysed` is from the cache
        assert fetched(api, comparison) == results_for_charts(comparison=comparison)
    body = fetched(api, analysed)
    assert body["analysis_version"] == 1
    assert body["groups"]
    assert body["analysis"]["comparisons"]
    assert (body["status"], body["partial"]) == ("finished", False)
    # What is not the analysis is read afresh: a cancelled comparison's results say they are partial.
    Comparison.objects.filter(pk=analysed.pk).update(status=Comparison.Status.CANCELLED)
    analysed.refresh_from_db()
    cancelled = fetched(api, analysed)
    assert (cancelled["status"], cancelled["partial"], cancelled["blocks_stored"]) == ("cancelled", True, 10)
    assert cancelled == results_for_charts(comparison=analysed)


@pytest.mark.django_db
def test_results_travel_gzipped_to_a_client_that_accepts_it(api, org, runner_api):
    comparison = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.6}, seed=6)
    plain = api.get(f"/api/v1/comparisons/{comparison.id}/results")
    packed = api.get(f"/api/v1/comparisons/{comparison.id}/results", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert json.loads(gzip.decompress(packed.content)) == json.loads(plain.content)
    assert gzip.decompress(packed.content) == plain.content  # the same bytes, byte for byte
    assert len(packed.content) * 3 < len(plain.content)
    # The analysis was compressed once and kept: the next answer is made from it, and is the same.
    latest = Analysis.objects.get(comparison=comparison)
    assert cache.get(analysis_cache_key("results:analysis-json-deflated", comparison, latest.version,
                                        latest.created_at)) is not None
    again = api.get(f"/api/v1/comparisons/{comparison.id}/results", HTTP_ACCEPT_ENCODING="gzip")
    assert again.content == packed.content


@pytest.mark.django_db
def test_results_without_an_analysis_travel_gzipped_too(api, org, runner_api):
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "name": "queued"})
    plain = api.get(f"/api/v1/comparisons/{comparison.id}/results")
    packed = api.get(f"/api/v1/comparisons/{comparison.id}/results", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert json.loads(plain.content)["analysis_version"] is None


@pytest.mark.django_db
def test_a_new_analysis_is_served_at_once(api, org, runner_api):
    comparison = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.6}, seed=5)
    first = fetched(api, comparison)
    latest = Analysis.objects.get(comparison=comparison)
    Analysis.objects.create(comparison=comparison, version=2, engine=latest.engine,
                            result={**latest.result, "arms": ["h2", "https-h1"], "groups": []})
    second = fetched(api, comparison)
    assert (second["analysis_version"], second["arms"], second["groups"]) == (2, ["h2", "https-h1"], [])
    assert second["analysis"] == first["analysis"]
    assert second == results_for_charts(comparison=comparison)
