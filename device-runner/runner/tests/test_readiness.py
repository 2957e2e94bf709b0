"""Readiness from the phone (contract job/result `readiness`) and the block-relative monotonic
issue time (`issued_mono_us`).

The runner asks every phone block for a readiness check (the reference target's cleartext
origin, the lab networks); it judges the reported address itself and blames the device when
the phone is off the lab network, the lab when the phone is on it and still cannot reach the
target. The host harness runs the same check, and stamps every sample with its issue time on
the monotonic clock. Over real sockets to the reference target; the phone paths end to end
through the fakes and the real Kotlin core."""

import json
import threading
from pathlib import Path

import pytest
from device_lab import harness_core, scenario
from latencylab_contract.validation import validate

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.devices.gate import GateThresholds
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.outcome import BlockFailure, parse_result
from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.readiness import on_lab_network, readiness_refusal, readiness_request
from latencylab_runner.drivers.readiness_check import interface_of, readiness_check
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems

PIXEL = "R5CT1234"
IPHONE = "00008130-001A2C3E0E38001C"
needs_core = pytest.mark.skipif(harness_core.missing_reason() is not None,
                                reason=str(harness_core.missing_reason()))
EXAMPLES = Path(__file__).resolve().parents[2] / "contract" / "latencylab_contract" / "examples"
SPEC = {"name": "readiness", "seed": 7, "blocks": 1, "timeout_s": 10, "baseline_arm": "https-h1",
        "workload": {"kind": "api", "rounds": 2, "calls": 3, "request_bytes": 64, "warmup": 1, "gap_ms": 0,
                     "concurrency": "all"},
        "arms": [{"label": "https-h1", "protocol": "h1", "connection": "warm", "endpoint": None, "ca_bundle": None},
                 {"label": "h2", "protocol": "h2", "connection": "warm", "endpoint": None, "ca_bundle": None}]}


def example(name):
    return json.loads((EXAMPLES / name).read_text())


# -- What the runner asks and how it judges the answer ------------------------------

def test_the_job_asks_for_the_reference_targets_cleartext_origin_and_the_lab_networks(reference):
    job = build_job(SPEC, run_id="r", block=0, attempt=1, target=reference,
                    readiness=readiness_request(reference, ("198.19.0.0/24",)))
    validate(job, "job")
    assert job["readiness"] == {"origin": f"http://127.0.0.1:{reference.plain_port}", "path": "/healthz",
                                "lab_networks": ["198.19.0.0/24"]}
    v6 = readiness_request(ReferenceTarget("fd00:1ab::2", 8080, 8443, "x", None))
    assert v6 == {"origin": "http://[fd00:1ab::2]:8080", "path": "/healthz"}  # no networks: reported, not judged
    assert "readiness" not in build_job(SPEC, run_id="r", block=0, attempt=1, target=reference)


@pytest.mark.parametrize("address, networks, expected", [
    ("198.19.0.23", ["198.19.0.0/24"], True), ("10.151.3.7", ["198.19.0.0/24", "fd00:1ab::/64"], False),
    ("fd00:1ab::17", ["198.19.0.0/24", "fd00:1ab::/64"], True), ("fe80::1%wlan0", ["fe80::/10"], True),
    ("198.19.0.23", [], None), (None, ["198.19.0.0/24"], None)])
def test_the_address_is_judged_against_the_lab_networks(address, networks, expected):
    assert on_lab_network(address, networks) is expected


def test_a_phone_on_cellular_is_not_ready_whatever_its_harness_says():
    """The runner judges the address itself; the harness's own on_lab_network is not the verdict."""
    job = example("job-readiness-lab-network.json")
    result = example("result-ios-not-ready-cellular.json")
    assert readiness_refusal(job, result) == (
        "device_not_ready", "not on the lab network: cellular (pdp_ip0), address 10.151.3.7, RTT 88.4 ms is in none "
                            "of 198.19.0.0/24, fd00:1ab::/64")
    lying = example("result-android-readiness.json")
    lying["readiness"]["local_address"] = "10.151.3.7"  # it still says on_lab_network: true
    assert readiness_refusal(job, lying)[0] == "device_not_ready"
    assert readiness_refusal(job, example("result-android-readiness.json")) is None


