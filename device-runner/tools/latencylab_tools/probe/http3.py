"""HTTP/3 client: quic-go in a native process (native/cmd/latencylab-h3-probe), one per
session, driven over a pipe with one JSON line per batch of requests.

Why not aioquic in this process: over an emulated 95 ms RTT link its per-packet CPU cost
made a warm 309 KB HTTP/3 fetch take 148–241 ms where HTTP/1.1 and a quic-go client take
~100 ms (docs/methodology.md, "Peers"). The native client stamps every phase on its own
monotonic clock relative to each request's t0, so the pipe's latency is never measured;
this module maps its answer onto the sample contract.
"""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from ..native import native_program
from .sample import Timeline, parse_server_timing
from .types import Origin, ProbeFailure, ProbeRequest

PROGRAM = "latencylab-h3-probe"
# How long past a batch's deadline the native client may take to answer (it enforces the
# deadline itself; this only catches a wedged process).
ANSWER_GRACE_S = 5.0


@dataclass
class Outcome:
    """One request's answer: its timeline filled in, and its body when it was kept."""

    tl: Timeline
    body: bytes | None
    failure: ProbeFailure | None


class H3Client:
    """One native client process for one origin; at most one QUIC connection at a time,
    kept between batches when the caller asks (warm policy) and the batch was clean."""

    def __init__(self, origin: Origin, ca_file: str | None, ca_pem: str | None):
        self.origin = origin
        self._ca_pem_file: str | None = None
        if ca_pem and not ca_file:
            # The native client reads trust from a file; this one lives as long as the client.
            fd, self._ca_pem_file = tempfile.mkstemp(prefix="latencylab-ca-", suffix=".pem")
            with os.fdopen(fd, "w") as f:
                f.write(ca_pem)
            ca_file = self._ca_pem_file
        self._argv = [native_program(PROGRAM), "--host", origin.host.strip("[]"), "--port", str(origin.port),
                      "--server-name", origin.tls_name, "--authority", origin.authority]
        if ca_file:
            self._argv += ["--ca-file", ca_file]
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()  # the native client's messages, for failure details
        self.conn_id: str | None = None  # the open connection's id, if one is kept

    def run(self, requests: list[ProbeRequest], timelines: list[Timeline], deadline: float, *,
            new_connection: bool, use_ticket: bool, keep: bool, keep_body: bool) -> list[Outcome]:
        """Issues the batch (one request: a plain fetch; several: concurrent streams on one
        connection). Never raises ProbeFailure: failures come back per request."""
        command = {
            "requests": [{"method": r.method, "path": r.path, "headers": [list(h) for h in r.headers],
                          "body": base64.b64encode(r.body).decode()} for r in requests],
            "new_connection": new_connection, "use_ticket": use_ticket, "keep": keep,
            "timeout_ms": max(1, int((deadline - time.monotonic()) * 1000)), "keep_body": keep_body,
        }
        try:
            answer = self._ask(command, deadline + ANSWER_GRACE_S)
        except ProbeFailure as e:
            self.conn_id = None
            return [Outcome(tl, None, e) for tl in timelines]
        conn = answer["conn"]
        self.conn_id = conn["id"] if conn.get("open") else None
        # The batch starts at its first timeline on this process's monotonic clock; the native
        # client says when it issued each request after that one, on its own.
        batch_start = timelines[0].fields["issued_mono_us"]
        return [self._outcome(tl, req, res, conn, batch_start)
                for tl, req, res in zip(timelines, requests, answer["results"], strict=True)]

    @staticmethod
    def _outcome(tl: Timeline, req: ProbeRequest, res: dict[str, Any], conn: dict[str, Any],
                 batch_start_mono_us: int) -> Outcome:
        f = tl.fields
        tl.wall_time_us = res["wall_time_us"]
        f.update(res["times"], wall_time=res["wall_time_us"], t0=0, req_bytes=len(req.body))
        if res.get("issued_us") is not None:  # a native client built before it sends none: the timeline's own
            f["issued_mono_us"] = batch_start_mono_us + res["issued_us"]
        if conn.get("id"):
            first_on_new = not res["conn_reused"]
            f.update(conn_id=conn["id"], conn_reused=res["conn_reused"], alpn=conn["alpn"], tls_version="TLSv1.3",
                     tls_resumed=conn["tls_resumed"], early_data=conn["early_data"] if first_on_new else False,
                     srtt_us=conn["srtt_us"], retrans=conn["retrans"])
        else:
            f["conn_reused"] = False  # the connection was never opened
        f.update(status=res["status"], resp_bytes=res["resp_bytes"],
                 server_time_us=parse_server_timing(res["server_timing"]))
        tl.server_header = res["server"]
        failure = ProbeFailure(res["error_class"], res["error_detail"] or "") if res["error_class"] else None
        body = base64.b64decode(res["body"]) if res.get("body") else (b"" if failure is None else None)
        return Outcome(tl, body, failure)

    def _ask(self, command: dict[str, Any], answer_by: float) -> dict[str, Any]:
        proc = self._process()
        if proc.stdin is None or proc.stdout is None:
            raise RuntimeError("native client without pipes")
        try:
            proc.stdin.write(json.dumps(command).encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError as e:
            self._stop()
            raise ProbeFailure("other", f"{PROGRAM} exited: {self._stderr_tail()}") from e
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, answer_by - time.monotonic()))
        line = proc.stdout.readline() if ready else b""
        if not line:
            timed_out = not ready
            self._stop()
            if timed_out:
                raise ProbeFailure("timeout", f"{PROGRAM} did not answer before the deadline")
            raise ProbeFailure("other", f"{PROGRAM} exited: {self._stderr_tail()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._stderr.seek(0)
            self._stderr.truncate()
            self._proc = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr)
        return self._proc

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-500:].decode(errors="replace").strip() or "no message"

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        self.conn_id = None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(2)
        if proc.stdout is not None:
            proc.stdout.close()

    def close(self) -> None:
        self._stop()
        self._stderr.close()
        if self._ca_pem_file:
            os.unlink(self._ca_pem_file)
            self._ca_pem_file = None
