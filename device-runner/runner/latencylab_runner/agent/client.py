"""The runner protocol v1 client (contract/README.md). Every call goes through the one retry
policy (retry_policy.py): a 429 from the backend's rate limit is asked again after its
Retry-After; 408, 5xx and connection errors with exponential backoff and jitter; all within
about 75 s of waiting. The same request is sent each time, so a retried block carries its
batch_seq and is stored once. 409 means the lease is gone and is raised as LeaseLost so
the driver stops working on that run; any other 4xx is a ProtocolError at once.

A block's samples go as columns (latencylab_contract.columnar, the contract README's "The
columnar body"): the backend checks and stores them a whole column at a time. A batch that
has no columnar form (a field of mixed types) goes as JSON; `columnar=False` sends JSON
always. A backend that predates the columnar body answers it 415 and stores nothing: the
block goes again as JSON, and so does everything the client sends after (runners may be
updated before their backend). The journal keeps the JSON form whichever was sent."""

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from latencylab_contract.columnar import MEDIA_TYPE as COLUMNAR
from latencylab_contract.columnar import NotColumnar
from latencylab_contract.columnar import encode as columnar_encode

from .. import __version__
from .journal import UploadJournal
from .retry_policy import BUDGET_S, Outcome, RetrySchedule, outcome_of, retry_after_s

log = logging.getLogger(__name__)

# `register` is typed by a person, who should hear of a wrong server URL in seconds.
REGISTER_BUDGET_S = 15.0
# An idle connection is dropped after this long, before the server drops it: gunicorn closes a
# keep-alive connection idle for 2 s (its default), and a request sent on one it is closing
# fails with a ReadError and waits out a retry's back-off (the farm benchmark met 15–35 per
# run with httpx's default, 5 s). An agent's requests are seconds apart (a heartbeat every
# 10 s), so reuse was rare anyway: a block's upload followed by its finish.
KEEPALIVE_EXPIRY_S = 1.5


class LeaseLost(Exception):
    pass


class ProtocolError(Exception):
    pass


class UnsupportedMediaType(ProtocolError):
    """HTTP 415: the backend has no parser for the body's Content-Type."""


def send_with_retries(send: Callable[[], httpx.Response], schedule: RetrySchedule, *,
                      sleep: Callable[[float], None], what: str) -> httpx.Response:
    """`send()` until the policy says the answer is final (returned, whatever its status), or
    ProtocolError once `schedule`'s budget is spent."""
    tries = 0
    while True:
        tries += 1
        retry_after: float | None = None
        try:
            response = send()
        except httpx.TransportError as exc:
            failure = f"{type(exc).__name__}: {exc}"
        else:
            if outcome_of(response.status_code) is not Outcome.RETRY:
                return response
            failure = f"HTTP {response.status_code}"
            retry_after = retry_after_s(response.headers.get("Retry-After"), date=response.headers.get("Date"))
            if retry_after is not None:
                failure += f" (Retry-After: {response.headers['Retry-After']})"
        wait = schedule.next_wait(retry_after)
        if wait is None:
            raise ProtocolError(f"{what}: {failure}; gave up after {tries} tries")
        log.warning("%s: %s; retrying in %.1f s (try %d)", what, failure, wait, tries + 1)
        sleep(wait)


def _detail(response: httpx.Response, default: str) -> str:
    try:
        answer = response.json()
    except ValueError:
        return response.text[:500] or default
    return str(answer.get("detail", default)) if isinstance(answer, dict) else default


class RunnerClient:
    def __init__(self, server: str, token: str, *, retry_budget_s: float = BUDGET_S, timeout_s: float = 60.0,
                 journal: Path | None = None, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None, columnar: bool = True):
        self._http = httpx.Client(
            base_url=server.rstrip("/") + "/api/runner/v1",
            headers={"Authorization": f"Runner {token}", "User-Agent": f"latencylab-runner/{__version__}"},
            timeout=timeout_s,
            # httpx's default connection limits, with the shorter idle expiry.
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_EXPIRY_S),
        )
        self._retry_budget_s = retry_budget_s
        self._journal = UploadJournal(journal) if journal else None
        self._sleep = sleep
        self._rng = rng or random.Random()  # noqa: S311 (jitter, not a secret)
        self._columnar = columnar

    def close(self) -> None:
        self._http.close()

    def _post(self, path: str, body: dict[str, Any] | None = None, *, content: bytes | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
        def send() -> httpx.Response:
            if content is not None:
                return self._http.post(path, content=content, headers=headers)
            return self._http.post(path, json=body, headers=headers)

        schedule = RetrySchedule(rng=self._rng, budget_s=self._retry_budget_s)
        response = send_with_retries(send, schedule, sleep=self._sleep, what=path)
        if outcome_of(response.status_code) is Outcome.LEASE_LOST:
            raise LeaseLost(_detail(response, "lease lost"))
        if response.status_code == 415:
            raise UnsupportedMediaType(f"{path}: HTTP 415: {response.text[:2000]}")
        if response.status_code >= 400:
            raise ProtocolError(f"{path}: HTTP {response.status_code}: {response.text[:2000]}")
        return response

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
        path = f"/runs/{run_id}/samples"
        if self._columnar:
            try:
                body = columnar_encode(batch)
            except NotColumnar as exc:
                log.info("%s: sent as JSON (%s)", path, exc)
            else:
                try:
                    return self._post(path, content=body, headers={"Content-Type": COLUMNAR}).json()
                except UnsupportedMediaType:
                    # A backend from before the columnar body (DRF's 415 for a body it has no
                    # parser for): it stored nothing, so the same block goes again as JSON, and
                    # so does every later one this client sends.
                    log.warning("%s: the backend does not take the columnar body (HTTP 415); "
                                "sending JSON from now on", path)
                    self._columnar = False
        return self._post(path, batch).json()

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
             timeout_s: float = 30.0, retry_budget_s: float = REGISTER_BUDGET_S,
             sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """POST /api/runner/v1/register with `Authorization: Enroll <token>`; the runner's own
    credentials `{runner_id, runner_token, pool}`. Retried by the same policy as every call (a
    429, a 5xx, no answer), within a shorter budget: a person at a terminal is waiting for
    it. A 409 or 401 is final: it needs a person."""
    body = {"name": name, "hostname": hostname, "version": __version__, "drivers": drivers}
    url = server.rstrip("/") + "/api/runner/v1/register"
    headers = {"Authorization": f"Enroll {enrollment_token}", "User-Agent": f"latencylab-runner/{__version__}"}
    schedule = RetrySchedule(rng=random.Random(), budget_s=retry_budget_s)  # noqa: S311 (jitter, not a secret)
    try:
        response = send_with_retries(lambda: httpx.post(url, json=body, timeout=timeout_s, headers=headers),
                                     schedule, sleep=sleep, what="/register")
    except ProtocolError as exc:
        raise EnrollmentError(f"cannot reach {server}: {exc}") from exc
    if response.status_code != 201:
        raise EnrollmentError(f"HTTP {response.status_code}: {_detail(response, response.text[:500])}")
    answer = response.json()
    missing = [key for key in ("runner_id", "runner_token") if not answer.get(key)]
    if missing:
        raise EnrollmentError(f"the server's answer lacks {', '.join(missing)}")
    return answer
