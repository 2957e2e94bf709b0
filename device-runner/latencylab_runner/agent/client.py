"""The runner protocol v1 client (contract/README.md). Transient failures (connection
errors, 5xx) are retried with exponential backoff and jitter for about a minute
(backoff.py), the same request each time, so a retried block carries its batch_seq and is
stored once; 409 means the lease is gone and is raised as LeaseLost so the driver stops
working on that run."""

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from .. import __version__
from .backoff import BUDGET_S, backoff_delays
from .journal import UploadJournal

log = logging.getLogger(__name__)


class LeaseLost(Exception):
    pass


class ProtocolError(Exception):
    pass


class RunnerClient:
    def __init__(self, server: str, token: str, *, retry_budget_s: float = BUDGET_S, timeout_s: float = 60.0,
                 journal: Path | None = None, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self._http = httpx.Client(
            base_url=server.rstrip("/") + "/api/runner/v1",
            headers={"Authorization": f"Runner {token}", "User-Agent": f"latencylab-runner/{__version__}"},
            timeout=timeout_s,
        )
        self._retry_budget_s = retry_budget_s
        self._journal = UploadJournal(journal) if journal else None
        self._sleep = sleep
        self._rng = rng or random.Random()  # noqa: S311 (jitter, not a secret)

    def close(self) -> None:
        self._http.close()

    def _post(self, path: str, body: dict[str, Any] | None = None, *, content: bytes | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
        delays = backoff_delays(rng=self._rng, budget_s=self._retry_budget_s)
        tries = 0
        while True:
            tries += 1
            try:
                if content is not None:
                    response = self._http.post(path, content=content, headers=headers)
                else:
                    response = self._http.post(path, json=body, headers=headers)
            except httpx.TransportError as exc:
                failure: str = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code == 409:
                    raise LeaseLost(response.json().get("detail", "lease lost"))
                if response.status_code < 500:
                    if response.status_code >= 400:
                        raise ProtocolError(f"{path}: HTTP {response.status_code}: {response.text[:2000]}")
                    return response
                failure = f"HTTP {response.status_code}"
            delay = next(delays, None)
            if delay is None:
                raise ProtocolError(f"{path}: {failure}; gave up after {tries} tries")
            log.warning("%s: %s; retrying in %.1f s (try %d)", path, failure, delay, tries + 1)
            self._sleep(delay)

    def hello(self, runner: dict[str, Any], devices: list[dict[str, Any]]) -> dict[str, Any]:
        return self._post("/hello", {"runner": runner, "devices": devices}).json()

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        return self._post("/heartbeat", {"devices": devices, "runs": runs}).json()

    def lease(self, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
        response = self._post("/lease", {"devices": serials, "wait_s": wait_s})
        return [] if response.status_code == 204 else response.json()["runs"]

    def upload_block(self, run_id: str, batch: dict[str, Any]) -> dict[str, Any]:
        if self._journal is not None:
            self._journal.record(run_id, batch)
        return self._post(f"/runs/{run_id}/samples", batch).json()

    def finish(self, run_id: str, report: dict[str, Any]) -> dict[str, Any]:
        return self._post(f"/runs/{run_id}/finish", report).json()

    def upload_artifact(self, run_id: str, *, lease_token: str, name: str, data: bytes,
                        content_type: str = "application/octet-stream") -> dict[str, Any]:
        """One raw artifact (≤ 2 MiB, the caller bounds it) kept with the run."""
        return self._post(f"/runs/{run_id}/artifacts", content=data,
                          headers={"X-Lease-Token": lease_token, "X-Artifact-Name": name,
                                   "Content-Type": content_type}).json()


class EnrollmentError(Exception):
    """The backend refused the enrollment (its `detail` in the message)."""


def register(server: str, enrollment_token: str, *, name: str, hostname: str, drivers: list[str],
             timeout_s: float = 30.0) -> dict[str, Any]:
    """POST /api/runner/v1/register with `Authorization: Enroll <token>`; the runner's own
    credentials `{runner_id, runner_token, pool}`. Not retried: a 409 or 401 needs a person."""
    body = {"name": name, "hostname": hostname, "version": __version__, "drivers": drivers}
    try:
        response = httpx.post(server.rstrip("/") + "/api/runner/v1/register", json=body, timeout=timeout_s,
                              headers={"Authorization": f"Enroll {enrollment_token}",
                                       "User-Agent": f"latencylab-runner/{__version__}"})
    except httpx.TransportError as exc:
        raise EnrollmentError(f"cannot reach {server}: {exc}") from exc
    if response.status_code != 201:
        try:
            detail = response.json().get("detail", response.text)
        except ValueError:
            detail = response.text[:500]
        raise EnrollmentError(f"HTTP {response.status_code}: {detail}")
    answer = response.json()
    missing = [key for key in ("runner_id", "runner_token") if not answer.get(key)]
    if missing:
        raise EnrollmentError(f"the server's answer lacks {', '.join(missing)}")
    return answer
