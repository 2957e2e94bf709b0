"""A HAR replay against two builds, end to end: the 50-request recording is previewed by
the API, submitted as a spec whose two arms are two reference target servers on
different ports (each with its own CA), run by the real runner agent with the host probe
and a real Celery worker, and analysed into per-arm results and a verdict."""

from pathlib import Path

import pytest
from latencylab_tools.target import start_target

from apps.comparisons.models import Comparison
from testing.host_agent import run_on_host_agent

VERDICTS = {"regression", "improvement", "equivalent", "inconclusive"}
HAR = Path(__file__).resolve().parents[4] / "device-runner/runner/tests/data/reference-50.har"


@pytest.mark.django_db(transaction=True)
def test_a_har_replays_against_two_builds_through_the_agent(live_server, api, pool, target, tmp_path):
    preview = api.post("/api/v1/har-import?repetitions=2", HAR.read_bytes(), content_type="application/json")
    assert preview.status_code == 200, preview.content
    workload = {**preview.json()["workload"], "warmup": 1}
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "build-b") as build_b:
        arms = [{"label": label, "protocol": "h2", "endpoint": f"https://localhost:{server.tls_port}",
                 "ca_bundle": Path(server.ca_file).read_text()}
                for label, server in (("build-a", target), ("build-b", build_b))]
        created = api.post("/api/v1/comparisons", {"name": "HAR replay", "workload": workload, "arms": arms,
                                                   "blocks": 2, "seed": 3}, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        finished = run_on_host_agent(live_server.url, pool, [comparison_id], name="har-runner")
    comparison = Comparison.objects.get(pk=comparison_id)
    assert finished, (comparison.status, comparison.error,
                      list(comparison.runs.values("status", "error")))
    assert comparison.status == "finished", (comparison.status, comparison.error,
                                             list(comparison.runs.values("status", "error")))
    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    requests = results["groups"][0]["requests"]
    for arm in ("build-a", "build-b"):
        assert requests[arm]["n"] == 50 * 2, requests
        assert requests[arm]["errors"] == 0, requests
    verdicts = {c["arm"]: c["verdict"]["outcome"] for c in results["analysis"]["comparisons"]
                if c["metric"] == "total_ms"}
    assert verdicts["build-b"] in VERDICTS, verdicts
