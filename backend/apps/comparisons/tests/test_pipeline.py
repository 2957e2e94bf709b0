"""The asynchronous path with a real Celery worker on the real Redis broker: create →
plan (task) → runner protocol → finish → analyse (task) → finished with chart data."""

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app as celery_app
from testing.factories import make_sample
from testing.waiting import wait_for


@pytest.mark.django_db(transaction=True)
def test_comparison_flows_through_celery_tasks(api, runner_api):
    from apps.comparisons.models import Comparison, Run

    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", {
            "name": "pipeline", "preset": "mid-image-series",
            # Sequential: the series time is the sum of the requests' (the preset's parallel 4 would span them).
            "workload": {"kind": "series", "periods": [3], "repetitions": 2, "concurrency": "sequential"},
            "blocks": 1, "seed": 3,
        }, format="json").json()
        assert wait_for(lambda: Run.objects.filter(comparison_id=created["id"]).exists()), "plan task did not run"
        leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 5},
                                 format="json").json()["runs"][0]
        samples = [make_sample(arm, 0, seq, repetition=rep, step=step)
                   for seq, (arm, rep, step) in enumerate((a, r, s) for r in (0, 1) for a in ("https-h1", "h2")
                                                          for s in range(3))]
        for s in samples:
            s["app_done"] = 2000 if s["arm"] == "https-h1" else 1000
        runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                        {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                         "samples": samples}, format="json")
        runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                        {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
        assert wait_for(lambda: Comparison.objects.get(pk=created["id"]).status == "finished"), "analysis did not run"
    results = api.get(f"/api/v1/comparisons/{created['id']}/results").json()
    group = results["groups"][0]
    assert group["periods"] == [3]
    assert group["arms"]["https-h1"]["avg_ms"] == [6.0]  # 3 requests × 2 ms
    assert group["arms"]["h2"]["avg_ms"] == [3.0]
    assert group["arms"]["h2"]["gain_pct"] == [100.0]  # twice as fast as the baseline
    assert group["arms"]["h2"]["throughput_bps"] == [round(3 * 106941 / 0.003, 1)]
