"""Connection policies (cold / warm / resumed) around the per-protocol clients.

fetch() never raises for network trouble: every failure becomes an error sample
(docs/methodology.md §4: "failures are data").
"""

from __future__ import annotations

import ssl
import time
from typing import Any

from . import grpc
from .http1 import H1Client
from .http2 import H2Client
from .http3 import H3Client
from .sample import Timeline, parse_server_timing
from .tcp import TcpConnection, client_ssl_context, connect, read_idle, tcp_info
from .types import CONNECTION_POLICIES, EXPECTED_ALPN, PROTOCOLS, Origin, ProbeFailure, ProbeRequest

OFFERED_ALPN = {
    "h1": ["http/1.1"],
    # Offer both, like real clients do, so that a server's silent fallback to HTTP/1.1 is
    # caught and reported as protocol_mismatch instead of failing the handshake.
    "h2": ["h2", "http/1.1"],
    "grpc": ["h2", "http/1.1"],
}
MAX_SERVER_HEADERS = 8  # distinct values kept per session (a load-balanced fleet may vary)


class ProbeSession:
    """Base: one arm's connection state for a sequence of requests."""

    protocol: str
    connection: str
    # The distinct `Server` response header values seen, first seen first, so the run can
    # say which server answered; None where this client cannot read response headers.
    server_headers: list[str] | None = None

    def _saw_server(self, tl: Timeline) -> None:
        seen = self.server_headers
        if seen is not None and tl.server_header and tl.server_header not in seen and len(seen) < MAX_SERVER_HEADERS:
            seen.append(tl.server_header)

    def fetch(self, req: ProbeRequest) -> dict[str, Any]:
        raise NotImplementedError

    def fetch_concurrent(self, requests: list[ProbeRequest]) -> list[dict[str, Any]]:
        """Issue all requests at once as concurrent streams on the session's one connection
        (h2, h3, grpc; opened first if needed, reported on the first sample as fetch() would).

        One sample per request, in order, each with its own t0 (the moment its stream was
        issued); the samples after the first show conn_reused true and no connection
        phases. Network trouble becomes error samples, never an exception. The bodies
        are not kept (last_body is left alone)."""
        raise ValueError(f"concurrent streams need h2, h3 or grpc, not {self.protocol!r}")

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> ProbeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_concurrent(protocol: str, requests: list[ProbeRequest]) -> None:
    if protocol not in ("h2", "h3", "grpc"):
        raise ValueError(f"concurrent streams need h2, h3 or grpc, not {protocol!r}")
    if not all(isinstance(r, ProbeRequest) for r in requests):
        raise ValueError("fetch_concurrent takes a list of ProbeRequest")


def _failed_batch(requests: list[ProbeRequest], first: Timeline, failure: ProbeFailure) -> list[dict[str, Any]]:
    """Every stream of a batch failed before any was issued (e.g. the connection)."""
    out = []
    for i, req in enumerate(requests):
        tl = first if i == 0 else Timeline(req)
        tl.fail(failure.error_class, failure.detail)
        tl.mark("app_done")
        out.append(_finish(tl))
    return out


def _finish(tl: Timeline) -> dict[str, Any]:
    f = tl.fields
    if f["error_class"] is None and f["status"] is not None and f["status"] >= 400:
        tl.fail("http", f"HTTP {f['status']}")
    return f


