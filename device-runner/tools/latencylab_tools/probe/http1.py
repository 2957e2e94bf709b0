"""HTTP/1.1 request/response on a blocking socket (h11), with phase timestamps."""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable

import h11

from .sample import Timeline, parse_server_timing
from .tcp import TcpConnection, remaining
from .types import Origin, ProbeFailure, ProbeRequest

RECV_SIZE = 256 * 1024
USER_AGENT = "latencylab-probe/0.1"


class H1Client:
    def __init__(self, conn: TcpConnection, origin: Origin):
        self.conn = conn
        self.origin = origin
        self.h11 = h11.Connection(h11.CLIENT)

    def exchange(self, req: ProbeRequest, tl: Timeline, deadline: float) -> bytes:  # noqa: C901  one HTTP/1.1 exchange, its timestamps in wire order
        # A customer's own Accept replaces the probe's default (never sent twice).
        given = {name for name, _ in req.headers}
        headers = [("host", self.origin.authority), ("user-agent", USER_AGENT),
                   *([] if "accept" in given else [("accept", "*/*")])]
        if req.body or req.method in ("POST", "PUT", "PATCH"):
            headers.append(("content-length", str(len(req.body))))
        headers.extend(req.headers)
        try:
            wire = self.h11.send(h11.Request(method=req.method, target=req.path, headers=headers))
            if req.body:
                wire += self.h11.send(h11.Data(data=req.body))
            wire += self.h11.send(h11.EndOfMessage())
        except h11.LocalProtocolError as e:
            raise ProbeFailure("other", f"cannot encode request: {e}") from e
        sock = self.conn.sock
        f = tl.fields
        try:
            sock.settimeout(remaining(deadline))
            tl.mark("req_start")
            sock.sendall(wire)
            tl.mark("req_end")
            f["req_bytes"] = len(req.body)
            body = bytearray()
            while True:
                event = self.h11.next_event()
                if event is h11.NEED_DATA:
                    sock.settimeout(remaining(deadline))
                    data = sock.recv(RECV_SIZE)
                    now = time.perf_counter_ns()
                    if data:
                        tl.mark_once("resp_first_byte", now)
                    self.h11.receive_data(data)
                    continue
                if isinstance(event, h11.InformationalResponse):
                    continue
                if isinstance(event, h11.Response):
                    tl.mark("resp_headers_end")
                    f["status"] = event.status_code
                    f["server_time_us"] = parse_server_timing(_header(event.headers, b"server-timing"))
                    tl.server_header = _header(event.headers, b"server")
                    if event.http_version != b"1.1":
                        self.conn.alpn = "http/" + event.http_version.decode()
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    tl.mark("resp_end")
                    break
                elif isinstance(event, h11.ConnectionClosed):
                    raise ProbeFailure("reset", "connection closed before the response completed")
        except TimeoutError as e:
            self.conn.usable = False
            raise ProbeFailure("timeout", "no complete response before the deadline") from e
        except h11.RemoteProtocolError as e:
            self.conn.usable = False
            if "peer unexpectedly closed" in str(e) or not f.get("resp_first_byte"):
                raise ProbeFailure("reset", f"connection closed mid-response: {e}") from e
            raise ProbeFailure("other", f"invalid HTTP/1.1 response: {e}") from e
        except (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e
        except (OSError, ssl.SSLError) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e
        f["resp_bytes"] = len(body)
        if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
            self.h11.start_next_cycle()
        else:
            self.conn.usable = False  # Connection: close, or HTTP/1.0
        return bytes(body)


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for k, v in headers:
        if k == name:
            return v.decode("latin-1")
    return None
