"""Secrets in a leased run: the lease's values replace `{{secret.NAME}}` in the job's
header values in memory (never in the spec), a reference the lease does not carry fails
the run naming it, and nothing that goes back to the server carries a value: samples'
error_detail and the finish report's error are redacted, and the map is dropped when the
run ends."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest

from latencylab_runner.drivers.host import HostDriver, block_batch
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job
from latencylab_runner.workloads.secrets import REDACTED, MissingSecret, redact

UNUSED_TARGET = ReferenceTarget("127.0.0.1", 9, 9, "localhost", None)
VALUE = "Bearer sk-live-abc123"
SPEC = {
    "workload": {"kind": "requests", "repetitions": 1, "warmup": 0, "think_ms": 0, "requests": [
        {"name": "me", "method": "GET", "url": None, "path": "/me", "body": None, "body_b64": None,
         "body_bytes": None, "expect_status": None,
         "headers": {"authorization": "{{secret.API_TOKEN}}", "x-pair": "{{secret.API_TOKEN}}/{{secret.TENANT}}",
                     "accept": "*/*"}}]},
    "arms": [{"label": "a", "protocol": "h2", "endpoint": "https://api.example.com"}],
    "blocks": 1, "seed": 1, "timeout_s": 5,
}


def test_the_job_carries_the_values_and_the_spec_keeps_the_placeholders():
    spec = copy.deepcopy(SPEC)
    job = build_job(spec, run_id="r", block=0, attempt=1, target=UNUSED_TARGET,
                    secrets={"API_TOKEN": VALUE, "TENANT": "t-1", "UNUSED": "x"})
    assert job["requests"][0]["headers"] == {"authorization": VALUE, "x-pair": f"{VALUE}/t-1", "accept": "*/*"}
    assert spec == SPEC


def test_a_reference_the_lease_does_not_carry_fails_naming_it():
    with pytest.raises(MissingSecret, match=r"secret\.TENANT"):
        build_job(copy.deepcopy(SPEC), run_id="r", block=0, attempt=1, target=UNUSED_TARGET,
                  secrets={"API_TOKEN": VALUE})
    with pytest.raises(MissingSecret):  # a phone driver passes none: never the placeholder on the wire
        build_job(copy.deepcopy(SPEC), run_id="r", block=0, attempt=1, target=UNUSED_TARGET)


def test_values_are_redacted_from_uploads_longest_first():
    secrets = {"A": "abc", "B": "abcdef"}
    assert redact("x abcdef y abc", secrets) == f"x {REDACTED} y {REDACTED}"
    lease = {"lease_token": "t", "attempt": 1, "secrets": {"API_TOKEN": VALUE}}
    result = {"samples": [{"error_detail": f"server said: bad token {VALUE}"}, {"error_detail": None}, {}]}
    batch = block_batch(lease, 0, result)
    assert batch["samples"][0]["error_detail"] == f"server said: bad token {REDACTED}"
    assert VALUE not in repr(batch)


class FailingClient:
    def __init__(self) -> None:
        self.finished: list[dict[str, Any]] = []

    def finish(self, run_id: str, report: dict[str, Any]) -> None:
        self.finished.append(report)


def test_the_finish_report_is_redacted_and_the_map_dropped(monkeypatch):
    driver = HostDriver(UNUSED_TARGET)

    def explode(*_: Any) -> Any:
        raise RuntimeError(f"the block worker echoed {VALUE}")

    monkeypatch.setattr(driver, "_run_blocks", explode)
    lease = {"run_id": "r", "lease_token": "t", "attempt": 1, "next_block": 0, "spec": copy.deepcopy(SPEC),
             "secrets": {"API_TOKEN": VALUE, "TENANT": "t-1"}}
    client = FailingClient()
    driver.execute(lease, client, threading.Event())  # type: ignore[arg-type]
    assert client.finished[0]["status"] == "infra_error"
    assert VALUE not in client.finished[0]["error"]
    assert REDACTED in client.finished[0]["error"]
    assert "secrets" not in lease


def test_a_missing_secret_fails_the_run_without_a_retry():
    driver = HostDriver(UNUSED_TARGET)
    lease = {"run_id": "r", "lease_token": "t", "attempt": 1, "next_block": 0, "spec": copy.deepcopy(SPEC),
             "secrets": {"API_TOKEN": VALUE}}
    client = FailingClient()
    driver.execute(lease, client, threading.Event())  # type: ignore[arg-type]
    report = client.finished[0]
    assert (report["status"], report["error_kind"]) == ("failed", "test_failure")
    assert "secret.TENANT" in report["error"]
