"""A HAR replay: the `requests` workload the backend previews from a 50-request recording
of the reference target (tests/data/reference-50.har → reference-50.workload.json, kept
equal by the backend's test_har_import.py) replayed through h1, h2 and h3 against the
reference target reached as a customer endpoint: every request's status and response
bytes are the recording's, and errors would be samples, not exceptions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from latencylab_contract.validation import validate

from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems

DATA = Path(__file__).with_name("data")
HAR = json.loads((DATA / "reference-50.har").read_text())
WORKLOAD = json.loads((DATA / "reference-50.workload.json").read_text())


def test_the_replay_workload_is_the_recording_in_order():
    assert len(WORKLOAD["requests"]) == len(HAR["log"]["entries"]) == 50
    paths = [e["request"]["url"].removeprefix("https://app.example.test") for e in HAR["log"]["entries"]]
    assert [r["path"] for r in WORKLOAD["requests"]] == paths


@pytest.mark.parametrize("protocol", ["h1", "h2", "h3"])
def test_a_50_request_har_replays_with_the_recorded_statuses_and_bytes(target_server, protocol):
    if protocol == "h3" and target_server.h3_port is None:
        pytest.fail("the reference target serves HTTP/3 in this suite")
    arm = {"label": protocol, "protocol": protocol, "connection": "warm",
           "endpoint": f"https://localhost:{target_server.tls_port}",
           "ca_bundle": Path(target_server.ca_file).read_text()}
    spec = {"workload": {**WORKLOAD, "repetitions": 1, "warmup": 0}, "arms": [arm], "blocks": 1, "seed": 1,
            "timeout_s": 10}
    job = build_job(spec, run_id="har", block=0, attempt=1, target=ReferenceTarget("127.0.0.1", 9, 9, "x", None))
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    samples = result["samples"]
    assert [s["error_detail"] for s in samples if s["error_class"]] == []
    recorded = [(e["response"]["status"], e["response"]["content"]["size"]) for e in HAR["log"]["entries"]]
    assert [(s["status"], s["resp_bytes"]) for s in samples] == recorded
    assert [s["step"] for s in samples] == list(range(50))
