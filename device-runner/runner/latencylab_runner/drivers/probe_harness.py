"""The host harness: the built-in probe executes a job document and returns a result
document, exactly as the Android and iOS harness apps do on a phone.

Each arm keeps one probe session for the block (its connection policy decides what the
session reuses); a planned `new_connection` closes it first. Sessions never outlive a
block, so every block starts from the same state. Failures are samples, not exceptions
(docs/methodology.md §4).

Each sample's `issued_mono_us` is its t0 on time.monotonic_ns, made µs since the block
began (the probe stamps the clock's own reading); a job's `readiness` check runs first
(readiness_check.py) and a failed one refuses the block (`not_ready`, no samples)."""

from __future__ import annotations

import base64
import platform
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from latencylab_tools.probe import Origin, ProbeRequest, open_session

from .. import __version__
from ..workloads.job import RESULT_CONTRACT
from .concurrent_batch import run_group
from .readiness_check import readiness_check
from .server_stacks import library_version, server_header_list

# The library under each protocol's client in the probe (probe/session.py; HTTP/3 is the
# native latencylab-h3-probe, whose quic-go version server_stacks.library_version knows).
_PROTOCOL_LIBRARY = {"h1c": "h11", "h1": "h11", "h2": "h2", "grpc": "h2", "h3": "quic-go"}


def request_body(size: int) -> bytes:
    """An echo body that carries the client timestamp (seeds/003), padded to size."""
    stamp = f'{{"client_ts_us":{time.time_ns() // 1000},"pad":"'.encode()
    if size <= len(stamp) + 2:
        return stamp[:size]
    return stamp + b"x" * (size - len(stamp) - 2) + b'"}'


def client_stacks(protocols: set[str]) -> dict[str, str]:
    stacks = {}
    for protocol in sorted(protocols):
        library = _PROTOCOL_LIBRARY[protocol]
        stacks[protocol] = f"latencylab-probe {__version__} ({library} {library_version(library)})"
    return stacks


def host_fingerprint(protocols: set[str] | None = None) -> dict[str, Any]:
    clock = time.get_clock_info("perf_counter")
    return {
        "platform": "host",
        "model": f"{platform.system()} {platform.machine()}",
        "os_version": platform.release(),
        "harness_version": f"latencylab-runner {__version__} (python {platform.python_version()})",
        "radio": "loopback/ethernet",
        "battery": None,
        "temperature": None,
        "clock_source": "time.perf_counter_ns",
        "clock_resolution_us": clock.resolution * 1e6,
        "client_stacks": client_stacks(protocols if protocols is not None else set(_PROTOCOL_LIBRARY)),
    }


def arm_origin(arm: dict[str, Any], pinned: dict[str, str] | None = None) -> Origin:
    """Where the arm's connections go. A host in `pinned` (a hosted run's checked address,
    job `pinned_addresses`) is connected to at that address only, never looked up again;
    SNI, certificate name and Host stay the host's name."""
    url = urlsplit(arm["origin"])
    if url.hostname is None or url.port is None:
        raise ValueError(f"arm {arm['label']!r}: origin {arm['origin']!r} needs a host and a port")
    address = (pinned or {}).get(url.hostname)
    if address is not None:
        return Origin(scheme=url.scheme, host=address, port=url.port,
                      server_name=arm.get("server_name") or url.hostname)
    return Origin(scheme=url.scheme, host=url.hostname, port=url.port, server_name=arm.get("server_name"))


def _arm_at(arm: dict[str, Any], origin: str) -> dict[str, Any]:
    """The arm sending to `origin`: its server_name names its own origin only (a request's
    absolute URL is checked against that URL's host)."""
    return arm if origin == arm["origin"] else {**arm, "origin": origin, "server_name": None}


