"""Concurrency groups (runner side): a series, an API round or a pass over a request list
issued concurrently, as an app's HTTP stack does. HTTP/1.1 spreads a group over up to
`max_parallel` connections per origin; HTTP/2 and HTTP/3 multiplex it on one connection.
Checked against the real reference target by connections used, requests in flight and
overlapping request intervals (structure, not speed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from latencylab_contract.validation import validate
from latencylab_tools.probe import Origin, ProbeRequest, open_session

from latencylab_runner.drivers.concurrent_batch import run_group
from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems
from latencylab_runner.workloads.plan import max_parallel, plan_block

ARMS = [{"label": "h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"}]


def series_spec(concurrency: object, *, periods=(6,), repetitions=2, arms=ARMS) -> dict:
    workload = {"kind": "series", "objects": "seed-mid-24", "periods": list(periods), "repetitions": repetitions,
                "warmup": 1, "gap_ms": 0}
    if concurrency is not None:
        workload["concurrency"] = concurrency
    return {"workload": workload, "arms": arms, "blocks": 1, "seed": 9, "timeout_s": 10}


def test_each_series_is_one_group_per_arm_and_sequential_has_none():
    plan = plan_block(series_spec({"parallel": 4}), run_id="r", block=0)
    measured = [p for p in plan if p.phase == "measure"]
    assert all(p.group is None for p in plan if p.phase == "warmup")
    groups: dict[int, set] = {}
    for p in measured:
        groups.setdefault(p.group, set()).add((p.arm, p.period, p.repetition))
    assert len(groups) == 2 * 2
    assert all(len(units) == 1 for units in groups.values())
    assert all(p.group is None for p in plan_block(series_spec(None), run_id="r", block=0))
    assert all(p.group is None for p in plan_block(series_spec("sequential"), run_id="r", block=0))


def test_requests_and_api_rounds_group_per_pass():
    api = {"workload": {"kind": "api", "rounds": 3, "calls": 4, "request_bytes": 64, "warmup": 0,
                        "concurrency": "all"}, "arms": ARMS, "blocks": 1, "seed": 1}
    plan = plan_block(api, run_id="r", block=0)
    assert len({p.group for p in plan}) == 3 * 2
    assert all(p.new_connection == (p.step == 0) for p in plan)  # a round still starts on a fresh connection


@pytest.mark.parametrize("concurrency, expected", [({"parallel": 4}, 4), ("all", 64), (None, None)])
def test_the_job_carries_groups_and_the_http1_connection_limit(concurrency, expected):
    job = build_job(series_spec(concurrency), run_id="r", block=0, attempt=1,
                    target=ReferenceTarget("127.0.0.1", 9, 9, "x", None))
    validate(job, "job")
    assert job.get("max_parallel") == expected
    assert (expected is None) == all("group" not in r for r in job["requests"])


def origin_of(target) -> Origin:
    return Origin(scheme="https", host="127.0.0.1", port=target.tls_port, server_name="localhost")


@pytest.mark.parametrize("protocol, max_parallel, connections, peak", [
    ("h1", 3, 3, 3), ("h1", 8, 6, 6), ("h2", 3, 1, 6), ("h3", 3, 1, 6), ("grpc", 3, 1, 6)])
def test_http1_spreads_over_connections_and_multiplexed_protocols_share_one(target_server, protocol, max_parallel,
                                                                            connections, peak):
    sessions: dict[int, object] = {}

    def lane(origin: str, n: int):
        if n not in sessions:
            sessions[n] = open_session(protocol=protocol, connection="warm", origin=origin_of(target_server),
                                       ca_file=str(target_server.ca_file), timeout_s=10)
        return sessions[n]

    # 6 requests that each wait 1 s at the server: issued one after another they could not overlap,
    # and issued together they overlap unless the client stalls for a second between two of them
    # (150 ms was a window a loaded machine's thread scheduling could close).
    requests = [("o", ProbeRequest(method="GET", path="/delay/1000", op="delay", server_delay_ms=1000.0))
                for _ in range(6)]
    try:
        samples = run_group(protocol, requests, max_parallel=max_parallel, lane=lane)
    finally:
        for session in sessions.values():
            session.close()
    assert [s["error_class"] for s in samples] == [None] * 6, [s["error_detail"] for s in samples]
    assert len({s["conn_id"] for s in samples}) == connections
    assert max(s["in_flight"] for s in samples) == peak
    intervals = sorted((s["wall_time"], s["wall_time"] + s["app_done"]) for s in samples)
    assert intervals[1][0] < intervals[0][1]  # the second request was issued before the first completed


def test_a_concurrent_series_job_runs_into_a_valid_result(target_server):
    pem = Path(target_server.ca_file).read_text()
    arms = [{"label": p, "protocol": p, "connection": "warm", "endpoint": f"https://localhost:{target_server.tls_port}",
             "ca_bundle": pem} for p in ("h1", "h2")]
    job = build_job(series_spec({"parallel": 4}, periods=(8,), arms=arms), run_id="r", block=0, attempt=1,
                    target=ReferenceTarget("127.0.0.1", 9, 9, "x", None))
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    measured = [s for s in result["samples"] if s["phase"] == "measure"]
    assert [s["error_class"] for s in measured] == [None] * len(measured)
    h1_connections = {s["conn_id"] for s in measured if s["arm"] == "h1"}
    h2_connections = {s["conn_id"] for s in measured if s["arm"] == "h2"}
    assert len(h1_connections) == 4
    assert len(h2_connections) == 1
    assert [s["seq"] for s in result["samples"]] == list(range(len(job["requests"])))


def test_parallel_without_a_number_is_six_connections():
    assert max_parallel({"concurrency": "parallel"}) == 6
    assert max_parallel({"concurrency": {"parallel": 3}}) == 3
    assert max_parallel({"concurrency": "sequential"}) == max_parallel({}) == 1


def test_every_sample_says_how_many_requests_were_in_flight_when_it_was_issued(target_server):
    """Six requests that each wait 1 s at the server, as one request list: HTTP/1.1 with
    parallel 3 has at most 3 in flight (1, 2, 3 for the first wave), HTTP/2 with `all`
    issues the six at once (1 … 6); warm-ups, issued alone, have 1. Over real sockets to
    the reference target; the result is a valid contract document. (A wait of 1 s, not
    100 ms: no scheduling stall on a loaded machine lasts long enough to let one request
    complete before the next of its wave is issued.)"""
    pem = Path(target_server.ca_file).read_text()
    arms = [{"label": p, "protocol": p, "connection": "warm", "endpoint": f"https://localhost:{target_server.tls_port}",
             "ca_bundle": pem} for p in ("h1", "h2")]
    results = {}
    for concurrency in ({"parallel": 3}, "all"):
        spec = {"workload": {"kind": "requests", "requests": [{"method": "GET", "path": "/delay/1000"}] * 6,
                             "repetitions": 1, "warmup": 1, "think_ms": 0, "concurrency": concurrency},
                "arms": arms, "blocks": 1, "seed": 3, "timeout_s": 10}
        job = build_job(spec, run_id="r", block=0, attempt=1, target=ReferenceTarget("127.0.0.1", 9, 9, "x", None))
        result = execute_job(job)
        validate(result, "result")
        assert result_problems(job, result) == []
        assert [s["error_class"] for s in result["samples"]] == [None] * len(job["requests"])
        assert all(s["in_flight"] == 1 for s in result["samples"] if s["phase"] == "warmup")
        results[json.dumps(concurrency)] = result["samples"]

    h1 = [s for s in results['{"parallel": 3}'] if s["arm"] == "h1" and s["phase"] == "measure"]
    assert max(s["in_flight"] for s in h1) == 3
    assert sorted(s["in_flight"] for s in sorted(h1, key=lambda s: s["wall_time"])[:3]) == [1, 2, 3]
    assert len({s["conn_id"] for s in h1}) == 3
    h2 = [s for s in results['"all"'] if s["arm"] == "h2" and s["phase"] == "measure"]
    assert [s["in_flight"] for s in h2] == [1, 2, 3, 4, 5, 6]
    assert len({s["conn_id"] for s in h2}) == 1
    # The counter agrees with the recorded intervals: a request found as many requests of its
    # arm started and not yet completed as it says (itself included), give or take one at a
    # boundary where one completed within microseconds of the next being issued.
    for samples in (h1, h2):
        for s in samples:
            overlapping = sum(1 for o in samples if o["wall_time"] <= s["wall_time"] < o["wall_time"] + o["app_done"])
            assert abs(overlapping - s["in_flight"]) <= 1, (s["in_flight"], overlapping)


def test_a_grpc_arm_multiplexes_an_api_round_like_http2(target_server):
    """gRPC likewise (issue 10): an API round of 4 echo calls issued at once is 4 streams on
    the arm's one connection, in flight 1 … 4; each round starts on a fresh connection."""
    arms = [{"label": "grpc", "protocol": "grpc", "connection": "warm"}]
    spec = {"workload": {"kind": "api", "rounds": 2, "calls": 4, "request_bytes": 64, "warmup": 0,
                         "concurrency": "all"}, "arms": arms, "blocks": 1, "seed": 2, "timeout_s": 10}
    job = build_job(spec, run_id="r", block=0, attempt=1,
                    target=ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                                           str(target_server.ca_file)))
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    samples = result["samples"]
    assert [s["error_class"] for s in samples] == [None] * 8, [s["error_detail"] for s in samples]
    assert [s["in_flight"] for s in samples] == [1, 2, 3, 4] * 2
    assert all(s["alpn"] == "h2" and s["req_bytes"] == 64 for s in samples)
    rounds = [{s["conn_id"] for s in samples if s["repetition"] == r} for r in (0, 1)]
    assert [len(r) for r in rounds] == [1, 1]
    assert rounds[0] != rounds[1]
