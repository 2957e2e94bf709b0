"""A comparison analysed before the gate judged series time keeps its verdict: its spec named
per-request time (or no gate at all) and its analysis (engine format version 1, stored as the
engine wrote it: data/analysis-v1-mid-image-series.json) has per-request rows only. The verdict
endpoint, the results, the public report and the CLI all render that per-request verdict, and
name it as such."""

import json
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.reports.services import share_link_create
from apps.results.models import Analysis

STORED_V1 = json.loads((Path(__file__).parent / "data" / "analysis-v1-mid-image-series.json").read_text())
SPEC = {"name": "MID image series, stored in version 1", "preset": "mid-image-series", "blocks": 6,
        "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"},
                 {"label": "h3", "protocol": "h3"}]}


def stored_v1(org, *, gate: dict | None) -> Comparison:
    """A finished comparison as it was stored then: its normalized spec with the gate the old
    normalizer wrote (total_ms), or, older still, none; its one analysis, of version 1."""
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    spec = {**comparison.spec}
    if gate is None:
        del spec["gate"]
    else:
        spec["gate"] = gate
    Comparison.objects.filter(pk=comparison.pk).update(spec=spec, status=Comparison.Status.FINISHED)
    Analysis.objects.create(comparison=comparison, version=1, engine="latencylab-stats", result=STORED_V1)
    comparison.refresh_from_db()
    return comparison


@pytest.mark.django_db
@pytest.mark.parametrize("gate", [{"metric": "total_ms", "statistic": "median", "margin_pct": 5.0, "alpha": 0.01},
                                  None], ids=["gate-total_ms", "no-gate"])
def test_a_version_1_analysis_keeps_its_per_request_verdict(api, org, pool, gate):
    comparison = stored_v1(org, gate=gate)
    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert verdict["gate"]["metric"] == "total_ms"
    assert verdict["gate"]["metric_label"] == "per-request time"
    stored_rows = [c for c in STORED_V1["analysis"]["comparisons"] if c["metric"] == "total_ms"]
    assert [(v["arm"], v["network_profile"], v["outcome"], v["summary"]) for v in verdict["verdicts"]] == [
        (c["arm"], c["profile"], c["verdict"]["outcome"], c["summary"]) for c in stored_rows]
    assert verdict["outcome"] == "improvement"
    assert verdict["beside"] is None  # version 1 compared no series time to put beside it
    results = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
    assert (results["analysis_version"], results["analysis"]["version"]) == (1, 1)
    assert results["analysis"]["comparisons"] == STORED_V1["analysis"]["comparisons"]


@pytest.mark.django_db
def test_the_public_report_and_the_cli_render_the_stored_per_request_verdict(org, pool):
    comparison = stored_v1(org, gate={"metric": "total_ms", "statistic": "median", "margin_pct": 5.0,
                                      "alpha": 0.01})
    _, token = share_link_create(organization=org, comparison=comparison, created_by=None)
    report = APIClient(REMOTE_ADDR="203.0.113.77").get(f"/api/v1/public/reports/{token}").json()
    first = next(c for c in STORED_V1["analysis"]["comparisons"] if c["metric"] == "total_ms")
    assert report["verdict_line"] == f"Improvement: {first['summary']}"
    assert report["verdict"]["gate"]["metric_label"] == "per-request time"

    render = pytest.importorskip("latencylab_cli.render")
    gate = pytest.importorskip("latencylab_cli.gate")
    text = render.render_text(gate.evaluate(report["verdict"], fail_on="regression"))
    assert "gate: median per-request time (total_ms)" in text
    assert first["summary"] in text
    assert "beside" not in text