def test_on_the_lab_network_but_unable_to_reach_the_target_is_the_labs_fault():
    """The runner reached the reference target moments before: the access point or its route
    is at fault, and the runner's breaker (not the phone's quarantine) counts it."""
    job = example("job-readiness-lab-network.json")
    result = example("result-android-readiness.json")
    result.update(status="not_ready", samples=[], error="ConnectException: Connection refused")
    result["readiness"].update(http_status=None, rtt_ms=None, error="ConnectException: Connection refused")
    kind, reason = readiness_refusal(job, result)
    assert kind == "lab_fault"
    assert "on the lab network (wifi (wlan0), address 198.19.0.23)" in reason
    assert "cannot fetch http://198.19.0.1:8080/healthz: ConnectException" in reason
    # Without lab networks to place it by, or without any address, the phone is blamed.
    del job["readiness"]["lab_networks"]
    assert readiness_refusal(job, result)[0] == "device_not_ready"


def test_a_result_without_the_readiness_the_job_asked_for_is_malformed():
    job = example("job-readiness-lab-network.json")
    result = example("result-android-readiness.json")
    del result["readiness"]
    assert readiness_refusal(job, result)[0] == "malformed_result"
    with pytest.raises(BlockFailure) as failure:
        parse_result(json.dumps(result).encode(), job, lane_exit=0)
    assert failure.value.error_kind == "malformed_result"


def test_parse_result_classifies_a_not_ready_result():
    job = example("job-readiness-lab-network.json")
    with pytest.raises(BlockFailure) as failure:
        parse_result((EXAMPLES / "result-ios-not-ready-cellular.json").read_bytes(), job, lane_exit=0)
    assert (failure.value.error_kind, failure.value.status) == ("device_not_ready", "infra_error")
    assert "not on the lab network" in failure.value.message
    ok = parse_result((EXAMPLES / "result-android-readiness.json").read_bytes(), job, lane_exit=0)
    assert ok["readiness"]["on_lab_network"] is True


# -- The host harness: the check, and issue times ------------------------------------

def test_the_host_harness_check_reports_interface_address_and_round_trip(reference):
    report = readiness_check(readiness_request(reference, ("127.0.0.0/8",)))
    assert report["error"] is None, report
    assert (report["interface"], report["local_address"], report["http_status"]) == ("loopback", "127.0.0.1", 200)
    assert report["interface_name"] == interface_of("127.0.0.1")[1]
    assert report["on_lab_network"] is True
    assert report["rtt_ms"] >= 0


def test_the_host_harness_refuses_a_block_off_the_lab_network_and_measures_nothing(reference):
    job = build_job(SPEC, run_id="r", block=0, attempt=1, target=reference,
                    readiness=readiness_request(reference, ("198.19.0.0/24",)))
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    assert (result["status"], result["samples"]) == ("not_ready", [])
    assert result["readiness"]["on_lab_network"] is False
    assert result["error"] == ("not on the lab network: local address 127.0.0.1 (loopback) is in none of "
                               "198.19.0.0/24")


def test_a_target_that_does_not_answer_refuses_the_block(reference):
    closed = ReferenceTarget("127.0.0.1", 9, reference.tls_port, "localhost", reference.ca_file)
    report = readiness_check(readiness_request(closed))
    assert report["local_address"] is None
    assert report["http_status"] is None
    assert report["error"].startswith("ConnectionRefusedError")


def test_host_samples_carry_their_issue_time_since_the_block_began(reference):
    """Monotonic µs since the block began: the block's requests in issue order, a concurrent
    round's requests issued together, each sample's wall time apart by as much."""
    job = build_job(SPEC, run_id="r", block=0, attempt=1, target=reference, readiness=readiness_request(reference))
    result = execute_job(job)
    validate(result, "result")
    assert result["status"] == "ok"
    assert result["readiness"]["http_status"] == 200
    samples = result["samples"]
    assert [s["error_class"] for s in samples] == [None] * len(samples), [s["error_detail"] for s in samples]
    issued = [s["issued_mono_us"] for s in samples]
    assert all(isinstance(t, int) and t >= 0 for t in issued)
    # Groups (and requests issued alone) run one after another: every request of a later one was
    # issued after every request before it.
    groups: list[tuple[tuple, list[int]]] = []
    for request, sample in zip(job["requests"], samples, strict=True):
        key = (request["arm"], request["phase"], request.get("group"))
        if request.get("group") is not None and groups and groups[-1][0] == key:
            groups[-1][1].append(sample["issued_mono_us"])
        else:
            groups.append((key, [sample["issued_mono_us"]]))
    assert any(len(times) > 1 for _, times in groups)  # the rounds were issued concurrently
    for (_, earlier), (_, later) in zip(groups, groups[1:], strict=False):
        assert max(earlier) <= min(later), (earlier, later)


