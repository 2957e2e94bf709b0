"""HTTP client for the public API v1 (docs/api.md): retries, and errors mapped to exit codes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, Self

import httpx

from .errors import InfraError, UsageError

# Shorter than any server's keep-alive we know of (gunicorn 2 s, nginx 75 s): see ApiClient.
KEEPALIVE_EXPIRY_S = 1.0
# Statuses that say "not processed, try again"; safe to retry even for a POST.
RETRY_ALWAYS = {429, 503}
# Server errors that may or may not have processed the request; retried for reads only.
RETRY_IF_IDEMPOTENT = {500, 502, 504}
MAX_RETRY_AFTER_S = 30.0
# First back-off step; doubles per attempt (0.5, 1, 2, 4 s...). Tests shrink it.
BACKOFF_BASE_S = 0.5


def format_field_errors(errors: Any, path: str = "") -> list[str]:
    """Flattens a DRF error body into lines such as `arms[1].protocol: "spdy" is not a valid choice.`

    Handles both shapes DRF produces for nested lists: `{"arms": {"1": {...}}}` and
    `{"arms": [{}, {...}]}`.
    """
    if isinstance(errors, str):
        return [f"{path}: {errors}" if path else errors]
    if isinstance(errors, list):
        if all(isinstance(item, str) for item in errors):
            return [line for item in errors for line in format_field_errors(item, path)]
        lines: list[str] = []
        for index, item in enumerate(errors):
            if item in ({}, [], None):
                continue
            lines += format_field_errors(item, f"{path}[{index}]")
        return lines
    if isinstance(errors, dict):
        lines = []
        for key, value in errors.items():
            key = str(key)
            if key in ("non_field_errors", "detail"):
                child = path
            elif key.isdigit():
                child = f"{path}[{key}]"
            else:
                child = f"{path}.{key}" if path else key
            lines += format_field_errors(value, child)
        return lines
    return [f"{path}: {errors}" if path else str(errors)]


def _body_excerpt(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        text = " ".join(response.text.split())
        return text[:200] or response.reason_phrase


def _detail_text(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return str(body["detail"])
    if isinstance(body, str):
        return body
    return "; ".join(format_field_errors(body))


def raise_for_status(response: httpx.Response, *, what: str) -> None:
    """Maps a non-2xx answer to UsageError (exit 4) or InfraError (exit 3)."""
    code = response.status_code
    if code < 400:
        return
    body = _body_excerpt(response)
    if code == 400:
        if isinstance(body, dict) and set(body) == {"detail"}:
            raise UsageError(f"{what}: the server rejected the request: {body['detail']}")
        raise UsageError(f"{what}: the server rejected the request (400):", details=format_field_errors(body))
    if code in (401, 403):
        raise UsageError(
            f"{what}: not authorised ({code}): {_detail_text(body)}",
            details=["check --token / LATENCYLAB_TOKEN; creating comparisons needs a token with scope ci"],
        )
    if code == 404:
        raise UsageError(f"{what}: not found (404): {_detail_text(body)}")
    if code >= 500 or code in RETRY_ALWAYS:
        raise InfraError(f"{what}: server error {code}: {_detail_text(body)}")
    raise UsageError(f"{what}: {code} {response.reason_phrase}: {_detail_text(body)}")


class ApiClient:
    def __init__(
        self,
        server: str,
        token: str,
        *,
        retries: int = 4,
        user_agent: str = "latencylab-cli",
        sleep: Callable[[float], None] = time.sleep,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server.rstrip("/")
        self.retries = max(0, retries)
        self._sleep = sleep
        self._warn = warn or (lambda message: None)
        self._http = httpx.Client(
            base_url=self.server,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json",
                "User-Agent": user_agent,
            },
            timeout=httpx.Timeout(30.0, connect=10.0),
            # An idle connection is dropped after 1 s rather than reused: gunicorn closes one idle
            # for 2 s (its default keep-alive) and `--wait` polls every 2 s, so a reused connection
            # met the server's close on nearly every poll (RemoteProtocolError, ECONNRESET). A poll
            # opens a new connection; the requests of one poll still share theirs.
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY_S),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _backoff(self, attempt: int, response: httpx.Response | None) -> float:
        delay: float = BACKOFF_BASE_S * (2**attempt)
        if response is not None and (retry_after := response.headers.get("Retry-After")):
            try:
                delay = min(max(float(retry_after), 0.0), MAX_RETRY_AFTER_S)
            except ValueError:
                pass
        return delay

    @contextmanager
    def _send(self, method: str, path: str, *, idempotent: bool, **kwargs: Any) -> Iterator[httpx.Response]:
        """Yields the first answer that is not worth retrying; streams the body lazily."""
        last_problem = ""
        for attempt in range(self.retries + 1):
            response: httpx.Response | None = None
            try:
                request = self._http.build_request(method, path, **kwargs)
                response = self._http.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                # Nothing reached the server, so even a POST is safe to repeat.
                last_problem = f"cannot connect to {self.server}: {exc}"
            except httpx.TransportError as exc:
                if not idempotent:
                    raise InfraError(
                        f"{method} {path}: connection lost before the server answered ({exc}); "
                        "not retried because it may have been processed"
                    ) from exc
                last_problem = f"{method} {path}: {type(exc).__name__}: {exc}"
            else:
                code = response.status_code
                if code in RETRY_ALWAYS or (idempotent and code in RETRY_IF_IDEMPOTENT):
                    response.read()
                    last_problem = f"{method} {path}: server answered {code}: {_detail_text(_body_excerpt(response))}"
                    response.close()
                else:
                    try:
                        yield response
                    finally:
                        response.close()
                    return
            if attempt < self.retries:
                delay = self._backoff(attempt, response)
                # A retry that succeeds is no news; say so once half the retries are spent.
                if attempt + 1 > self.retries // 2:
                    self._warn(f"{last_problem}; retrying in {delay:.1f} s ({attempt + 1}/{self.retries})")
                self._sleep(delay)
        attempts = self.retries + 1
        raise InfraError(f"{last_problem} (gave up after {attempts} attempt{'s' if attempts > 1 else ''})")

    def request_json(
        self, method: str, path: str, *, what: str, idempotent: bool = True, **kwargs: Any
    ) -> Any:
        with self._send(method, path, idempotent=idempotent, **kwargs) as response:
            try:
                response.read()
            except httpx.TransportError as exc:
                raise InfraError(f"{what}: connection lost while reading the answer: {exc}") from exc
            raise_for_status(response, what=what)
            try:
                return response.json()
            except ValueError as exc:
                raise InfraError(f"{what}: the server answered {response.status_code} without JSON") from exc

    def get_json(self, path: str, *, what: str, params: dict[str, str] | None = None) -> Any:
        return self.request_json("GET", path, what=what, params=params)

    def get_status(self, path: str, *, params: dict[str, str] | None = None) -> tuple[int, Any]:
        """GET that returns (status, body) for 2xx and 409 so the caller can decide; raises otherwise."""
        with self._send("GET", path, idempotent=True, params=params) as response:
            response.read()
            if response.status_code == 409:
                return 409, _body_excerpt(response)
            raise_for_status(response, what=f"GET {path}")
            return response.status_code, response.json()

    def download(self, path: str, sink: IO[bytes], *, what: str) -> int:
        """Streams a body into `sink`; returns the byte count."""
        with self._send("GET", path, idempotent=True) as response:
            if response.status_code >= 400:
                response.read()
                raise_for_status(response, what=what)
            written = 0
            try:
                for chunk in response.iter_bytes(65536):
                    sink.write(chunk)
                    written += len(chunk)
            except httpx.TransportError as exc:
                raise InfraError(f"{what}: connection lost after {written} bytes: {exc}") from exc
            return written