def execute_job(job: dict[str, Any], *, cancelled: threading.Event | None = None,
                on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run every request of the (validated) job in seq order; the result document.

    A cancelled block returns the samples so far with status `failed`: the driver
    uploads nothing of it."""
    arms = {arm["label"]: arm for arm in job["arms"]}
    # (arm, origin, n): the arm's n-th connection to an origin. A customer's absolute URL has
    # its own origin, hence its own sessions; n > 0 only for HTTP/1.1 concurrency groups.
    sessions: dict[tuple[str, str, int], Any] = {}
    # arm label → the Server headers its closed sessions saw (None: a client that cannot read them).
    servers: dict[str, list[str] | None] = {}

    def close(key: tuple[str, str, int]) -> None:
        session = sessions.pop(key)
        session.close()
        servers[key[0]] = _seen_servers(servers.get(key[0]), session.server_headers)

    def lane(arm: dict[str, Any], origin: str, n: int) -> Any:
        key = (arm["label"], origin, n)
        if key not in sessions:
            sessions[key] = open_session(protocol=arm["protocol"], connection=arm["connection"],
                                         origin=arm_origin(_arm_at(arm, origin), job.get("pinned_addresses")),
                                         ca_pem=arm.get("ca_bundle_pem"), timeout_s=timeout_s)
        return sessions[key]

    samples: list[dict[str, Any]] = []
    total = len(job["requests"])
    timeout_s = job["timeout_ms"] / 1000
    gap_s = job.get("gap_ms", 0) / 1000
    error = None
    readiness = readiness_check(job["readiness"]) if job.get("readiness") else None
    if readiness is not None and readiness["error"]:
        return _document(job, "not_ready", [], host_fingerprint({arm["protocol"] for arm in job["arms"]}),
                         readiness, readiness["error"])
    # The block's start on the monotonic clock: every sample's issue time is µs after it.
    block_start_us = time.monotonic_ns() // 1000
    try:
        requests = job["requests"]
        index = 0
        while index < total:
            if cancelled is not None and cancelled.is_set():
                error = f"cancelled after {index} of {total} requests"
                break
            request = requests[index]
            arm = arms[request["arm"]]
            if request.get("new_connection"):
                for open_key in [k for k in sessions if k[0] == arm["label"]]:
                    close(open_key)
            group = _group_at(requests, index)
            if len(group) == 1:
                samples.append(_measure(lane(arm, request.get("origin", arm["origin"]), 0), request,
                                        block=job["block"], block_start_us=block_start_us))
            else:
                samples.extend(_measure_group(arm, group, lane, max_parallel=job.get("max_parallel", 6),
                                              block=job["block"], block_start_us=block_start_us))
            if on_progress is not None and (index - 1) // 50 != (index + len(group) - 1) // 50:
                on_progress(index, total)
            index += len(group)
            if gap_s:
                time.sleep(gap_s)
    finally:
        for open_key in list(sessions):
            close(open_key)
    fingerprint = host_fingerprint({arm["protocol"] for arm in job["arms"]})
    # Which server answered each arm; the runner adds whether it was its reference target (server_stacks.py).
    fingerprint["server_stacks"] = {label: {"server_headers": server_header_list(headers)}
                                    for label, headers in servers.items()}
    return _document(job, "failed" if error else "ok", samples, fingerprint, readiness, error)


def _document(job: dict[str, Any], status: str, samples: list[dict[str, Any]], fingerprint: dict[str, Any],
              readiness: dict[str, Any] | None, error: str | None) -> dict[str, Any]:
    document = {
        "contract": RESULT_CONTRACT,
        "run_id": job["run_id"],
        "block": job["block"],
        "attempt": job["attempt"],
        "status": status,
        "samples": samples,
        "fingerprint": fingerprint,
        "baseline": None,
        "error": error,
    }
    if readiness is not None:
        document["readiness"] = readiness
    return document


def _seen_servers(before: list[str] | None, session: list[str] | None) -> list[str] | None:
    """An arm's Server headers over its sessions; None only while no session could read them."""
    if before is None and session is None:
        return None
    return [*(before or []), *(h for h in session or [] if h not in (before or []))]


def job_body(request: dict[str, Any]) -> bytes:
    """The customer's own bytes (body_b64), else a generated body of body_bytes, else none."""
    if request.get("body_b64") is not None:
        return base64.b64decode(request["body_b64"])
    size = request.get("body_bytes", 0)
    return request_body(size) if size else b""


def judge_status(fields: dict[str, Any], expect_status: int | None) -> None:
    """With an expected status, that status is the success and any other one an `http`
    error sample; without one the probe's rule stands (≥ 400 is an error)."""
    if expect_status is None or fields["error_class"] not in (None, "http") or fields.get("status") is None:
        return
    if fields["status"] == expect_status:
        fields.update(error_class=None, error_detail=None)
    else:
        fields.update(error_class="http", error_detail=f"HTTP {fields['status']}, expected {expect_status}")


def _group_at(requests: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """The request at `index` and the ones after it issued concurrently with it: the
    consecutive requests of the same arm with the same `group`."""
    first = requests[index]
    if first.get("group") is None:
        return [first]
    end = index + 1
    while (end < len(requests) and requests[end].get("group") == first["group"]
           and requests[end]["arm"] == first["arm"] and requests[end]["phase"] == first["phase"]):
        end += 1
    return requests[index:end]


def probe_request(request: dict[str, Any]) -> ProbeRequest:
    return ProbeRequest(method=request["method"], path=request["path"], body=job_body(request), op=request["op"],
                        server_delay_ms=request.get("server_delay_ms"),
                        headers=tuple((request.get("headers") or {}).items()))


def _measure_group(arm: dict[str, Any], group: list[dict[str, Any]], lane: Callable[[dict[str, Any], str, int], Any],
                   *, max_parallel: int, block: int, block_start_us: int) -> list[dict[str, Any]]:
    issued = [(request.get("origin", arm["origin"]), probe_request(request)) for request in group]
    all_fields = run_group(arm["protocol"], issued, max_parallel=max_parallel,
                           lane=lambda origin, n: lane(arm, origin, n))
    # Each sample carries its own in_flight (concurrent_batch.py): requests of the arm in flight when issued.
    return [_sample(fields, request, block=block, block_start_us=block_start_us)
            for request, fields in zip(group, all_fields, strict=True)]


def _measure(session: Any, request: dict[str, Any], *, block: int, block_start_us: int) -> dict[str, Any]:
    # Issued alone: the only request of its arm in flight.
    return _sample({**session.fetch(probe_request(request)), "in_flight": 1}, request, block=block,
                   block_start_us=block_start_us)


def _sample(fields: dict[str, Any], request: dict[str, Any], *, block: int, block_start_us: int) -> dict[str, Any]:
    judge_status(fields, request.get("expect_status"))
    issued = fields.get("issued_mono_us")
    sample = {**fields, "arm": request["arm"], "block": block, "seq": request["seq"], "phase": request["phase"],
              "period": request.get("period"), "repetition": request.get("repetition"), "step": request.get("step"),
              # The probe stamps the monotonic clock's own reading; the contract counts from the block's start.
              "issued_mono_us": None if issued is None else max(0, issued - block_start_us)}
    if request.get("part") is not None:
        sample["part"] = request["part"]
    return sample
