"""The results and verdict endpoints answer exactly what the committed OpenAPI schema
documents (components ComparisonResults and ComparisonVerdict): every section of the
analysis the dashboard reads, on comparisons that fill every kind of row, including rows
of failed requests only, first-vs-rest, delay and payload sweeps, phases, nulls and a
verdict with nothing to judge."""

import json
from itertools import product
from pathlib import Path

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.services import comparison_analyse
from apps.results.tests.openapi_schemas import schema_errors
from testing.factories import run_measured_comparison

SPEC = {"name": "shapes", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3],
                                                                     "repetitions": 4}, "blocks": 4, "seed": 5,
        "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"},
                 {"label": "h3", "protocol": "h3"}], "baseline_arm": "https-h1"}
SEED_003 = json.loads((Path(__file__).parent / "data" / "seed_unity_http_latency.json").read_text())


def finish_and_analyse(runner_api, leased: dict, comparison: Comparison) -> Comparison:
    runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                    {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    comparison_analyse(comparison_id=str(comparison.id))
    comparison.refresh_from_db()
    assert comparison.status == "finished"
    return comparison


def every_kind_of_row(runner_api, org, *, spec: dict = SPEC, ttfb: bool = True) -> Comparison:
    """New and reused connections, known server delays, response sizes with a baseline
    RTT, a few failures, and an arm (h3) whose every request fails."""
    comparison = comparison_create(organization=org, submitted_spec=spec)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    for block in range(spec["blocks"]):
        samples = []
        for seq, (arm, step) in enumerate(product(["https-h1", "h2", "h3"], range(4))):
            total = 20_000 + 1_500 * step + (4_000 if arm == "h2" else 0) + 37 * block * (step + 1)
            sample = {"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3, "repetition": block,
                      "step": step, "wall_time": 1, "t0": 0, "app_done": total, "resp_bytes": 1_000 * (step + 1),
                      "server_delay_ms": 5.0 * step, "conn_reused": step > 0, "error_class": None}
            if ttfb:
                sample.update(req_start=10, resp_first_byte=total // 2, resp_end=total - 5)
            if step == 0:
                sample.update(dns_start=0, dns_end=40, conn_start=50, tls_start=300, conn_ready=900)
            if arm == "h3" or (arm == "h2" and step == 3 and block == 1):
                sample.update(app_done=None, resp_first_byte=None, error_class="timeout")
            samples.append(sample)
        response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples", {
            "lease_token": leased["lease_token"], "attempt": 1, "batch_seq": block, "block": block,
            "baseline": {"tcp": {"n": 10, "avg_ms": 8.0, "stddev_ms": 0.5, "loss_pct": 0}}, "samples": samples},
            format="json")
        assert response.status_code == 200, response.content
    return finish_and_analyse(runner_api, leased, comparison)


@pytest.mark.django_db
def test_results_and_verdict_of_a_comparison_with_every_kind_of_row(api, org, runner_api):
    comparison = every_kind_of_row(runner_api, org)
    results = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
    assert schema_errors("ComparisonResults", results) == []
    analysis = results["analysis"]
    for section in ("descriptive", "series", "first_vs_rest", "delay_sweep", "payload_sweep", "comparisons",
                    "requests", "phases", "group_times"):
        assert analysis[section], section  # every section has rows to check
    assert any(row["n"] == 0 and row["errors"] > 0 for row in analysis["descriptive"])  # h3: failures only
    assert any(row["slow"] is not None for row in analysis["payload_sweep"])
    assert any(row["stall"] is not None and row["expected_ms"] is not None for row in analysis["payload_sweep"])
    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert [v["arm"] for v in verdict["verdicts"]] == ["h2"]
    assert verdict["outcome"] == verdict["verdicts"][0]["outcome"]
    assert verdict["outcome_reason"].startswith("the worst of 1 verdict on series_ms (series time, period 3)")
    assert verdict["beside"]["metric"] == "total_ms"  # per-request time beside the series time
    assert [v["arm"] for v in verdict["beside"]["verdicts"]] == ["h2"]


