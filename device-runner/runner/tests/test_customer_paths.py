"""Path templates: the seed workloads against a customer's own endpoint. A payload sweep
fills `{size}`, a delay sweep `{delay_ms}`, a series fetches the customer's list of object
paths (each arm's endpoint) or URLs (the same for every arm) instead of seed-mid-24. The
"customer" here is a second reference target reached only through its endpoint URL, with
a path prefix its routes do not know when the plan forgets the template."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from latencylab_contract.validation import validate
from target_process import TargetProcess, launch_target

from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems
from latencylab_runner.workloads.plan import plan_block

UNUSED_TARGET = ReferenceTarget("127.0.0.1", 9, 9, "localhost", None)


def spec(workload: dict, arms: list[dict]) -> dict:
    return {"workload": workload, "arms": arms, "blocks": 1, "seed": 5, "timeout_s": 10}


def test_templates_fill_the_swept_value_and_default_to_the_reference_paths():
    arms = [{"label": "a", "protocol": "h2"}]
    payload = {"kind": "payload_sweep", "sizes": [10, 20], "repetitions": 1, "warmup": 1, "request_bytes": 800}
    assert {p.path for p in plan_block(spec(payload, arms), run_id="r", block=0)} == {"/bytes/10", "/bytes/20"}
    custom = {**payload, "path": "/download?bytes={size}&v=2", "method": "GET"}
    plan = plan_block(spec(custom, arms), run_id="r", block=0)
    assert [p.path for p in plan if p.phase == "warmup"] == ["/download?bytes=10&v=2"]
    assert {p.path for p in plan} == {"/download?bytes=10&v=2", "/download?bytes=20&v=2"}
    assert {(p.method, p.body_bytes) for p in plan} == {("GET", 0)}
    delay = {"kind": "delay_sweep", "start_ms": 0, "stop_ms": 50, "step_ms": 25, "trials": 1, "warmup": 0,
             "path": "/slow?ms={delay_ms}"}
    plan = plan_block(spec(delay, arms), run_id="r", block=0)
    assert sorted((p.path, p.server_delay_ms) for p in plan) == [("/slow?ms=0", 0.0), ("/slow?ms=25", 25.0),
                                                                 ("/slow?ms=50", 50.0)]
    series = {"kind": "series", "objects": "seed-mid-24", "periods": [5], "repetitions": 1, "warmup": 1,
              "object_paths": ["/img/a.jpg", "/img/b.jpg", "https://cdn.example.com/c.jpg"]}
    plan = plan_block(spec(series, arms), run_id="r", block=0)
    assert [(p.path, p.url) for p in plan if p.phase == "measure"] == [
        ("/img/a.jpg", None), ("/img/b.jpg", None), ("/", "https://cdn.example.com/c.jpg"), ("/img/a.jpg", None),
        ("/img/b.jpg", None)]  # wraps around like seed-mid-24
    assert plan[0].phase == "warmup"
    assert plan[0].path == "/img/a.jpg"
    mixed = {"kind": "mixed", "rounds": 1, "calls": 2, "request_bytes": 64, "warmup": 1, "files": "seed-unity-5",
             "path": "/v2/ping?build=b", "file_paths": ["/img/a.jpg", "https://cdn.example.com/c.jpg"]}
    plan = plan_block(spec(mixed, arms), run_id="r", block=0)
    assert [(p.part, p.method, p.path, p.url) for p in plan if p.phase == "measure"] == [
        ("A", "POST", "/v2/ping?build=b", None), ("A", "POST", "/v2/ping?build=b", None),
        ("B", "GET", "/img/a.jpg", None), ("B", "GET", "/", "https://cdn.example.com/c.jpg"),
        ("B", "POST", "/v2/ping?build=b", None), ("B", "POST", "/v2/ping?build=b", None)]
    assert (plan[0].phase, plan[0].path) == ("warmup", "/v2/ping?build=b")
    without = {k: v for k, v in mixed.items() if k not in ("path", "file_paths")}
    reference = plan_block(spec(without, arms), run_id="r", block=0)
    assert {p.path for p in reference if p.phase == "measure"} == {"/echo"} | {f"/files/unity-{i}" for i in range(1, 6)}


@pytest.fixture
def customer(tls_dir) -> Iterator[TargetProcess]:
    target = launch_target(tls_dir, "--no-h3")
    yield target
    target.stop()


def customer_arms(target: TargetProcess) -> list[dict]:
    pem = Path(target.ca_file).read_text()
    return [{"label": protocol, "protocol": protocol, "connection": "warm",
             "endpoint": f"https://localhost:{target.tls_port}", "ca_bundle": pem} for protocol in ("h1", "h2")]


def run(spec_: dict) -> list[dict]:
    job = build_job(spec_, run_id="r", block=0, attempt=1, target=UNUSED_TARGET)
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    return result["samples"]


def test_a_payload_sweep_runs_against_a_customer_endpoint_through_its_template(customer):
    workload = {"kind": "payload_sweep", "sizes": [1000, 35000], "repetitions": 2, "warmup": 1,
                "request_bytes": 0, "method": "GET", "path": "/bytes/{size}?build=b"}
    samples = run(spec(workload, customer_arms(customer)))
    assert [s for s in samples if s["error_class"]] == []
    measured = [s for s in samples if s["phase"] == "measure"]
    assert sorted({(s["arm"], s["resp_bytes"]) for s in measured}) == [
        ("h1", 1000), ("h1", 35000), ("h2", 1000), ("h2", 35000)]


def test_a_series_fetches_the_customers_object_list(customer, target_server):
    other_origin = f"https://localhost:{target_server.tls_port}/files/mid-07"  # a URL: the same for every arm
    workload = {"kind": "series", "objects": "seed-mid-24", "periods": [4], "repetitions": 2, "warmup": 1,
                "gap_ms": 0, "object_paths": ["/files/mid-02", "/bytes/5000", other_origin]}
    arms = customer_arms(customer)
    # The absolute URL is another server with the same CA: trusted through the arm's bundle.
    samples = run(spec(workload, arms))
    assert [s["error_detail"] for s in samples if s["error_class"]] == []
    measured = [s for s in samples if s["phase"] == "measure"]
    per_step = {(s["arm"], s["step"]): s["resp_bytes"] for s in measured}
    for arm in ("h1", "h2"):
        assert per_step[arm, 1] == 5000
        assert per_step[arm, 0] == per_step[arm, 3]
        assert per_step[arm, 2] not in (None, 5000, per_step[arm, 0])  # mid-07, from the other server
