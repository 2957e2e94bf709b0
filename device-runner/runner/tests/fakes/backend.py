"""A recording runner-protocol server for the runner's tests: the backend's side of
contract/README.md ("Runner protocol", "Device farm additions"), checking every request
the runner sends against the README's shapes and answering as the README says. It keeps
what it was sent so a test can assert on uploads, finishes and artifacts; any request
that breaks the contract is answered 400 and listed in `violations`.

Runs are queued per device serial; `lease` hands a queued run to a listed free device."""

from __future__ import annotations

import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from latencylab_contract import columnar, error_kinds

DEVICE_KEYS = {"serial", "platform", "model", "os_version", "capabilities", "state", "reason", "battery", "charging",
               "temperature", "thermal_status", "fingerprint"}
STATES = {"available", "busy", "not_ready", "unauthorized", "offline"}
# What a runner may report with each status: the contract's table of error kinds.
ERROR_KINDS = {kind: row["status"] for kind, row in error_kinds().items() if row["runner_reports"]}
ARTIFACT_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
ARTIFACT_MAX = 2 * 1024 * 1024


class RecordingBackend:
    def __init__(self, runner_token: str = "llr_test", enrollment_token: str = "enroll-test"):
        self.runner_token = runner_token
        self.enrollment_token = enrollment_token
        self.lock = threading.Condition()
        self.hellos: list[dict[str, Any]] = []
        self.heartbeats: list[dict[str, Any]] = []
        self.leases_asked: list[dict[str, Any]] = []
        self.batches: dict[str, list[dict[str, Any]]] = {}
        self.finishes: dict[str, dict[str, Any]] = {}
        self.artifacts: dict[str, list[dict[str, Any]]] = {}
        self.registrations: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.queue: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.register_answer: tuple[int, dict[str, Any]] | None = None
        self.quarantined: set[str] = set()  # serials the backend answers as quarantined
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test side -----------------------------------------------------------
    def enqueue(self, *, serial: str, spec: dict[str, Any], network_profile: dict[str, Any] | None = None,
                next_block: int = 0, attempt: int = 1, pool_kind: str = "private") -> str:
        run_id = str(uuid.uuid4())
        with self.lock:
            self.queue.append({"run_id": run_id, "lease_token": uuid.uuid4().hex, "attempt": attempt,
                               "next_block": next_block, "device_serial": serial,
                               "lease_expires_at": "2030-01-01T00:00:00Z",
                               "network_profile": network_profile or {"name": "none"}, "pool_kind": pool_kind,
                               "spec": spec})
        return run_id

    def wait_finished(self, run_id: str, timeout_s: float = 120.0) -> dict[str, Any]:
        with self.lock:
            if not self.lock.wait_for(lambda: run_id in self.finishes, timeout=timeout_s):
                raise TimeoutError(f"run {run_id} was not finished within {timeout_s} s; violations: "
                                   f"{self.violations}")
            return self.finishes[run_id]

    # -- server side -----------------------------------------------------------
    def _check(self, condition: bool, message: str) -> None:
        if not condition:
            self.violations.append(message)
            raise ValueError(message)

    def _check_device(self, where: str, device: Any) -> None:
        self._check(isinstance(device, dict) and DEVICE_KEYS <= set(device),
                    f"{where}: descriptor lacks {sorted(DEVICE_KEYS - set(device or {}))}")
        self._check(device["state"] in STATES, f"{where}.state: {device['state']!r} not in {sorted(STATES)}")
        self._check(device["platform"] in ("host", "android", "ios"), f"{where}.platform: {device['platform']!r}")
        if device["state"] in ("not_ready", "unauthorized", "offline"):
            self._check(bool(device["reason"]), f"{where}.reason: a {device['state']} device must say why")

    def _effective(self, device: dict[str, Any]) -> dict[str, Any]:
        if device["serial"] in self.quarantined:
            return {"state": "quarantined", "reason": "3 consecutive infrastructure failures"}
        return {"state": device.get("state", "available"), "reason": device.get("reason") or ""}

    def handle(self, method: str, path: str, headers: Any, body: bytes) -> tuple[int, Any]:
        prefix = "/api/runner/v1"
        self._check(path.startswith(prefix), f"{path}: not under {prefix}")
        path = path[len(prefix):]
        if path == "/register":
            self._check(headers.get("Authorization") == f"Enroll {self.enrollment_token}",
                        f"register: Authorization {headers.get('Authorization')!r}")
            doc = json.loads(body)
            self._check(set(doc) == {"name", "hostname", "version", "drivers"}, f"register body keys {sorted(doc)}")
            with self.lock:
                self.registrations.append(doc)
            if self.register_answer:
                return self.register_answer
            return 201, {"runner_id": str(uuid.uuid4()), "runner_token": self.runner_token, "pool": "lab-a"}
        if headers.get("Authorization") != f"Runner {self.runner_token}":
            return 401, {"detail": "Invalid runner token."}
        if path == "/artifacts" or path.endswith("/artifacts"):
            return self._artifact(path, headers, body)
        # A block's samples come as columns (the runner's default) or as JSON.
        doc = columnar.decode(body) if headers.get("Content-Type") == columnar.MEDIA_TYPE else json.loads(body)
        if path == "/hello":
            runner = doc["runner"]
            self._check({"name", "version", "drivers", "hostname"} <= set(runner),
                        f"hello.runner keys {sorted(runner)}")
            for i, device in enumerate(doc["devices"]):
                self._check_device(f"hello.devices.{i}", device)
            with self.lock:
                self.hellos.append(doc)
                self.lock.notify_all()
            return 200, {"runner_id": "r-1", "heartbeat_interval_s": 10, "lease_wait_s": 25,
                         "devices": [{"serial": d["serial"], "id": d["serial"], **self._effective(d)}
                                     for d in doc["devices"]]}
        if path == "/heartbeat":
            for i, device in enumerate(doc["devices"]):
                self._check_device(f"heartbeat.devices.{i}", device)
            with self.lock:
                self.heartbeats.append(doc)
                commands, self.commands = self.commands, []
                self.lock.notify_all()
            return 200, {"commands": commands, "lease_expires_at": "2030-01-01T00:00:00Z",
                         "devices": [{"serial": d["serial"], **self._effective(d)} for d in doc["devices"]]}
        if path == "/lease":
            self._check(set(doc) == {"devices", "wait_s"} and 0 <= doc["wait_s"] <= 25, f"lease body {doc}")
            with self.lock:
                self.leases_asked.append(doc)
                runs = [r for r in self.queue if r["device_serial"] in doc["devices"]]
                taken: set[str] = set()
                runs = [r for r in runs if not (r["device_serial"] in taken or taken.add(r["device_serial"]))]
                for run in runs:
                    self.queue.remove(run)
                if not runs:
                    self.lock.wait(timeout=min(doc["wait_s"], 0.5))
                    return 204, None
            return 200, {"runs": runs}
        match = re.fullmatch(r"/runs/([^/]+)/(samples|finish)", path)
        self._check(match is not None, f"unknown path {path}")
        assert match is not None
        run_id, what = match.groups()
        if what == "samples":
            self._check(set(doc) == {"lease_token", "attempt", "batch_seq", "block", "baseline", "samples"},
                        f"samples body keys {sorted(doc)}")
            self._check(doc["batch_seq"] == doc["block"], "samples: batch_seq must be the block")
            self._check(len(doc["samples"]) <= 20000, "samples: at most 20,000")
            self._check(all(s["block"] == doc["block"] for s in doc["samples"]), "samples: block mismatch")
            with self.lock:
                self.batches.setdefault(run_id, []).append(doc)
            return 200, {"stored": len(doc["samples"]), "duplicate": False, "next_block": doc["block"] + 1}
        self._check({"lease_token", "status", "fingerprint", "link"} <= set(doc), f"finish keys {sorted(doc)}")
        self._check(doc["status"] in ("ok", "failed", "infra_error"), f"finish.status {doc['status']!r}")
        kind = doc.get("error_kind")
        if doc["status"] == "ok":
            self._check(kind is None, f"finish: an ok run has no error_kind, got {kind!r}")
        else:
            self._check(kind in ERROR_KINDS and ERROR_KINDS[kind] == doc["status"],
                        f"finish: error_kind {kind!r} with status {doc['status']!r}")
            self._check(bool(doc.get("error")), "finish: a failed run says why (error)")
        with self.lock:
            self.finishes[run_id] = doc
            self.lock.notify_all()
        return 200, {"run_id": run_id, "status": doc["status"]}

    def _artifact(self, path: str, headers: Any, body: bytes) -> tuple[int, Any]:
        match = re.fullmatch(r"/runs/([^/]+)/artifacts", path)
        self._check(match is not None, f"artifacts path {path}")
        assert match is not None
        name = headers.get("X-Artifact-Name") or ""
        self._check(bool(ARTIFACT_NAME.match(name)), f"X-Artifact-Name {name!r}")
        self._check(bool(headers.get("X-Lease-Token")), "artifacts: X-Lease-Token missing")
        self._check(bool(headers.get("Content-Type")), "artifacts: Content-Type missing")
        if len(body) > ARTIFACT_MAX:
            return 413, {"detail": "artifact above 2 MiB"}
        with self.lock:
            items = self.artifacts.setdefault(match.group(1), [])
            if len(items) >= 64:
                return 400, {"detail": "at most 64 artifacts per run"}
            items.append({"name": name, "content_type": headers.get("Content-Type"), "data": body})
        return 201, {"id": str(uuid.uuid4()), "name": name, "size": len(body)}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    code, answer = backend.handle("POST", self.path, self.headers, body)
                except (ValueError, KeyError, TypeError) as exc:
                    if str(exc) not in backend.violations:
                        backend.violations.append(f"{self.path}: {type(exc).__name__}: {exc}")
                    code, answer = 400, {"detail": str(exc)}
                payload = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler
