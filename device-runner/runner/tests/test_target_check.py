"""Before a block: every target answers, or its owner is blamed (drivers/target_check.py).
Real DNS (the reserved `.invalid` TLD never resolves), real sockets on loopback and the
real reference target's TLS; the host driver finishes through the recording backend."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.drivers.host import HostDriver
from latencylab_runner.drivers.outcome import BlockFailure
from latencylab_runner.drivers.target_check import check_targets
from latencylab_runner.drivers.targets import ReferenceTarget


def arm(label: str, protocol: str = "h2", endpoint: str | None = None, ca_bundle: str | None = None) -> dict:
    return {"label": label, "protocol": protocol, "connection": "warm", "endpoint": endpoint, "ca_bundle": ca_bundle}


def spec(*arms: dict, workload: dict | None = None) -> dict:
    return {"name": "t", "seed": 1, "blocks": 1, "timeout_s": 10, "baseline_arm": arms[0]["label"],
            "workload": workload or {"kind": "api", "rounds": 1, "calls": 1, "request_bytes": 0, "warmup": 0,
                                     "gap_ms": 0},
            "arms": list(arms)}


@pytest.fixture
def reference(target_server) -> ReferenceTarget:
    return ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                           str(target_server.ca_file))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def silent_tls_port() -> Iterator[int]:
    """Accepts TCP and closes at once: a TLS handshake cannot complete."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()


def failure(spec_: dict, reference: ReferenceTarget) -> BlockFailure:
    with pytest.raises(BlockFailure) as caught:
        check_targets(spec_, reference, timeout_s=3)
    return caught.value


def test_every_target_answering_passes(reference, target_server):
    pem = Path(target_server.ca_file).read_text()
    check_targets(spec(arm("ref"), arm("mine", endpoint=f"https://localhost:{target_server.tls_port}",
                                       ca_bundle=pem)), reference)


def test_a_customer_name_that_does_not_resolve_names_the_arm_and_the_endpoint(reference):
    found = failure(spec(arm("ref"), arm("h2", endpoint="https://api.typo.invalid/v1")), reference)
    assert (found.error_kind, found.status) == ("target_unreachable", "failed")
    assert found.message.startswith("arm 'h2' endpoint https://api.typo.invalid/v1: name does not resolve ("), found


def test_an_h3_customer_endpoint_is_resolved_but_not_connected_over_tcp(reference, closed_port):
    check_targets(spec(arm("h3", "h3", endpoint=f"https://127.0.0.1:{closed_port}")), reference)
    found = failure(spec(arm("h3", "h3", endpoint="https://quic.typo.invalid")), reference)
    assert found.error_kind == "target_unreachable"


def test_a_refused_customer_connection_and_a_failed_tls_handshake(reference, closed_port, silent_tls_port):
    refused = failure(spec(arm("plain", "h1c", endpoint=f"http://127.0.0.1:{closed_port}")), reference)
    assert refused.error_kind == "target_unreachable"
    assert refused.message.startswith(f"arm 'plain' endpoint http://127.0.0.1:{closed_port}: unreachable (")
    tls = failure(spec(arm("tls", endpoint=f"https://127.0.0.1:{silent_tls_port}")), reference)
    assert tls.error_kind == "target_unreachable"
    assert "TLS handshake failed" in tls.message


def test_an_untrusted_certificate_is_the_customers_fault(reference, target_server):
    # The reference target's certificate is signed by its private CA, which the arm does not bring.
    found = failure(spec(arm("mine", endpoint=f"https://localhost:{target_server.tls_port}")), reference)
    assert found.error_kind == "target_unreachable"
    assert "TLS handshake failed (certificate verify failed" in found.message, found.message


def test_an_absolute_workload_url_is_checked_and_named_by_its_field(reference):
    workload = {"kind": "series", "objects": "seed-mid-24", "periods": [1], "repetitions": 1, "warmup": 0,
                "gap_ms": 0, "object_paths": ["/files/mid-01", "https://cdn.typo.invalid/x.jpg"]}
    found = failure(spec(arm("ref"), workload=workload), reference)
    assert found.error_kind == "target_unreachable"
    assert found.message.startswith("workload.object_paths[1] https://cdn.typo.invalid/x.jpg: name does not resolve")


def test_the_reference_target_down_is_the_labs_fault_first(closed_port):
    down = ReferenceTarget("127.0.0.1", closed_port, closed_port, "localhost", None)
    found = failure(spec(arm("h2", endpoint="https://api.typo.invalid/"), arm("ref")), down)
    assert (found.error_kind, found.status) == ("lab_fault", "infra_error")
    assert found.message.startswith(f"the lab's reference target 127.0.0.1:{closed_port} (arm 'ref') unreachable")
    # An emulated link's reference target is the run's own: only the customer's are checked then.
    with pytest.raises(BlockFailure, match="target_unreachable|name does not resolve"):
        check_targets(spec(arm("h2", endpoint="https://api.typo.invalid/"), arm("ref")), down, customers_only=True)


def test_the_host_driver_fails_the_run_naming_the_endpoint_and_stores_nothing(reference, backend):
    run_id = backend.enqueue(serial="host-1", spec=spec(arm("ref"), arm("h2", endpoint="https://api.typo.invalid/")))
    lease = backend.queue.pop()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        HostDriver(reference).execute(lease, client, threading.Event())
    finally:
        client.close()
    finish = backend.finishes[run_id]
    assert (finish["status"], finish["error_kind"]) == ("failed", "target_unreachable")
    assert finish["error"].startswith("arm 'h2' endpoint https://api.typo.invalid/: name does not resolve")
    assert run_id not in backend.batches
    assert backend.violations == []
