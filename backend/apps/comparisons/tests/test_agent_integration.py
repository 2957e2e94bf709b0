"""The real runner agent (device-runner package) against a live backend, the real
reference target server over TLS and a real Celery worker: one comparison per seed
preset, scaled down, goes from spec to analysed results with real measurements."""

import os
import threading

import pytest
from celery.contrib.testing.worker import start_worker

from apps.comparisons.models import Comparison
from config.celery import app as celery_app
from testing.host_agent import host_agent, reference_of, runner_client
from testing.waiting import wait_for

SMALL = {
    "mid-image-series": {"workload": {"kind": "series", "periods": [3, 6], "repetitions": 2}},
    "os-added-latency": {"workload": {"kind": "delay_sweep", "start_ms": 0, "stop_ms": 50, "step_ms": 25,
                                      "trials": 2}},
    "api-and-download": {"workload": {"kind": "mixed", "rounds": 2, "calls": 3},
                         "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"}],
                         "baseline_arm": "https-h1"},
    "payload-sweep": {"workload": {"kind": "payload_sweep", "sizes": [1000, 35000, 300000], "repetitions": 2}},
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("preset", list(SMALL))
def test_seed_preset_runs_end_to_end_through_the_agent(preset, live_server, api, pool, target):
    client = runner_client(live_server.url, pool, "it-runner")
    agent = host_agent(client, "it-runner", target=reference_of(target))
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", {"name": preset, "preset": preset, "blocks": 2, "seed": 5,
                                                   **SMALL[preset]}, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 1}, daemon=True)
        thread.start()
        finished = wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 120)
        agent.drain()
        thread.join(30)
    comparison = Comparison.objects.get(pk=comparison_id)
    assert finished, (comparison.status, comparison.error,
                      list(comparison.runs.values("status", "error")))
    assert comparison.status == "finished", (comparison.status, comparison.error,
                                             list(comparison.runs.values("status", "error")))
    detail = api.get(f"/api/v1/comparisons/{comparison_id}").json()
    progress = detail["progress"]
    assert progress["seconds_per_block"] > 0  # measured between the run's two stored blocks
    assert {k: v for k, v in progress.items() if k != "seconds_per_block"} == {
        "runs_total": 1, "runs_done": 1, "blocks_total": 2, "blocks_done": 2, "percent": 100.0, "blocks_min": 2,
        "blocks_max": 2, "device_seconds_left_min": None, "device_seconds_left_max": None}  # finished: none left
    run = detail["runs"][0]
    assert run["fingerprint"]["platform"] == "host"
    assert run["fingerprint"]["clock_source"]
    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    requests = results["groups"][0]["requests"]
    for arm in results["arms"]:
        assert requests[arm]["n"] > 0, requests
        assert requests[arm]["errors"] == 0, requests
        assert requests[arm]["median_ms"] > 0
    # The numpy phase medians agree with PostgreSQL's percentile_cont on real samples.
    from apps.results.tests.oracles import phase_breakdown

    assert results["analysis"]["phases"] == phase_breakdown(Comparison.objects.get(pk=comparison_id))
    phases = {p["arm"]: p for p in results["analysis"]["phases"]}
    for arm in results["arms"]:
        # Over TLS every arm has a TTFB; warm connections skip DNS/connect/TLS after the first request.
        assert phases[arm]["ttfb_ms"] > 0
        assert phases[arm]["ttfb_n"] == phases[arm]["n"]
        assert phases[arm]["tls_n"] < phases[arm]["n"]
    if preset == "mid-image-series":
        arms = results["groups"][0]["arms"]
        assert results["groups"][0]["periods"] == [3, 6]
        assert all(v > 0 for arm in arms.values() for v in arm["throughput_bps"])
        assert arms["h2"]["gain_pct"][0] is not None
        assert arms["https-h1"]["gain_pct"] == [None, None]
    client.close()


@pytest.mark.django_db(transaction=True)
def test_series_under_transatlantic_runs_through_the_emulated_link(live_server, api, pool, target):
    if os.geteuid() != 0:
        pytest.skip("the link emulator needs root (network namespaces)")
    client = runner_client(live_server.url, pool, "it-runner")
    agent = host_agent(client, "it-runner", target=reference_of(target))
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", {
            "name": "transatlantic", "preset": "mid-image-series", "blocks": 2, "seed": 5,
            "workload": {"kind": "series", "periods": [3], "repetitions": 2},
            "network_profiles": ["none", "transatlantic"]}, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 2}, daemon=True)
        thread.start()
        finished = wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 240)
        agent.drain()
        thread.join(60)
    comparison = Comparison.objects.get(pk=comparison_id)
    assert finished, list(comparison.runs.values("network_profile", "error"))
    assert comparison.status == "finished", list(comparison.runs.values("network_profile", "error"))
    runs = {r.network_profile: r for r in comparison.runs.all()}
    # The "none" run went over loopback, the other through the emulated link, as each run's report says.
    assert runs["none"].link == {"profile": "none", "measured": None}
    link = runs["transatlantic"].link
    assert link["profile"] == "transatlantic"
    assert link["backend"] in ("userspace", "netem")
    assert link["congestion_control"] in ("cubic", "reno")
    groups = {g["network_profile"]: g for g in api.get(f"/api/v1/comparisons/{comparison_id}/results").json()["groups"]}
    assert set(groups) == {"none", "transatlantic"}
    # Floors only: nothing crosses the 95 ms path in less than one round trip, however loaded the
    # machine. How close the emulated RTT comes to the profile's is judged by the timing suite
    # (device-runner/tools/tests/test_netlab_link.py), which runs alone; this suite runs beside others.
    assert link["measured"]["rtt_ms"]["p50"] >= 90, link["measured"]
    assert groups["transatlantic"]["requests"]["h2"]["median_ms"] >= 90
    client.close()
