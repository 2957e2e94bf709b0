"""Executes one block's planned requests with the host probe and returns its samples.

Each arm keeps one probe session for the block (its connection policy decides what the
session reuses); a planned `new_connection` closes it first. Sessions never outlive a
block, so every block starts from the same state. Failures are samples, not exceptions
(DESIGN §6.5)."""

import threading
import time
from collections.abc import Callable
from typing import Any

from ..probe import Origin, ProbeRequest, open_session
from ..workloads.plan import PlannedRequest, plan_block
from .targets import ArmEndpoint, ReferenceTarget, arm_endpoint


def request_body(size: int) -> bytes:
    """An echo body that carries the client timestamp (seeds/003), padded to size."""
    stamp = f'{{"client_ts_us":{time.time_ns() // 1000},"pad":"'.encode()
    if size <= len(stamp) + 2:
        return stamp[:size]
    return stamp + b"x" * (size - len(stamp) - 2) + b'"}'


def execute_block(
    spec: dict[str, Any],
    *,
    run_id: str,
    block: int,
    target: ReferenceTarget,
    cancelled: threading.Event | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    arms = {arm["label"]: arm for arm in spec["arms"]}
    endpoints: dict[str, ArmEndpoint] = {label: arm_endpoint(arm, target) for label, arm in arms.items()}
    sessions: dict[str, Any] = {}
    plan = plan_block(spec, run_id=run_id, block=block)
    samples: list[dict[str, Any]] = []
    try:
        for seq, planned in enumerate(plan):
            if cancelled is not None and cancelled.is_set():
                break
            if planned.new_connection and planned.arm in sessions:
                sessions.pop(planned.arm).close()
            if planned.arm not in sessions:
                sessions[planned.arm] = _open(arms[planned.arm], endpoints[planned.arm], spec)
            samples.append(_measure(sessions[planned.arm], planned, endpoints[planned.arm], block=block, seq=seq))
            if on_progress is not None and seq % 50 == 0:
                on_progress(seq, len(plan))
            gap_ms = spec["workload"].get("gap_ms", 0)
            if gap_ms:
                time.sleep(gap_ms / 1000)
    finally:
        for session in sessions.values():
            session.close()
    return samples


def _open(arm: dict[str, Any], endpoint: ArmEndpoint, spec: dict[str, Any]) -> Any:
    return open_session(
        protocol=arm["protocol"],
        connection=arm.get("connection", "warm"),
        origin=Origin(scheme=endpoint.scheme, host=endpoint.host, port=endpoint.port,
                      server_name=endpoint.server_name),
        ca_file=endpoint.ca_file,
        ca_pem=endpoint.ca_pem,
        timeout_s=float(spec.get("timeout_s", 30)),
    )


def _measure(session: Any, planned: PlannedRequest, endpoint: ArmEndpoint, *, block: int, seq: int) -> dict[str, Any]:
    body = request_body(planned.body_bytes) if planned.body_bytes else b""
    fields = session.fetch(
        ProbeRequest(method=planned.method, path=endpoint.base_path + planned.path, body=body, op=planned.op,
                     server_delay_ms=planned.server_delay_ms)
    )
    sample = {
        **fields,
        "arm": planned.arm,
        "block": block,
        "seq": seq,
        "phase": planned.phase,
        "period": planned.period,
        "repetition": planned.repetition,
        "step": planned.step,
        "part": planned.part,
    }
    return {k: v for k, v in sample.items() if k != "part" or v is not None}
