"""Turns one block of a leased run into the contract's job document (job.schema.json),
and checks a harness's result document against the job it answers.

The order of requests is the plan's (workloads/plan.py, a pure function of spec, run id
and block), so every harness — the host probe, the Android and iOS apps — replays exactly
the same interleaving. Each arm's origin is where that harness must send it: the
reference target as the device reaches it, or the customer's endpoint (its path prefix
moves into every request's path, since an origin has none)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from latencylab_contract.validation import validate
from latencylab_tools.target.transport import ARM_PROTOCOL_HEADER

from ..drivers.targets import ArmEndpoint, ReferenceTarget, arm_endpoint
from .plan import PlannedRequest, max_parallel, plan_block
from .secrets import substitute_headers

JOB_CONTRACT = "latencylab.job/v1"
RESULT_CONTRACT = "latencylab.result/v1"
MIN_TIMEOUT_MS, MAX_TIMEOUT_MS = 100, 600_000


@cache
def _read_pem(path: str) -> str:
    return Path(path).read_text(encoding="ascii")


def origin_of(endpoint: ArmEndpoint) -> str:
    host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
    return f"{endpoint.scheme}://{host}:{endpoint.port}"


def job_arm(arm: dict[str, Any], endpoint: ArmEndpoint) -> dict[str, Any]:
    pem = endpoint.ca_pem or (_read_pem(endpoint.ca_file) if endpoint.ca_file else None)
    return {
        "label": arm["label"],
        "protocol": arm["protocol"],
        "connection": arm.get("connection", "warm"),
        "origin": origin_of(endpoint),
        # Only when it differs: the reference target behind an IP presents a named certificate.
        "server_name": endpoint.server_name if endpoint.server_name != endpoint.host else None,
        "ca_bundle_pem": pem,
    }


def _absolute(url: str) -> tuple[str, str]:
    """(origin, path and query) of a customer's absolute URL; the contract refuses what
    the spec validator already refused (credentials, other schemes)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    port = parts.port or (80 if scheme == "http" else 443)
    origin = f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"
    return origin, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def job_request(seq: int, planned: PlannedRequest, base_path: str, *,
                reference_arm_protocol: str | None = None) -> dict[str, Any]:
    """`reference_arm_protocol`: the arm's protocol when it goes to the reference target, which
    advertises Alt-Svc only to h3 arms' requests (latencylab_tools' ARM_PROTOCOL_HEADER)."""
    request: dict[str, Any] = {"seq": seq, "arm": planned.arm, "phase": planned.phase, "op": planned.op,
                               "method": planned.method, "path": base_path + planned.path}
    headers = dict(planned.headers or {})
    if planned.url is not None:
        request["origin"], request["path"] = _absolute(planned.url)
    elif reference_arm_protocol is not None:
        headers[ARM_PROTOCOL_HEADER] = reference_arm_protocol
    if headers:
        request["headers"] = headers
    for key in ("name", "body_b64", "expect_status"):
        if getattr(planned, key) is not None:
            request[key] = getattr(planned, key)
    # Optional fields only when set: a 20,000-request job stays a few MB, not tens.
    if planned.body_bytes:
        request["body_bytes"] = planned.body_bytes
    if planned.new_connection:
        request["new_connection"] = True
    for key in ("period", "repetition", "step", "part", "server_delay_ms", "group"):
        value = getattr(planned, key)
        if value is not None:
            request[key] = value
    return request


def build_job(spec: dict[str, Any], *, run_id: str, block: int, attempt: int,
              target: ReferenceTarget, secrets: Mapping[str, str] | None = None,
              pinned: Mapping[str, str] | None = None, readiness: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The validated job document for `block`; raises ContractError if the spec cannot be
    expressed (e.g. a customer endpoint with a path the contract refuses). `secrets` (the
    lease's) replace `{{secret.NAME}}` in header values after validation: the job is then
    for this process's memory only. MissingSecret if a referenced one is not there.
    `pinned` (a hosted run's checked addresses, target_policy.pin_targets) becomes the
    job's pinned_addresses: the harness connects there and nowhere else. `readiness`
    (drivers/readiness.py, phones only) asks the harness to check its network first."""
    endpoints = {arm["label"]: arm_endpoint(arm, target) for arm in spec["arms"]}
    reference_protocols = {arm["label"]: arm["protocol"] for arm in spec["arms"] if not arm.get("endpoint")}
    timeout_ms = int(round(float(spec.get("timeout_s", 30)) * 1000))
    job = {
        "contract": JOB_CONTRACT,
        "run_id": run_id,
        "block": block,
        "attempt": attempt,
        "timeout_ms": min(max(timeout_ms, MIN_TIMEOUT_MS), MAX_TIMEOUT_MS),
        # A request list's think time is the pause after each request, as gap_ms is a series'.
        "gap_ms": int(spec["workload"].get("gap_ms", spec["workload"].get("think_ms", 0))),
        "arms": [job_arm(arm, endpoints[arm["label"]]) for arm in spec["arms"]],
        **({"max_parallel": max_parallel(spec["workload"])} if spec["workload"].get("concurrency") else {}),
        "requests": [job_request(seq, planned, endpoints[planned.arm].base_path,
                                 reference_arm_protocol=reference_protocols.get(planned.arm))
                     for seq, planned in enumerate(plan_block(spec, run_id=run_id, block=block))],
    }
    if pinned:
        job["pinned_addresses"] = dict(pinned)
    if readiness:
        job["readiness"] = dict(readiness)
    validate(job, "job")
    substitute_headers(job, secrets or {})
    return job


def result_problems(job: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Why `result` (already valid against result.schema.json) does not answer `job`:
    another run, block or attempt, or not one sample per planned request in seq order
    with the request's arm and phase. Empty when it does. A harness that failed
    (`status: failed`) may return fewer samples; that is its own verdict, not a mismatch."""
    problems = [f"{key}: {result.get(key)!r} != job's {job[key]!r}" for key in ("run_id", "block", "attempt")
                if result.get(key) != job[key]]
    if result.get("status") != "ok":
        return problems
    samples, requests = result["samples"], job["requests"]
    if len(samples) != len(requests):
        problems.append(f"samples: {len(samples)} for {len(requests)} planned requests (partial result)")
        return problems
    for i, (sample, request) in enumerate(zip(samples, requests, strict=True)):
        for key in ("seq", "arm", "phase"):
            if sample.get(key) != request[key]:
                problems.append(f"samples.{i}.{key}: {sample.get(key)!r}, planned {request[key]!r}")
        if sample.get("block") != job["block"]:
            problems.append(f"samples.{i}.block: {sample.get('block')!r}, planned {job['block']!r}")
        if len(problems) >= 10:
            break
    return problems
