"""A hosted runner never fetches an internal address for a customer: at lease time it
resolves each customer host once, refuses private, loopback, link-local, CGNAT, metadata
and reserved answers, and every connection of the run (probe, baseline, phone readiness
check) goes to the checked address. Resolution is answered by a fake resolver: no test
sends a packet to the addresses it refuses. The pinning itself is shown against the real
reference target on loopback, with the name's own lookups made to fail."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest
from device_lab import harness_core, scenario
from latencylab_contract import contract_dir
from target_process import TargetProcess

from latencylab_runner import target_policy
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.config import ConfigError, parse_config
from latencylab_runner.agent.main import Agent
from latencylab_runner.drivers.host import HostDriver, baseline_origin
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job

VECTORS = json.loads((contract_dir() / "target-policy-vectors.json").read_text())
UNUSED_TARGET = ReferenceTarget("127.0.0.1", 9, 9, "localhost", None)
PUBLIC = "93.184.216.34"
PIXEL = "R5CT1234"
IPHONE = "00008130-001A2C3E0E38001C"
needs_core = pytest.mark.skipif(harness_core.missing_reason() is not None, reason=str(harness_core.missing_reason()))


class FakeResolver:
    """Answers from a table; a list of answers is handed out one lookup at a time (the last
    one repeats), so a name can resolve differently on its second lookup."""

    def __init__(self, table: dict[str, Any]):
        self.table = table
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        answers = self.table.get(host)
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if isinstance(answers[0], list):
            return answers[min(self.lookups.count(host), len(answers)) - 1]
        return answers


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> FakeResolver:
    fake = FakeResolver({})
    monkeypatch.setattr(target_policy, "resolve", fake)
    return fake


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["host"] for c in VECTORS["cases"]])
def test_shared_vectors_get_the_same_verdict_as_the_backend(case, resolver):
    if case["resolves_to"] is not None:
        resolver.table[case["host"]] = case["resolves_to"]
    if case["refused"] is None:
        assert target_policy.checked_address(case["host"], 443)
    else:
        with pytest.raises(target_policy.TargetRefused) as refused:
            target_policy.checked_address(case["host"], 443)
        assert case["refused"] in str(refused.value)
    if case["resolves_to"] is None:
        assert resolver.lookups == [], "an address literal is never looked up"


def spec_with(endpoints: list[str | None], **workload: Any) -> dict[str, Any]:
    arms = [{"label": f"a{i}", "protocol": "h1c" if (e or "").startswith("http:") else "h2", "connection": "warm",
             "endpoint": e, "ca_bundle": None} for i, e in enumerate(endpoints)]
    return {"arms": arms, "baseline_arm": "a0", "blocks": 1, "seed": 3, "timeout_s": 5,
            "workload": {"kind": "requests", "repetitions": 1, "requests": [{"method": "GET", "path": "/healthz"}],
                         **workload}}


def lease_of(spec: dict[str, Any], pool_kind: str) -> dict[str, Any]:
    return {"run_id": "r1", "lease_token": "t", "attempt": 1, "next_block": 0, "pool_kind": pool_kind, "spec": spec}


REFUSED_ENDPOINTS = ["https://127.0.0.1", "https://10.0.0.1", "https://100.64.0.1", "https://169.254.169.254",
                     "https://[fd00::1]", "https://[::1]", "https://[::ffff:127.0.0.1]", "https://2130706433",
                     "https://0177.0.0.1", "https://internal.example.test", "https://rebind.example.test"]


@pytest.mark.parametrize("endpoint", REFUSED_ENDPOINTS)
def test_a_hosted_lease_refuses_internal_targets_after_its_own_lookup(endpoint, resolver):
    # rebind.example.test: the backend's check at creation saw a public address (its lookup
    # is the first answer); the runner's lookup is the second one.
    resolver.table.update({"internal.example.test": ["10.0.0.1"],
                           "rebind.example.test": [[PUBLIC], ["127.0.0.1"]]})
    resolver.lookups.append("rebind.example.test")  # the backend's lookup at creation
    with pytest.raises(target_policy.TargetRefused) as refused:
        target_policy.pin_targets(lease_of(spec_with([None, endpoint]), "hosted"), configured_hosted=False)
    message = str(refused.value)
    assert message.startswith("arms[1].endpoint: ")
    assert "blocked by hosted-pool policy" in message


def test_every_customer_url_of_the_spec_is_checked(resolver):
    resolver.table.update({"api.example.test": [PUBLIC], "cdn.example.test": ["169.254.169.254"]})
    spec = spec_with(["https://api.example.test"])
    spec["workload"]["requests"].append({"method": "GET", "url": "https://cdn.example.test/x"})
    with pytest.raises(target_policy.TargetRefused, match=r"^workload\.requests\[1\]\.url: cdn\.example\.test "
                                                          r"resolves to 169\.254\.169\.254, a cloud metadata"):
        target_policy.pin_targets(lease_of(spec, "hosted"), configured_hosted=False)
    series = spec_with(["https://api.example.test"])
    series["workload"] = {"kind": "series", "object_paths": ["/a", "https://cdn.example.test/b.jpg"]}
    with pytest.raises(target_policy.TargetRefused, match=r"^workload\.object_paths\[1\]: "):
        target_policy.pin_targets(lease_of(series, "hosted"), configured_hosted=False)


def test_each_host_is_resolved_once_and_pinned(resolver):
    resolver.table.update({"api.example.test": [[PUBLIC], ["10.0.0.1"]], "cdn.example.test": [["2606:4700::1"]]})
    spec = spec_with(["https://api.example.test", "https://API.example.test:8443"])
    spec["workload"]["requests"].append({"method": "GET", "url": "https://cdn.example.test/x"})
    pinned = target_policy.pin_targets(lease_of(spec, "hosted"), configured_hosted=False)
    assert pinned == {"api.example.test": PUBLIC, "cdn.example.test": "2606:4700::1"}
    assert resolver.lookups == ["api.example.test", "cdn.example.test"]


def test_private_pools_reach_internal_targets_unless_the_runner_is_configured_hosted(resolver):
    spec = spec_with(["https://10.0.0.1", "http://internal.example.test"])
    assert target_policy.pin_targets(lease_of(spec, "private"), configured_hosted=False) == {}
    assert resolver.lookups == [], "a private pool's runner resolves as it always does, when it connects"
    # Defence in depth: a hosted host's own config wins over a lease that says private.
    with pytest.raises(target_policy.TargetRefused, match="10.0.0.1 is a private address"):
        target_policy.pin_targets(lease_of(spec, "private"), configured_hosted=True)


def test_the_reference_target_is_the_runners_own_and_is_not_checked(resolver):
    assert target_policy.pin_targets(lease_of(spec_with([None, None]), "hosted"), configured_hosted=True) == {}
    assert resolver.lookups == []


def test_the_hosted_setting_is_a_boolean():
    base = {"server": "https://x.example", "runner_token": "t", "name": "n"}
    assert parse_config({**base, "hosted": True}).hosted is True
    assert parse_config(base).hosted is False
    with pytest.raises(ConfigError, match="hosted: must be true or false"):
        parse_config({**base, "hosted": "yes"})


def test_a_refused_target_fails_the_run_before_anything_is_fetched(backend, resolver):
    """Through the agent and the runner protocol: the run ends `failed` (the spec's target,
    not the lab, is at fault) with the field and the reason, and no block is stored."""
    resolver.table["rebind.example.test"] = ["10.0.0.1"]
    spec = spec_with(["https://rebind.example.test"])
    run_id = backend.enqueue(serial="host-t", spec=spec, pool_kind="hosted")
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        Agent(client, name="t", serial="host-t", driver=HostDriver(UNUSED_TARGET),
              heartbeat_interval_s=60).run_forever(max_runs=1)
    finally:
        client.close()
    finish = backend.wait_finished(run_id, timeout_s=30)
    assert (finish["status"], finish["error_kind"]) == ("failed", "test_failure")
    assert finish["error"].startswith("arms[0].endpoint: rebind.example.test resolves to 10.0.0.1, a private "
                                      "address; blocked by hosted-pool policy")
    assert run_id not in backend.batches
    assert backend.violations == []


def test_a_hosted_host_that_does_not_resolve_is_the_customers_target(backend):
    """Real DNS (the reserved `.invalid` TLD): the customer's target, not the policy, is at
    fault — `target_unreachable`, naming the field and the endpoint."""
    run_id = backend.enqueue(serial="host-t", spec=spec_with(["https://api.typo.invalid"]), pool_kind="hosted")
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        Agent(client, name="t", serial="host-t", driver=HostDriver(UNUSED_TARGET),
              heartbeat_interval_s=60).run_forever(max_runs=1)
    finally:
        client.close()
    finish = backend.wait_finished(run_id, timeout_s=30)
    assert (finish["status"], finish["error_kind"]) == ("failed", "target_unreachable")
    assert finish["error"].startswith("arms[0].endpoint https://api.typo.invalid: cannot resolve api.typo.invalid")
    assert run_id not in backend.batches
    assert backend.violations == []


@pytest.fixture
def name_lookups_fail(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any lookup of a name fails as an unknown name and is recorded; numeric lookups (an
    IP literal, AI_NUMERICHOST) still work: a pinned connection needs no name lookup."""
    real = socket.getaddrinfo
    attempted: list[str] = []

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            socket.inet_pton(socket.AF_INET6 if ":" in str(host) else socket.AF_INET, str(host))
        except OSError:
            attempted.append(str(host))
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return attempted