def test_http3_streams_take_their_issue_times_from_the_native_client(reference):
    """HTTP/3 runs in the native quic-go client: it says when it issued each stream of a batch
    after the first, on its own monotonic clock, and the harness places the batch on its own."""
    h3 = [{"label": "h3", "protocol": "h3", "connection": "warm", "endpoint": None, "ca_bundle": None}]
    job = build_job({**SPEC, "arms": h3, "baseline_arm": "h3"}, run_id="r", block=0, attempt=1, target=reference)
    result = execute_job(job)
    validate(result, "result")
    samples = result["samples"]
    assert [s["error_class"] for s in samples] == [None] * len(samples), [s["error_detail"] for s in samples]
    rounds: dict[int | None, list[int]] = {}
    for request, sample in zip(job["requests"], samples, strict=True):
        rounds.setdefault(request.get("group"), []).append(sample["issued_mono_us"])
    concurrent = [times for group, times in rounds.items() if group is not None]
    assert concurrent
    assert all(len(times) == 3 for times in concurrent)
    for times in concurrent:
        assert times[0] == min(times)  # the batch starts with its first stream


# -- Phones: end to end through the fakes and the real core -----------------------------

def execute(driver, backend, serial, *, spec=SPEC):
    run_id = backend.enqueue(serial=serial, spec=spec, network_profile=None)
    lease = backend.queue.pop()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        driver.execute(lease, client, threading.Event())
    finally:
        client.close()
    assert backend.violations == []
    return run_id, backend.finishes.get(run_id)


@needs_core
def test_a_pixel_reports_its_readiness_and_its_samples_their_issue_times(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    limits = GateThresholds(lab_networks=("127.0.0.0/8",))
    run_id, finish = execute(lab.android_driver(reference, limits=limits), backend, PIXEL)
    assert finish["status"] == "ok", finish
    readiness = finish["fingerprint"]["readiness"]
    assert (readiness["interface"], readiness["local_address"], readiness["http_status"],
            readiness["on_lab_network"]) == ("loopback", "127.0.0.1", 200, True)
    assert finish["fingerprint"]["thermal_status"] == "none"
    batch, = backend.batches[run_id]
    issued = [s["issued_mono_us"] for s in batch["samples"]]
    assert all(isinstance(t, int) and t >= 0 for t in issued), issued


@needs_core
def test_a_pixel_off_the_lab_network_measures_nothing_and_is_not_ready(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    limits = GateThresholds(lab_networks=("198.19.0.0/24",))
    run_id, finish = execute(lab.android_driver(reference, limits=limits), backend, PIXEL)
    assert (finish["status"], finish["error_kind"]) == ("infra_error", "device_not_ready"), finish
    assert "not on the lab network: loopback" in finish["error"]
    assert "198.19.0.0/24" in finish["error"]
    assert run_id not in backend.batches


@needs_core
def test_an_iphone_throttling_by_its_own_thermal_state_is_not_ready(lab, backend, reference):
    """No host tool reads an iPhone's thermal state: the harness's report is the gate's only reading."""
    lab.set(ios=[scenario.ios_device(IPHONE, thermal_state="serious")])
    exchange = JobExchange("127.0.0.1", 0)
    try:
        run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    finally:
        exchange.close()
    assert (finish["status"], finish["error_kind"]) == ("infra_error", "device_not_ready"), finish
    assert "the phone reported thermal status serious (throttling) > fair at the block" in finish["error"]
    assert run_id not in backend.batches
