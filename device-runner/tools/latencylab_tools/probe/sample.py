"""Per-request timeline and the sample fields the probe fills (sample.schema.json minus
the driver's context fields: arm, block, period, repetition, seq, step, phase).

`issued_mono_us` is filled with t0 on time.monotonic_ns, in µs from that clock's own origin:
the probe knows no block, so the host harness (the runner's probe_harness.py) makes it µs
since the block began, as the contract has it."""

from __future__ import annotations

import time
from typing import Any

from .types import ProbeRequest

TIMESTAMP_FIELDS = (
    "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready", "req_start", "req_end",
    "resp_first_byte", "resp_headers_end", "resp_end", "app_done",
)
CONTEXT_FIELDS = (
    "conn_id", "conn_reused", "alpn", "tls_version", "tls_resumed", "early_data", "req_bytes", "resp_bytes",
    "status", "server_delay_ms", "server_time_us", "srtt_us", "retrans", "error_class", "error_detail",
)
MAX_DETAIL = 1000


class Timeline:
    """Integer µs offsets from t0 on perf_counter_ns (monotonic, ns resolution)."""

    __slots__ = ("t0_ns", "wall_time_us", "fields", "server_header")

    def __init__(self, request: ProbeRequest):
        self.fields: dict[str, Any] = dict.fromkeys(TIMESTAMP_FIELDS + CONTEXT_FIELDS)
        # t0 on the monotonic clock the contract names (perf_counter's may differ by platform);
        # taken first, next to perf_counter below: both mark the same instant to within ~100 ns.
        self.fields["issued_mono_us"] = time.monotonic_ns() // 1000
        # The response's `Server` header: which server answered (the run's fingerprint
        # records it per arm, not each sample). None when absent or not read.
        self.server_header: str | None = None
        self.fields.update(op=request.op, path=request.path[:512], server_delay_ms=request.server_delay_ms)
        self.wall_time_us = time.time_ns() // 1000
        self.t0_ns = time.perf_counter_ns()
        self.fields.update(wall_time=self.wall_time_us, t0=0)

    def at(self, ns: int) -> int:
        return max(0, (ns - self.t0_ns) // 1000)

    def mark(self, name: str, ns: int | None = None) -> int:
        value = self.at(time.perf_counter_ns() if ns is None else ns)
        self.fields[name] = value
        return value

    def mark_once(self, name: str, ns: int | None = None) -> None:
        if self.fields[name] is None:
            self.mark(name, ns)

    def fail(self, error_class: str, detail: str) -> None:
        self.fields["error_class"] = error_class
        self.fields["error_detail"] = detail[:MAX_DETAIL]


def parse_server_timing(value: str | None) -> int | None:
    """`app;dur=1.234` (ms) → 1234 µs. Takes the first metric with a dur."""
    if not value:
        return None
    for metric in value.split(","):
        for param in metric.split(";")[1:]:
            key, _, raw = param.strip().partition("=")
            if key.strip().lower() == "dur":
                try:
                    return max(0, round(float(raw.strip().strip('"')) * 1000))
                except ValueError:
                    return None
    return None
