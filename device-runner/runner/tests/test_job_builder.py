"""The job builder (workloads/job.py): a leased block becomes a valid job document whose
requests are the plan's, in the plan's order (ABBA interleave included), with each arm's
origin, certificate name and CA; and the host probe executes such a job into a valid
result document against the real reference target."""

import threading

import pytest
from latencylab_contract.validation import ContractError, validate

from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems
from latencylab_runner.workloads.plan import plan_block

TWO_ARMS = [{"label": "https-h1", "protocol": "h1", "connection": "warm", "endpoint": None, "ca_bundle": None},
            {"label": "h2", "protocol": "h2", "connection": "warm", "endpoint": None, "ca_bundle": None}]

# One normalized spec per seed preset's workload kind (backend apps/comparisons/presets.py).
SEED_SPECS = {
    "series": {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [3, 6, 9], "repetitions": 12,
                            "warmup": 1, "gap_ms": 0}, "arms": TWO_ARMS, "blocks": 6},
    "delay_sweep": {"workload": {"kind": "delay_sweep", "start_ms": 0, "stop_ms": 1000, "step_ms": 25, "trials": 10,
                                 "warmup": 1, "gap_ms": 0},
                    "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}], "blocks": 2},
    "api": {"workload": {"kind": "api", "rounds": 5, "calls": 5, "request_bytes": 64, "warmup": 0},
            "arms": TWO_ARMS, "blocks": 1},
    "mixed": {"workload": {"kind": "mixed", "rounds": 5, "calls": 5, "request_bytes": 64, "files": "seed-unity-5",
                           "warmup": 1},
              "arms": TWO_ARMS + [{"label": "grpc", "protocol": "grpc", "connection": "warm"}], "blocks": 2},
    "payload_sweep": {"workload": {"kind": "payload_sweep", "request_bytes": 800,
                                   "sizes": [1000, 35000, 200000, 2048000], "repetitions": 10, "warmup": 1},
                      "arms": [{"label": "h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"}], "blocks": 2},
}


@pytest.fixture(scope="module")
def ca_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    path.write_text("-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n")
    return str(path)


def target(ca_file, host="198.18.0.2"):
    return ReferenceTarget(host, 8080, 8443, "localhost", ca_file)


def full_spec(kind):
    return {"name": kind, "seed": 42, "timeout_s": 30, "baseline_arm": SEED_SPECS[kind]["arms"][0]["label"],
            **SEED_SPECS[kind]}


@pytest.mark.parametrize("kind", sorted(SEED_SPECS))
def test_every_seed_workload_builds_a_valid_job_in_plan_order(kind, ca_file):
    spec = full_spec(kind)
    for block in range(spec["blocks"]):
        job = build_job(spec, run_id="run-1", block=block, attempt=2, target=target(ca_file))
        validate(job, "job")
        plan = plan_block(spec, run_id="run-1", block=block)
        assert [r["seq"] for r in job["requests"]] == list(range(len(plan)))
        assert [(r["arm"], r["phase"], r["op"], r["method"], r["path"], r.get("body_bytes", 0),
                 r.get("new_connection", False), r.get("period"), r.get("repetition"), r.get("step"), r.get("part"),
                 r.get("server_delay_ms")) for r in job["requests"]] == \
               [(p.arm, p.phase, p.op, p.method, p.path, p.body_bytes, p.new_connection, p.period, p.repetition,
                 p.step, p.part, p.server_delay_ms) for p in plan]
        assert (job["run_id"], job["block"], job["attempt"], job["timeout_ms"]) == ("run-1", block, 2, 30000)


def test_series_job_keeps_the_abba_interleave():
    spec = full_spec("series")
    job = build_job(spec, run_id="r", block=0, attempt=1, target=ReferenceTarget("127.0.0.1", 1, 2, "localhost", None))
    # The first request of each 3-request series, for period 3: A B then B A.
    series = [r["arm"] for r in job["requests"] if r.get("period") == 3 and r.get("step") == 0]
    assert len(series) == 4
    assert series[0] != series[1]
    assert series == [series[0], series[1], series[1], series[0]]


def test_reference_target_arms_carry_origin_certificate_name_and_ca(ca_file):
    spec = {**full_spec("api"), "arms": [{"label": "plain", "protocol": "h1c"}, {"label": "h3", "protocol": "h3"}]}
    job = build_job(spec, run_id="r", block=0, attempt=1, target=target(ca_file))
    plain, h3 = job["arms"]
    assert plain["origin"] == "http://198.18.0.2:8080"
    assert plain["ca_bundle_pem"] is None
    assert h3["origin"] == "https://198.18.0.2:8443"
    assert h3["server_name"] == "localhost"
    assert h3["ca_bundle_pem"].startswith("-----BEGIN CERTIFICATE-----")
    assert h3["connection"] == "warm"


