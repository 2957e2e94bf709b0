"""Protocol-independent routing: one table, served identically by h1, h2 and h3.

Handlers are synchronous and cheap; an injected delay is returned, not slept, so each
protocol front-end awaits it on its own event loop without blocking others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import content

MAX_BYTES = 50_000_000
MAX_DELAY_MS = 60_000
MAX_ECHO_BYTES = 50_000_000


@dataclass
class Response:
    status: int
    chunks: Sequence[bytes | memoryview]
    length: int
    content_type: str = "application/octet-stream"
    delay_s: float = 0.0
    extra_headers: list[tuple[str, str]] = field(default_factory=list)


def _text(status: int, message: str) -> Response:
    body = (message + "\n").encode()
    return Response(status, [body], len(body), "text/plain; charset=utf-8")


def bad_request(message: str) -> Response:
    return _text(400, message)


def _int_param(raw: str) -> int | None:
    # Only plain decimal digits: reject "+5", " 5", "1e3", "0x10" so bounds are unambiguous.
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        return None
    return int(raw)


def handle(method: str, target: str, body: bytes) -> Response:
    """method/target as received (target may carry a query string, which is ignored)."""
    path = target.split("?", 1)[0]
    if path == "/healthz":
        return _need(method, "GET") or _text(200, "ok")
    if path.startswith("/bytes/"):
        # POST too: the payload sweep (seeds/004) sends an 800-byte request body.
        if wrong := _need(method, "GET", "POST"):
            return wrong
        if len(body) > MAX_ECHO_BYTES:
            return _text(413, f"/bytes/{{n}}: request body must be at most {MAX_ECHO_BYTES} bytes")
        n = _int_param(path[len("/bytes/") :])
        if n is None or n > MAX_BYTES:
            return bad_request(f"/bytes/{{n}}: n must be an integer in 0..{MAX_BYTES}")
        return Response(200, content.byte_chunks(n), n)
    if path.startswith("/delay/"):
        if wrong := _need(method, "GET"):
            return wrong
        ms = _int_param(path[len("/delay/") :])
        if ms is None or ms > MAX_DELAY_MS:
            return bad_request(f"/delay/{{ms}}: ms must be an integer in 0..{MAX_DELAY_MS}")
        return Response(200, [b"ok"], 2, "text/plain", delay_s=ms / 1000.0)
    if path == "/echo":
        if wrong := _need(method, "POST"):
            return wrong
        if len(body) > MAX_ECHO_BYTES:
            return _text(413, f"/echo: body must be at most {MAX_ECHO_BYTES} bytes")
        return Response(200, [body], len(body))
    if path.startswith("/files/"):
        if wrong := _need(method, "GET"):
            return wrong
        name = path[len("/files/") :]
        try:
            data = content.file_bytes(name)
        except KeyError:
            return _text(404, f"/files/{{name}}: unknown file {name[:64]!r}; known: mid-01..mid-24, unity-1..unity-5")
        return Response(200, [data], len(data), "image/jpeg")
    return _text(404, f"no route for {path[:128]}")


def _need(method: str, *allowed: str) -> Response | None:
    if method in allowed or ("GET" in allowed and method == "HEAD"):
        return None
    resp = _text(405, f"method {method} not allowed; use {' or '.join(allowed)}")
    resp.extra_headers.append(("allow", ", ".join(allowed)))
    return resp


def server_timing(duration_ns: int) -> str:
    """Server-Timing value: ms with µs precision."""
    return f"app;dur={duration_ns / 1e6:.3f}"