def test_pinned_connections_go_to_the_checked_address_with_the_name_kept(target_server: TargetProcess,
                                                                         name_lookups_fail):
    """`localhost` is pinned to 127.0.0.1 and may not be looked up again: the probe reaches
    the real target over h1c and TLS (h1, h2) with SNI, certificate name and Host still
    `localhost`, and no request does DNS; the baseline uses the pinned address too."""
    ca = target_server.ca_file.read_text()
    spec = spec_with([f"http://localhost:{target_server.plain_port}", f"https://localhost:{target_server.tls_port}",
                      f"https://localhost:{target_server.tls_port}"])
    spec["arms"][1]["protocol"] = "h1"
    for arm in spec["arms"][1:]:
        arm["ca_bundle"] = ca
    pinned = {"localhost": "127.0.0.1"}
    job = build_job(spec, run_id="r1", block=0, attempt=1, target=UNUSED_TARGET, pinned=pinned)
    assert job["pinned_addresses"] == pinned
    result = execute_job(job)
    assert result["status"] == "ok"
    assert [(s["arm"], s["error_class"], s["status"]) for s in result["samples"]] == [
        (s["arm"], None, 200) for s in result["samples"]]
    assert {s["alpn"] for s in result["samples"]} == {"http/1.1", "h2"}
    assert all(s["dns_start"] is None for s in result["samples"]), "the name was resolved once, at lease time"
    assert name_lookups_fail == []
    assert baseline_origin(spec, UNUSED_TARGET, pinned) == ("127.0.0.1", target_server.plain_port)


