"""The CI gate over the API: verdicts inside a comparison and against a baseline
comparison found by branch, on samples uploaded through the runner protocol."""

import numpy as np
import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.services import comparison_analyse

SPEC = {"name": "gate", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3], "repetitions": 10},
        "blocks": 10, "seed": 9}


def run_comparison(runner_api, org, *, speed: dict[str, float], tags: dict[str, str], seed: int) -> Comparison:
    """Create, lease, upload 10 blocks with lognormal request times, finish, analyse."""
    rng = np.random.default_rng(seed)
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "tags": tags})
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    for block in range(10):
        samples, seq = [], 0
        for arm, factor in speed.items():
            for rep_step in range(3):
                total = int(20_000 * factor * rng.lognormal(0, 0.1))
                samples.append({"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3,
                                "repetition": block, "step": rep_step, "wall_time": 1, "t0": 0, "req_start": 10,
                                "resp_first_byte": total // 2, "app_done": total, "resp_bytes": 1000,
                                "conn_reused": True, "error_class": None})
                seq += 1
        response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                                   {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": block,
                                    "block": block, "samples": samples}, format="json")
        assert response.status_code == 200, response.content
    runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                    {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    comparison_analyse(comparison_id=str(comparison.id))
    comparison.refresh_from_db()
    assert comparison.status == "finished"
    return comparison


@pytest.mark.django_db
def test_verdict_inside_a_comparison_finds_the_faster_arm(api, org, runner_api):
    comparison = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 0.5}, tags={}, seed=1)
    body = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert body["outcome"] == "improvement" and body["baseline"]["arm"] == "https-h1"
    [verdict] = body["verdicts"]
    assert verdict["arm"] == "h2" and verdict["outcome"] == "improvement"
    assert 0.45 < verdict["ratio"] < 0.55 and verdict["ci95"][1] < 0.95
    assert verdict["cliffs_delta"] < -0.474 and verdict["p_adjusted"] < 0.01
    assert verdict["summary"].startswith("h2 vs https-h1, host-lab-1 / none: median −")


@pytest.mark.django_db
def test_verdict_against_the_latest_run_on_main(api, org, runner_api):
    main = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 1.0}, tags={"branch": "main"}, seed=2)
    pr = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 1.3}, tags={"branch": "feature"}, seed=3)
    body = api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:main").json()
    assert body["baseline"] == {"kind": "comparison", "comparison": str(main.id), "arm": None, "ref": "branch:main"}
    by_arm = {v["arm"]: v for v in body["verdicts"]}
    assert by_arm["h2"]["outcome"] == "regression" and by_arm["h2"]["baseline_comparison"] == str(main.id)
    assert by_arm["https-h1"]["outcome"] in ("equivalent", "inconclusive")
    assert body["outcome"] == "regression"
    assert "vs h2 (branch:main)" in by_arm["h2"]["summary"]
    # A branch with no finished run of the same spec, a malformed reference, an unfinished comparison.
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:nope").status_code == 404
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=bogus").status_code == 400
    Comparison.objects.filter(pk=pr.pk).update(status="running")
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict").status_code == 409
