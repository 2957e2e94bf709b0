"""`gate.metric` follows the workload: each kind has its allowed metrics and a default (the
first), filled into the normalized spec; a metric the kind does not allow is a 400 naming
gate.metric and the allowed values, and nothing is written."""

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.spec import ALL_GATE_METRICS, GATE_METRICS, analysis_metrics, gate_metric_of, normalize_spec
from apps.results.analysis.metrics import METRICS

LIST = {"kind": "requests", "requests": [{"path": "/a"}, {"path": "/b"}], "concurrency": {"parallel": 2}}


@pytest.mark.parametrize("submitted, default", [
    ({"preset": "mid-image-series"}, "series_ms"),
    ({"preset": "mid-image-series", "workload": {"concurrency": "sequential"}}, "series_ms"),
    ({"name": "list", "workload": LIST, "arms": [{"label": "a", "protocol": "h1"}]}, "page_load_ms"),
    ({"preset": "api-and-download"}, "total_ms"),
    ({"preset": "payload-sweep"}, "total_ms"),
    ({"preset": "os-added-latency"}, "total_ms"),
    ({"preset": "mid-image-series", "gate": {"margin_pct": 10}}, "series_ms"),  # a gate without a metric
])
def test_each_workload_kind_gets_its_default_metric(submitted, default):
    spec = normalize_spec(submitted)
    assert spec["gate"]["metric"] == default
    assert GATE_METRICS[spec["workload"]["kind"]][0] == default
    assert gate_metric_of(spec) == default
    assert default in analysis_metrics(spec)


def test_a_metric_the_kind_allows_is_kept_and_its_group_metric_is_still_analysed():
    spec = normalize_spec({"preset": "mid-image-series", "gate": {"metric": "total_ms"}})
    assert spec["gate"] == {"metric": "total_ms", "statistic": "median", "margin_pct": 5.0, "alpha": 0.01}
    assert analysis_metrics(spec) == ("total_ms", "ttfb_ms", "series_ms")
    assert analysis_metrics(normalize_spec({"preset": "api-and-download"})) == ("total_ms", "ttfb_ms")


def test_every_metric_a_spec_may_name_is_one_the_engine_compares():
    # The spec sits below the results app and cannot import the engine's names: they must agree.
    assert set(ALL_GATE_METRICS) == set(METRICS)
    assert {metric for allowed in GATE_METRICS.values() for metric in allowed} == set(METRICS)


def test_a_spec_stored_without_a_gate_was_judged_per_request():
    """Specs stored before the gate depended on the workload say nothing or total_ms: per request."""
    assert gate_metric_of({"workload": {"kind": "series"}}) == "total_ms"
    assert gate_metric_of({"workload": {"kind": "series"}, "gate": {"margin_pct": 5.0}}) == "total_ms"


@pytest.mark.django_db
@pytest.mark.parametrize("spec, allowed", [
    ({"preset": "api-and-download", "gate": {"metric": "series_ms"}}, "allowed: total_ms, ttfb_ms (default total_ms)"),
    ({"preset": "mid-image-series", "gate": {"metric": "page_load_ms"}},
     "allowed: series_ms, total_ms, ttfb_ms (default series_ms)"),
    ({"name": "list", "workload": LIST, "arms": [{"label": "a", "protocol": "h1"}], "gate": {"metric": "series_ms"}},
     "allowed: page_load_ms, total_ms, ttfb_ms (default page_load_ms)"),
    ({"preset": "mid-image-series", "gate": {"metric": "p99_ms"}},
     "allowed: total_ms and ttfb_ms (every workload), series_ms (series, the default), page_load_ms"),
])
def test_a_metric_the_kind_does_not_allow_is_a_400_naming_gate_metric(api, pool, spec, allowed):
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    [message] = response.json()["gate"]["metric"]
    assert allowed in message
    assert Comparison.objects.count() == 0


@pytest.mark.django_db
def test_the_created_comparison_records_the_default(api, pool):
    response = api.post("/api/v1/comparisons", {"preset": "mid-image-series", "blocks": 2}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["spec"]["gate"]["metric"] == "series_ms"
