"""HTTP/1.1 server side (h11), for the cleartext port and ALPN http/1.1 on the TLS port.

Requests are answered inside data_received when the route needs no waiting (no injected
delay, a body small enough to hand to the transport in one go); only delayed or large
responses get a task. The Server-Timing clock starts when the bytes completing the
request were handed to us (the start of the data_received call), the same point as
HTTP/2 (http2.py), so both protocols measure the same thing.
"""

from __future__ import annotations

import asyncio
import http
import time

import h11

from . import routes
from .transport import ARM_PROTOCOL_HEADER, TargetProtocol

SMALL_RESPONSE = 64 * 1024  # below this, headers + body go out in one write, inline
# Bodies are handed to the transport in pieces of up to 1 MiB (its write-buffer limit, so
# drain() still bounds the memory a 50 MB body takes). Pieces of 256 KiB cost a round trip: on a
# warm connection whose window held the whole 309 KB MID image, the piece after the first left
# one round trip later (nginx, and this target since, send it in one; methodology §6.11).
WRITE_CHUNK = 1024 * 1024


def _header(request: h11.Request, name: str) -> str | None:
    wanted = name.encode("ascii")
    for key, value in request.headers:  # h11 lower-cases names
        if key == wanted:
            return value.decode("latin-1")
    return None


class H1Session:
    def __init__(self, conn: TargetProtocol):
        self.conn = conn
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        self._task: asyncio.Task[None] | None = None  # a delayed or large response in flight
        self._request: h11.Request | None = None
        self._body = bytearray()
        self._received_ns = 0  # when the latest bytes were handed to us

    def data_received(self, data: bytes) -> None:
        self._received_ns = time.perf_counter_ns()
        self.h11.receive_data(data)
        if self._task is None or self._task.done():
            self._pump()

    def connection_lost(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def _pump(self) -> None:
        """Process every complete request in the buffer, in order (pipelining-safe).

        Returns early when a response needs a task; the task resumes pumping when done.
        Request state lives on self because a request can span several data_received calls.
        """
        while not self.conn.closed:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as e:
                self._send_error(e.error_status_hint, f"bad request: {e}")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._request, self._body = event, bytearray()
                length = dict(event.headers).get(b"content-length")
                if length is not None and length.isdigit() and int(length) > routes.MAX_ECHO_BYTES:
                    self._send_error(413, f"body must be at most {routes.MAX_ECHO_BYTES} bytes")
                    return
            elif isinstance(event, h11.Data):
                self._body += event.data
                if len(self._body) > routes.MAX_ECHO_BYTES:
                    self._send_error(413, f"body must be at most {routes.MAX_ECHO_BYTES} bytes")
                    return
            elif isinstance(event, h11.EndOfMessage):
                done_ns = self._received_ns
                if self._request is None:
                    raise RuntimeError("self._request is None")
                request, body = self._request, bytes(self._body)
                self._request, self._body = None, bytearray()
                method = request.method.decode("ascii", "replace")
                resp = routes.handle(method, request.target.decode("ascii", "replace"), body)
                resp.extra_headers += self.conn.options.common_headers(_header(request, ARM_PROTOCOL_HEADER))
                head_only = method == "HEAD"
                if resp.delay_s or (resp.length > SMALL_RESPONSE and not head_only):
                    self._task = asyncio.get_running_loop().create_task(self._respond_later(resp, done_ns, head_only))
                    return
                self._send_small(resp, done_ns, head_only)
                if not self._next_cycle():
                    return
            elif isinstance(event, h11.ConnectionClosed):
                self.conn.close()
                return

    def _next_cycle(self) -> bool:
        if self.h11.our_state is h11.MUST_CLOSE or self.h11.their_state is h11.MUST_CLOSE:
            self.conn.close()
            return False
        try:
            self.h11.start_next_cycle()
        except h11.LocalProtocolError:
            self.conn.close()
            return False
        return True

    async def _respond_later(self, resp: routes.Response, done_ns: int, head_only: bool) -> None:
        if resp.delay_s:
            await asyncio.sleep(resp.delay_s)
        if resp.length <= SMALL_RESPONSE or head_only:
            self._send_small(resp, done_ns, head_only)
        else:
            self.conn.write(self._head(resp, done_ns))
            for chunk in resp.chunks:
                for off in range(0, len(chunk), WRITE_CHUNK):
                    self._write_data(chunk[off : off + WRITE_CHUNK])
                    await self.conn.drain()
            self.h11.send(h11.EndOfMessage())
        if self._next_cycle():
            self._pump()  # requests that arrived (pipelined) while we were busy

    def _head(self, resp: routes.Response, done_ns: int) -> bytes:
        headers = [
            ("content-type", resp.content_type),
            ("content-length", str(resp.length)),
            *resp.extra_headers,
            ("server-timing", routes.server_timing(time.perf_counter_ns() - done_ns)),
        ]
        head = self.h11.send(h11.Response(status_code=resp.status, headers=headers, reason=_reason(resp.status)))
        if head is None:
            raise RuntimeError("head is None")
        return head

    def _send_small(self, resp: routes.Response, done_ns: int, head_only: bool) -> None:
        head = self._head(resp, done_ns)
        chunks = [] if head_only else resp.chunks
        if self.conn.options.nagle_trap:
            # Two small writes with Nagle on: the second waits for the client's delayed ACK.
            self.conn.write(head)
            for chunk in chunks:
                self._write_data(chunk)
        else:
            self.conn.write(b"".join([head, *[bytes(self._data(c)) for c in chunks]]))
        self.h11.send(h11.EndOfMessage())

    def _data(self, chunk: bytes | memoryview) -> bytes | memoryview:
        # send_with_data_passthrough hands the body back unchanged (no copy) for
        # Content-Length framing; we only need h11 to track the byte count.
        # h11 takes any bytes-like body (its docs); the annotation says bytes.
        parts = self.h11.send_with_data_passthrough(h11.Data(data=chunk))  # type: ignore[arg-type]
        return b"".join(bytes(p) for p in parts) if parts and len(parts) > 1 else (parts[0] if parts else b"")

    def _write_data(self, chunk: bytes | memoryview) -> None:
        self.conn.write(self._data(chunk))

    def _send_error(self, status: int, message: str) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            try:
                self._send_small(routes._text(status, message), time.perf_counter_ns(), False)
            except h11.LocalProtocolError:
                pass
        self.conn.close()


def _reason(status: int) -> bytes:
    try:
        return http.HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""
