"""The runner protocol v1 client (contract/README.md). Transient failures (connection
errors, 5xx) are retried with backoff; 409 means the lease is gone and is raised as
LeaseLost so the driver stops working on that run."""

import time
from typing import Any

import httpx

from .. import __version__


class LeaseLost(Exception):
    pass


class ProtocolError(Exception):
    pass


class RunnerClient:
    def __init__(self, server: str, token: str, *, retries: int = 5, timeout_s: float = 60.0):
        self._http = httpx.Client(
            base_url=server.rstrip("/") + "/api/runner/v1",
            headers={"Authorization": f"Runner {token}", "User-Agent": f"latencylab-runner/{__version__}"},
            timeout=timeout_s,
        )
        self._retries = retries

    def close(self) -> None:
        self._http.close()

    def _post(self, path: str, body: dict[str, Any] | None = None, *, content: bytes | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
        delay = 0.5
        for attempt in range(self._retries + 1):
            try:
                if content is not None:
                    response = self._http.post(path, content=content, headers=headers)
                else:
                    response = self._http.post(path, json=body, headers=headers)
            except httpx.TransportError:
                if attempt == self._retries:
                    raise
            else:
                if response.status_code == 409:
                    raise LeaseLost(response.json().get("detail", "lease lost"))
                if response.status_code < 500:
                    if response.status_code >= 400:
                        raise ProtocolError(f"{path}: HTTP {response.status_code}: {response.text[:2000]}")
                    return response
                if attempt == self._retries:
                    raise ProtocolError(f"{path}: HTTP {response.status_code} after {attempt + 1} tries")
            time.sleep(delay)
            delay = min(delay * 2, 10)
        raise AssertionError("unreachable")

    def hello(self, runner: dict[str, Any], devices: list[dict[str, Any]]) -> dict[str, Any]:
        return self._post("/hello", {"runner": runner, "devices": devices}).json()

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        return self._post("/heartbeat", {"devices": devices, "runs": runs}).json()

    def lease(self, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
        response = self._post("/lease", {"devices": serials, "wait_s": wait_s})
        return [] if response.status_code == 204 else response.json()["runs"]

    def upload_block(self, run_id: str, batch: dict[str, Any]) -> dict[str, Any]:
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