def test_without_a_pin_the_probe_looks_the_name_up(target_server: TargetProcess, name_lookups_fail):
    """The control for the test above: the same job without pinned_addresses resolves
    `localhost` itself (which fails here), so the pin is what made the difference."""
    spec = spec_with([f"http://localhost:{target_server.plain_port}"])
    result = execute_job(build_job(spec, run_id="r1", block=0, attempt=1, target=UNUSED_TARGET))
    assert {s["error_class"] for s in result["samples"]} == {"dns"}
    assert "localhost" in name_lookups_fail


@pytest.fixture
def reference(target_server: TargetProcess) -> ReferenceTarget:
    return ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                           str(target_server.ca_file))


def run_on_phone(driver: Any, backend: Any, serial: str, spec: dict[str, Any], pinned: dict[str, str]) -> tuple:
    run_id = backend.enqueue(serial=serial, spec=spec, pool_kind="hosted")
    lease = backend.queue.pop()
    lease["pinned_addresses"] = pinned  # what the agent put there at lease time (tested above)
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        driver.execute(lease, client, threading.Event())
    finally:
        client.close()
    assert backend.violations == []
    return run_id, backend.finishes[run_id]


def pinned_phone_spec(target_server: TargetProcess) -> tuple[dict[str, Any], dict[str, str]]:
    """An h2 arm to `target.latencylab.test` (a name on the target's certificate that
    resolves nowhere): only the pin gets its requests to the target on 127.0.0.1."""
    spec = spec_with([f"https://target.latencylab.test:{target_server.tls_port}"])
    spec["arms"][0]["ca_bundle"] = target_server.ca_file.read_text()
    spec["workload"]["requests"] = [{"method": "GET", "path": "/files/mid-01"}]
    return spec, {"target.latencylab.test": "127.0.0.1"}


@needs_core
def test_the_android_harness_connects_to_the_pinned_address(lab, backend, reference, target_server):
    lab.set(android=[scenario.android_device(PIXEL)])
    spec, pinned = pinned_phone_spec(target_server)
    run_id, finish = run_on_phone(lab.android_driver(reference), backend, PIXEL, spec, pinned)
    assert finish["status"] == "ok", finish
    (batch,) = backend.batches[run_id]
    assert [(s["error_class"], s["status"], s["dns_start"]) for s in batch["samples"]] == [(None, 200, None)]


def test_the_ios_driver_refuses_a_pinned_job(lab, backend, reference, target_server):
    """URLSession would look the name up again: the block is refused before the phone runs it."""
    exchange = JobExchange("127.0.0.1", 0)
    try:
        lab.set(ios=[scenario.ios_device(IPHONE)])
        spec, pinned = pinned_phone_spec(target_server)
        run_id, finish = run_on_phone(lab.ios_driver(reference, exchange), backend, IPHONE, spec, pinned)
    finally:
        exchange.close()
    assert (finish["status"], finish["error_kind"]) == ("failed", "test_failure")
    assert "the ios harness cannot pin a customer host" in finish["error"]
    assert run_id not in backend.batches