class TcpSession(ProbeSession):
    def __init__(self, protocol: str, connection: str, origin: Origin, ca_file: str | None,
                 ca_pem: str | None, timeout_s: float):
        self.protocol, self.connection, self.origin, self.timeout_s = protocol, connection, origin, timeout_s
        self.ssl_context = None if protocol == "h1c" else client_ssl_context(ca_file, ca_pem, OFFERED_ALPN[protocol])
        self.conn: TcpConnection | None = None
        self.client: H1Client | H2Client | None = None
        self.tls_session: ssl.SSLSession | None = None  # for the resumed policy
        self.last_body = b""
        self.server_headers = []

    def _acquire(self, tl: Timeline, deadline: float) -> tuple[TcpConnection, bool]:
        if self.connection == "warm" and self.conn is not None and self.conn.usable:
            idle = read_idle(self.conn)
            if idle is not None and isinstance(self.client, H2Client):
                self.client.feed_idle(idle)
            elif idle:  # unsolicited bytes on an idle HTTP/1.1 connection: not reusable
                self.conn.usable = False
            if idle is not None and self.conn.usable:
                return self.conn, True
        self._drop()
        conn = connect(
            self.origin.host, self.origin.port, tl, deadline,
            is_ip=self.origin.host_is_ip, ssl_context=self.ssl_context, server_name=self.origin.tls_name,
            session=self.tls_session if self.connection == "resumed" else None,
        )
        self.conn = conn
        self.client = H1Client(conn, self.origin) if self.protocol in ("h1c", "h1") else H2Client(conn, self.origin)
        return conn, False

    def fetch(self, req: ProbeRequest) -> dict[str, Any]:
        tl = Timeline(req)
        f = tl.fields
        deadline = time.monotonic() + self.timeout_s
        conn: TcpConnection | None = None
        try:
            conn, reused = self._acquire(tl, deadline)
            f.update(conn_id=conn.id, conn_reused=reused, alpn=conn.alpn, tls_version=conn.tls_version,
                     tls_resumed=conn.tls_resumed, early_data=None if self.protocol == "h1c" else False)
            expected = EXPECTED_ALPN[self.protocol]
            if self.protocol == "h1" and conn.alpn is None:
                f["alpn"] = "http/1.1"  # no ALPN from the server means HTTP/1.1 (RFC 7301 §3.2)
            elif expected is not None and conn.alpn != expected:
                conn.usable = False
                raise ProbeFailure("protocol_mismatch", f"negotiated ALPN {conn.alpn!r}, arm wants {expected!r}")
            if isinstance(self.client, H1Client):
                self.last_body = self.client.exchange(req, tl, deadline)
                f["alpn"] = f["alpn"] if self.protocol == "h1" else conn.alpn
            elif self.protocol == "grpc":
                if not isinstance(self.client, H2Client):
                    raise RuntimeError(f"self.client is {type(self.client).__name__}, not H2Client")
                self.last_body = grpc.call(self.client, req, tl, deadline)
            else:
                if not isinstance(self.client, H2Client):
                    raise RuntimeError(f"self.client is {type(self.client).__name__}, not H2Client")
                resp = self.client.exchange(req.method, req.path, req.body, tl, deadline, list(req.headers))
                f.update(status=resp.status, req_bytes=len(req.body), resp_bytes=len(resp.body),
                         server_time_us=parse_server_timing(resp.headers.get("server-timing")))
                tl.server_header = resp.headers.get("server")
                self.last_body = bytes(resp.body)
        except ProbeFailure as e:
            tl.fail(e.error_class, e.detail)
        except Exception as e:  # noqa: BLE001 - a bug must still yield a sample, not kill a run
            tl.fail("other", f"{type(e).__name__}: {e}")
            if conn is not None:
                conn.usable = False
        tl.mark("app_done")
        if conn is not None:
            f["srtt_us"], f["retrans"] = tcp_info(conn.raw)
            conn.requests += 1
            if self.connection == "resumed":
                self.tls_session = conn.tls_session() or self.tls_session
            if self.connection != "warm" or not conn.usable:
                self._drop()
        self._saw_server(tl)
        return _finish(tl)

    def fetch_concurrent(self, requests: list[ProbeRequest]) -> list[dict[str, Any]]:  # noqa: C901  one concurrent group, its failure modes side by side
        _check_concurrent(self.protocol, requests)
        if not requests:
            return []
        first = Timeline(requests[0])
        deadline = time.monotonic() + self.timeout_s
        conn: TcpConnection | None = None
        failure: ProbeFailure | None
        reused = False
        try:
            conn, reused = self._acquire(first, deadline)
            if conn.alpn != "h2":
                conn.usable = False
                raise ProbeFailure("protocol_mismatch", f"negotiated ALPN {conn.alpn!r}, arm wants 'h2'")
            if not isinstance(self.client, H2Client):
                raise RuntimeError(f"self.client is {type(self.client).__name__}, not H2Client")
            # gRPC calls are streams too: each request mapped to its call (the samples keep the request's own path).
            calls = [grpc.map_request(r) for r in requests] if self.protocol == "grpc" else None
            streams = requests if calls is None else [
                grpc.wire_request(r, c) for r, c in zip(requests, calls, strict=True)]
            results = self.client.exchange_many(
                streams, lambda i: first if i == 0 else Timeline(requests[i]), deadline)
        except ProbeFailure as e:
            failure = e
        except Exception as e:  # noqa: BLE001 - a bug must still yield samples, not kill a run
            failure = ProbeFailure("other", f"{type(e).__name__}: {e}")
            if conn is not None:
                conn.usable = False
        else:
            failure = None
        if failure is not None:
            if conn is not None:
                first.fields.update(conn_id=conn.id, conn_reused=reused, alpn=conn.alpn,
                                    tls_version=conn.tls_version, tls_resumed=conn.tls_resumed, early_data=False)
                if not conn.usable or self.connection != "warm":
                    self._drop()
            return _failed_batch(requests, first, failure)
        if conn is None:
            raise RuntimeError("conn is None")
        srtt, retrans = tcp_info(conn.raw)
        out = []
        for i, (req, (tl, outcome)) in enumerate(zip(requests, results, strict=True)):
            f = tl.fields
            f.update(conn_id=conn.id, conn_reused=reused if i == 0 else True, alpn=conn.alpn,
                     tls_version=conn.tls_version, tls_resumed=conn.tls_resumed, early_data=False,
                     srtt_us=srtt, retrans=retrans)
            if isinstance(outcome, ProbeFailure):
                tl.fail(outcome.error_class, outcome.detail)
            elif calls is not None:
                try:
                    grpc.complete(outcome, calls[i], tl)
                except ProbeFailure as e:
                    tl.fail(e.error_class, e.detail)
            else:
                f.update(status=outcome.status, req_bytes=len(req.body), resp_bytes=len(outcome.body),
                         server_time_us=parse_server_timing(outcome.headers.get("server-timing")))
                tl.server_header = outcome.headers.get("server")
            self._saw_server(tl)
            tl.mark_once("app_done")
            out.append(_finish(tl))
        conn.requests += len(requests)
        if self.connection == "resumed":
            self.tls_session = conn.tls_session() or self.tls_session
        if self.connection != "warm" or not conn.usable:
            self._drop()
        return out

    def _drop(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self.client = None

    def close(self) -> None:
        self._drop()


class H3Session(ProbeSession):
    """HTTP/3 through the native client (http3.py): one batch per fetch, or per concurrent
    group; the connection policy becomes the batch's new_connection / use_ticket / keep."""

    def __init__(self, connection: str, origin: Origin, ca_file: str | None, ca_pem: str | None, timeout_s: float):
        self.protocol, self.connection, self.origin, self.timeout_s = "h3", connection, origin, timeout_s
        self.client = H3Client(origin, ca_file, ca_pem)
        self.last_body = b""
        self.server_headers = []

    def fetch(self, req: ProbeRequest) -> dict[str, Any]:
        (sample,) = self._batch([req], keep_body=True)
        return sample

    def fetch_concurrent(self, requests: list[ProbeRequest]) -> list[dict[str, Any]]:
        _check_concurrent(self.protocol, requests)
        return self._batch(requests, keep_body=False) if requests else []

    def _batch(self, requests: list[ProbeRequest], *, keep_body: bool) -> list[dict[str, Any]]:
        deadline = time.monotonic() + self.timeout_s
        timelines = [Timeline(r) for r in requests]
        outcomes = self.client.run(
            requests, timelines, deadline, new_connection=self.connection != "warm",
            use_ticket=self.connection == "resumed", keep=self.connection == "warm", keep_body=keep_body)
        out = []
        for outcome in outcomes:
            tl, f = outcome.tl, outcome.tl.fields
            if outcome.failure is not None:
                tl.fail(outcome.failure.error_class, outcome.failure.detail)
            elif f["alpn"] != "h3":
                tl.fail("protocol_mismatch", f"negotiated ALPN {f['alpn']!r}, arm wants 'h3'")
            elif keep_body and outcome.body is not None:
                self.last_body = outcome.body
            tl.mark_once("app_done")
            self._saw_server(tl)
            out.append(_finish(tl))
        return out

    def close(self) -> None:
        self.client.close()


def open_session(
    *,
    protocol: str,
    connection: str,
    origin: Origin,
    ca_file: str | None = None,
    ca_pem: str | None = None,
    timeout_s: float = 30.0,
) -> ProbeSession:
    """protocol: h1c|h1|h2|h3|grpc; connection: cold|warm|resumed.

    Raises ValueError for an impossible combination (a spec bug, not a network event).
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if connection not in CONNECTION_POLICIES:
        raise ValueError(f"connection must be one of {CONNECTION_POLICIES}, got {connection!r}")
    want_scheme = "http" if protocol == "h1c" else "https"
    if origin.scheme != want_scheme:
        raise ValueError(f"protocol {protocol} needs an {want_scheme}:// origin, got {origin.scheme!r}")
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    ca_file = str(ca_file) if ca_file else None
    if protocol == "h3":
        return H3Session(connection, origin, ca_file, ca_pem, timeout_s)
    return TcpSession(protocol, connection, origin, ca_file, ca_pem, timeout_s)
