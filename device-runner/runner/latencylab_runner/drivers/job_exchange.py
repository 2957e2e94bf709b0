"""Hands job documents to iPhones and takes their results back over the lab network.

An XCTest on a phone cannot read a path on the Mac, and a job of 20,000 requests cannot
travel in an environment variable: so the runner serves each block's job at an
unguessable URL on the lab address (`GET /jobs/<token>.json`), passes the URL as
TEST_RUNNER_LATENCYLAB_JOB, and accepts the result document at
`PUT /results/<token>.json` (TEST_RUNNER_LATENCYLAB_RESULT). Before a run the `ios preflight`
lane has the phone ask `GET /probe/<token>.json` (TEST_RUNNER_LATENCYLAB_PROBE): that request
arriving here is what proves the phone is on the lab network and allowed on it (iOS's Local
Network permission). It listens only on the address the lab config names, and answers only
the tokens of blocks and preflights in progress."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAX_RESULT_BYTES = 256 * 1024 * 1024  # 20,000 samples are ~20 MB; far above it is not a result


@dataclass(frozen=True)
class Exchange:
    token: str
    job_url: str
    result_url: str


@dataclass(frozen=True)
class Probe:
    token: str
    url: str


class JobExchange:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, advertise: str | None = None):
        self._jobs: dict[str, tuple[Path, Path]] = {}
        self._probes: dict[str, bool] = {}  # token → whether a phone asked for it
        self._lock = threading.Lock()
        exchange = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # the runner's log has the block's story
                pass

            def _entry(self, prefix: str) -> tuple[Path, Path] | None:
                if not (self.path.startswith(prefix) and self.path.endswith(".json")):
                    return None
                with exchange._lock:
                    return exchange._jobs.get(self.path[len(prefix):-len(".json")])

            def do_GET(self) -> None:
                if self._probed():
                    self.send_response(204)
                    self.end_headers()
                    return
                entry = self._entry("/jobs/")
                if entry is None:
                    self.send_error(404)
                    return
                data = entry[0].read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _probed(self) -> bool:
                if not (self.path.startswith("/probe/") and self.path.endswith(".json")):
                    return False
                token = self.path[len("/probe/"):-len(".json")]
                with exchange._lock:
                    if token not in exchange._probes:
                        return False
                    exchange._probes[token] = True
                return True

            def do_PUT(self) -> None:
                entry = self._entry("/results/")
                length = int(self.headers.get("Content-Length") or 0)
                if entry is None:
                    self.send_error(404)
                    return
                if length > MAX_RESULT_BYTES:
                    self.send_error(413)
                    return
                body = self.rfile.read(length)
                tmp = entry[1].with_name(entry[1].name + ".part")
                tmp.write_bytes(body)
                tmp.replace(entry[1])
                self.send_response(204)
                self.end_headers()

            do_POST = do_PUT

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.host = advertise or host
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="job-exchange", daemon=True)
        self._thread.start()

    def offer(self, job_path: Path, result_path: Path) -> Exchange:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._jobs[token] = (job_path, result_path)
        base = f"http://{self.host}:{self.port}"
        return Exchange(token, f"{base}/jobs/{token}.json", f"{base}/results/{token}.json")

    def probe(self) -> Probe:
        """A URL for one preflight: the phone's GET of it is recorded (probed)."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._probes[token] = False
        return Probe(token, f"http://{self.host}:{self.port}/probe/{token}.json")

    def probed(self, probe: Probe) -> bool:
        with self._lock:
            return self._probes.get(probe.token, False)

    def withdraw_probe(self, probe: Probe) -> None:
        with self._lock:
            self._probes.pop(probe.token, None)

    def withdraw(self, exchange: Exchange) -> None:
        with self._lock:
            self._jobs.pop(exchange.token, None)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
