"""Which client and server each arm measured (stacks.py): the results API reads them from
the fingerprints runners stored at finish, per arm, counted over runs; runs from runners
that predate server_stacks still say reference target or customer endpoint."""

from typing import Any

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.stacks import ArmFacts, RunFacts, arm_stacks
from apps.results.tests.openapi_schemas import schema_errors

SPEC = {"name": "stacks", "workload": {"kind": "api", "rounds": 1, "calls": 1, "request_bytes": 64}, "blocks": 1,
        "seed": 1, "baseline_arm": "https-h1",
        "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h3", "protocol": "h3"},
                 {"label": "mine", "protocol": "h2", "endpoint": "https://api.example.com"}]}
PROBE = "latencylab-probe 0.1.0"
HOST_FINGERPRINT = {
    "platform": "host", "model": "Linux x86_64", "os_version": "6.1", "harness_version": "latencylab-runner 0.1.0",
    "clock_source": "time.perf_counter_ns", "clock_resolution_us": 0.001,
    "client_stacks": {"h1": f"{PROBE} (h11 0.14.0)", "h2": f"{PROBE} (h2 4.1.0)", "h3": f"{PROBE} (quic-go 0.65.0)"},
    "server_stacks": {
        "https-h1": {"target": "reference", "software": "latencylab-target 0.1.0 (h11 0.14.0)", "server_headers": []},
        "h3": {"target": "reference", "software": "latencylab-target 0.1.0 (quic-go 0.65.0)", "server_headers": None},
        "mine": {"target": "customer", "software": None, "server_headers": ["nginx/1.25.3"]},
    },
}


def finished_on_host(runner_api, org, fingerprint: dict) -> Comparison:
    """Submit, lease, store the one block and finish through the runner protocol with
    `fingerprint` (the block without samples: the stacks come from the run, not from its
    measurements; `ok` needs every block stored)."""
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    stored = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                             {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                              "samples": []}, format="json")
    assert stored.status_code == 200, stored.content
    response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                               {"lease_token": leased["lease_token"], "status": "ok", "fingerprint": fingerprint},
                               format="json")
    assert response.status_code == 200, response.content
    return comparison


@pytest.mark.django_db
def test_the_results_api_names_each_arms_client_and_server(api, org, runner_api):
    comparison = finished_on_host(runner_api, org, HOST_FINGERPRINT)
    results = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
    assert schema_errors("ComparisonResults", results) == []
    assert results["stacks"] == [
        {"arm": "https-h1", "protocol": "h1",
         "clients": [{"platform": "host", "device": "Linux x86_64", "stack": f"{PROBE} (h11 0.14.0)", "runs": 1}],
         "servers": [{"target": "reference", "software": "latencylab-target 0.1.0 (h11 0.14.0)",
                      "server_headers": [], "runs": 1}]},
        {"arm": "h3", "protocol": "h3",
         "clients": [{"platform": "host", "device": "Linux x86_64", "stack": f"{PROBE} (quic-go 0.65.0)", "runs": 1}],
         "servers": [{"target": "reference", "software": "latencylab-target 0.1.0 (quic-go 0.65.0)",
                      "server_headers": None, "runs": 1}]},
        {"arm": "mine", "protocol": "h2",
         "clients": [{"platform": "host", "device": "Linux x86_64", "stack": f"{PROBE} (h2 4.1.0)", "runs": 1}],
         "servers": [{"target": "customer", "software": None, "server_headers": ["nginx/1.25.3"], "runs": 1}]},
    ]


@pytest.mark.django_db
def test_an_older_runners_run_still_says_reference_or_customer(api, org, runner_api):
    older = {key: value for key, value in HOST_FINGERPRINT.items() if key != "server_stacks"}
    comparison = finished_on_host(runner_api, org, older)
    stacks = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()["stacks"]
    assert [(s["arm"], s["servers"]) for s in stacks] == [
        ("https-h1", [{"target": "reference", "software": None, "server_headers": None, "runs": 1}]),
        ("h3", [{"target": "reference", "software": None, "server_headers": None, "runs": 1}]),
        ("mine", [{"target": "customer", "software": None, "server_headers": None, "runs": 1}]),
    ]


@pytest.mark.django_db
def test_before_any_run_finished_the_arms_have_no_stacks_yet(api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    stacks = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()["stacks"]
    assert [(s["arm"], s["clients"], s["servers"]) for s in stacks] == [("https-h1", [], []), ("h3", [], []),
                                                                        ("mine", [], [])]


def test_runs_on_several_devices_are_counted_per_client_and_server():
    arms = [ArmFacts(label="h3", protocol="h3", endpoint="")]
    pixel: dict[str, Any] = {"platform": "android", "client_stacks": {"h3": "cronet 128"},
             "server_stacks": {"h3": {"target": "reference", "software": "latencylab-target 0.1.0 (quic-go 0.65.0)",
                                      "server_headers": None}}}
    host = {**HOST_FINGERPRINT, "server_stacks": {"h3": pixel["server_stacks"]["h3"]}}
    runs = [RunFacts(fingerprint=pixel, device="Pixel 8"), RunFacts(fingerprint=pixel, device="Pixel 8"),
            RunFacts(fingerprint=host, device="Linux x86_64"), RunFacts(fingerprint={}, device="slot-3")]
    (h3,) = arm_stacks(arms, runs)
    assert h3["clients"] == [{"platform": "android", "device": "Pixel 8", "stack": "cronet 128", "runs": 2},
                             {"platform": "host", "device": "Linux x86_64", "stack": f"{PROBE} (quic-go 0.65.0)",
                              "runs": 1}]
    assert h3["servers"] == [{"target": "reference", "software": "latencylab-target 0.1.0 (quic-go 0.65.0)",
                              "server_headers": None, "runs": 3}]