@pytest.mark.django_db
def test_a_verdict_against_a_baseline_comparison(api, org, runner_api):
    main = every_kind_of_row(runner_api, org, spec={**SPEC, "tags": {"branch": "main"}})
    pr = every_kind_of_row(runner_api, org, spec={**SPEC, "tags": {"branch": "pr"}})
    verdict = api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:main").json()
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert verdict["baseline"] == {"kind": "comparison", "comparison": str(main.id), "arm": None, "ref": "branch:main"}
    assert {v["arm"] for v in verdict["verdicts"]} == {"https-h1", "h2"}  # h3 has no successful request


@pytest.mark.django_db
def test_nothing_to_judge_is_no_data_with_its_reason(api, org, runner_api):
    """The gate is on TTFB, and no request reported a first byte."""
    comparison = every_kind_of_row(runner_api, org, spec={**SPEC, "gate": {"metric": "ttfb_ms"}}, ttfb=False)
    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert (verdict["outcome"], verdict["verdicts"]) == ("no_data", [])
    assert verdict["outcome_reason"] == ("no arm was compared with the baseline arm 'https-h1' on ttfb_ms: no block "
                                         "has measured, successful requests of both")
    assert verdict["gate"] == {"statistic": "median", "metric": "ttfb_ms", "metric_label": "per-request time to first "
                               "byte", "margin_pct": 5.0, "alpha": 0.01}
    assert verdict["beside"] is None  # only per-request time and series time stand beside each other


@pytest.mark.django_db
def test_results_of_imported_and_simple_comparisons(api, org, runner_api):
    """seeds/003's numbers imported (no periods, first-vs-rest), a plain series comparison,
    and a comparison before its analysis."""
    rows = [{"arm": client, "device": platform, "round": rnd, "sequence": seq, "ms": ms, "bytes": 0}
            for platform, clients in SEED_003["test_A"]["raw_ms"].items() for client, rounds in clients.items()
            for rnd, row in enumerate(rounds) for seq, ms in enumerate(row)]
    imported = api.post("/api/v1/imports", {"name": "seeds-003-A", "rows": rows}, format="json").json()["id"]
    comparison_analyse(comparison_id=imported)
    simple = run_measured_comparison(runner_api, org, spec={**SPEC, "arms": SPEC["arms"][:2]},
                                     speed={"https-h1": 1.0, "h2": 0.5}, seed=1, blocks=4)
    pending = comparison_create(organization=org, submitted_spec=SPEC)
    for comparison_id in (imported, simple.id, pending.id):
        results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
        assert schema_errors("ComparisonResults", results) == [], comparison_id
    for comparison_id in (imported, simple.id):
        assert schema_errors("ComparisonVerdict", api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()) == []


def test_the_strict_check_catches_a_field_the_schema_does_not_document():
    verdict = {"comparison": "6f1c2a5e-8d3b-4c1e-9a0f-2b7d5e4c3a10", "name": "x", "status": "finished",
               "url": "http://x/comparisons/6f1c2a5e-8d3b-4c1e-9a0f-2b7d5e4c3a10",
               "gate": {"statistic": "median", "metric": "total_ms", "metric_label": "per-request time",
                        "margin_pct": 5.0, "alpha": 0.01},
               "baseline": {"kind": "arm", "comparison": None, "arm": "a", "ref": None}, "verdicts": [],
               "outcome": "no_data", "outcome_reason": "nothing", "history": [], "partial": False, "beside": None,
               "blocks_planned": None, "blocks_stored": None}
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert schema_errors("ComparisonVerdict", {**verdict, "advisory": True})
    assert schema_errors("ComparisonVerdict", {**verdict, "outcome": "pass"})
    assert schema_errors("ComparisonVerdict", {k: v for k, v in verdict.items() if k != "outcome_reason"})