def test_customer_endpoint_moves_its_path_into_requests_and_brings_its_ca(ca_file):
    pem = "-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n"
    arms = [{"label": "mine", "protocol": "h2", "endpoint": "https://api.example.com/v2/", "ca_bundle": pem},
            {"label": "ref", "protocol": "h2"}]
    job = build_job({**full_spec("api"), "arms": arms, "baseline_arm": "ref"}, run_id="r", block=0, attempt=1,
                    target=target(ca_file))
    mine = job["arms"][0]
    assert mine == {"label": "mine", "protocol": "h2", "connection": "warm", "origin": "https://api.example.com:443",
                    "server_name": None, "ca_bundle_pem": pem}
    assert {r["path"] for r in job["requests"] if r["arm"] == "mine"} == {"/v2/echo"}
    assert {r["path"] for r in job["requests"] if r["arm"] == "ref"} == {"/echo"}


def test_ipv6_reference_target_is_bracketed(ca_file):
    job = build_job(full_spec("api"), run_id="r", block=0, attempt=1, target=target(ca_file, host="fd00::2"))
    assert job["arms"][0]["origin"] == "https://[fd00::2]:8443"


def test_a_spec_the_contract_refuses_raises_naming_the_field(ca_file):
    spec = {**full_spec("api"), "timeout_s": 30}
    spec["arms"] = [{"label": "x" * 65, "protocol": "h2"}]
    with pytest.raises(ContractError, match=r"arms\.0\.label"):
        build_job(spec, run_id="r", block=0, attempt=1, target=target(ca_file))


def _result_for(job):
    sample = {"arm": "", "block": job["block"], "seq": 0, "phase": "measure", "wall_time": 1, "t0": 0,
              "app_done": 5, "error_class": None}
    return {"contract": "latencylab.result/v1", "run_id": job["run_id"], "block": job["block"],
            "attempt": job["attempt"], "status": "ok",
            "samples": [{**sample, "arm": r["arm"], "seq": r["seq"], "phase": r["phase"]} for r in job["requests"]],
            "fingerprint": {}}


def test_result_problems_catch_partial_reordered_and_foreign_results(ca_file):
    job = build_job(full_spec("api"), run_id="r", block=0, attempt=1, target=target(ca_file))
    good = _result_for(job)
    assert result_problems(job, good) == []
    partial = {**good, "samples": good["samples"][:-1]}
    assert any("partial result" in p for p in result_problems(job, partial))
    swapped = {**good, "samples": [good["samples"][1], good["samples"][0], *good["samples"][2:]]}
    assert any(p.startswith("samples.0.seq") for p in result_problems(job, swapped))
    foreign = {**good, "run_id": "other", "attempt": 3}
    assert {p.split(":")[0] for p in result_problems(job, foreign)} == {"run_id", "attempt"}
    # A harness that says it failed may stop early: that is its verdict, not a mismatch.
    assert result_problems(job, {**partial, "status": "failed"}) == []


def test_probe_executes_a_job_into_a_valid_result(target_server):
    reference = ReferenceTarget(target_server.host, target_server.plain_port, target_server.tls_port, "localhost",
                                str(target_server.ca_file))
    spec = {**full_spec("mixed"), "arms": [{"label": "h1c", "protocol": "h1c"},
                                           {"label": "h2", "protocol": "h2", "connection": "warm"}],
            "workload": {"kind": "mixed", "rounds": 1, "calls": 2, "request_bytes": 64, "files": "seed-unity-5",
                         "warmup": 1}, "blocks": 1, "baseline_arm": "h1c"}
    job = build_job(spec, run_id="run-x", block=0, attempt=1, target=reference)
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    assert result["status"] == "ok"
    assert len(result["samples"]) == len(job["requests"])
    ok = [s for s in result["samples"] if s["error_class"] is None]
    assert len(ok) == len(job["requests"]), [s["error_detail"] for s in result["samples"] if s["error_class"]]
    assert {s["alpn"] for s in ok if s["arm"] == "h2"} == {"h2"}
    assert set(result["fingerprint"]["client_stacks"]) == {"h1c", "h2"}


def test_cancelled_job_is_a_failed_result_with_the_samples_so_far(target_server):
    reference = ReferenceTarget(target_server.host, target_server.plain_port, target_server.tls_port, "localhost",
                                str(target_server.ca_file))
    job = build_job(full_spec("api"), run_id="r", block=0, attempt=1, target=reference)
    cancelled = threading.Event()
    cancelled.set()
    result = execute_job(job, cancelled=cancelled)
    assert result["status"] == "failed"
    assert result["samples"] == []
    assert "cancelled" in result["error"]
