"""HTTP/1.1 server side (h11), for the cleartext port and ALPN http/1.1 on the TLS port."""

from __future__ import annotations

import asyncio
import http
import time

import h11

from . import routes
from .transport import TargetProtocol

SMALL_RESPONSE = 64 * 1024  # below this, headers + body go out in one write
WRITE_CHUNK = 256 * 1024


class H1Session:
    def __init__(self, conn: TargetProtocol):
        self.conn = conn
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        self._task: asyncio.Task[None] | None = None
        self._request: h11.Request | None = None
        self._body = bytearray()

    def data_received(self, data: bytes) -> None:
        self.h11.receive_data(data)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._serve())

    def connection_lost(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _serve(self) -> None:
        """Process every complete request in the buffer, in order (pipelining-safe).

        Request state lives on self because a request can span several data_received calls.
        """
        while not self.conn.closed:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as e:
                await self._send_error(e.error_status_hint, f"bad request: {e}")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._request, self._body = event, bytearray()
                length = dict(event.headers).get(b"content-length")
                if length is not None and length.isdigit() and int(length) > routes.MAX_ECHO_BYTES:
                    await self._send_error(413, f"body must be at most {routes.MAX_ECHO_BYTES} bytes")
                    return
            elif isinstance(event, h11.Data):
                self._body += event.data
                if len(self._body) > routes.MAX_ECHO_BYTES:
                    await self._send_error(413, f"body must be at most {routes.MAX_ECHO_BYTES} bytes")
                    return
            elif isinstance(event, h11.EndOfMessage):
                done_ns = time.perf_counter_ns()
                assert self._request is not None
                request, body = self._request, bytes(self._body)
                self._request, self._body = None, bytearray()
                await self._respond(request, body, done_ns)
                if self.h11.our_state is h11.MUST_CLOSE or self.h11.their_state is h11.MUST_CLOSE:
                    self.conn.close()
                    return
                try:
                    self.h11.start_next_cycle()
                except h11.LocalProtocolError:
                    self.conn.close()
                    return
            elif isinstance(event, h11.ConnectionClosed):
                self.conn.close()
                return

    async def _respond(self, request: h11.Request, body: bytes, done_ns: int) -> None:
        method = request.method.decode("ascii", "replace")
        target = request.target.decode("ascii", "replace")
        resp = routes.handle(method, target, body)
        if resp.delay_s:
            await asyncio.sleep(resp.delay_s)
        await self._send(resp, done_ns, head_only=(method == "HEAD"))

    async def _send(self, resp: routes.Response, done_ns: int, head_only: bool = False) -> None:
        headers = [
            ("content-type", resp.content_type),
            ("content-length", str(resp.length)),
            *resp.extra_headers,
            *self.conn.options.common_headers(),
            ("server-timing", routes.server_timing(time.perf_counter_ns() - done_ns)),
        ]
        head = self.h11.send(h11.Response(status_code=resp.status, headers=headers, reason=_reason(resp.status)))
        assert head is not None
        chunks = [] if head_only else resp.chunks
        if self.conn.options.nagle_trap:
            # Two small writes with Nagle on: the second waits for the client's delayed ACK.
            self.conn.write(head)
            for chunk in chunks:
                self._write_data(chunk)
        elif resp.length <= SMALL_RESPONSE or head_only:
            self.conn.write(b"".join([head, *[bytes(self._data(c)) for c in chunks]]))
        else:
            self.conn.write(head)
            for chunk in chunks:
                for off in range(0, len(chunk), WRITE_CHUNK):
                    self._write_data(chunk[off : off + WRITE_CHUNK])
                    await self.conn.drain()
        self.h11.send(h11.EndOfMessage())

    def _data(self, chunk: bytes | memoryview) -> bytes | memoryview:
        # send_with_data_passthrough hands the body back unchanged (no copy) for
        # Content-Length framing; we only need h11 to track the byte count.
        parts = self.h11.send_with_data_passthrough(h11.Data(data=chunk))
        return b"".join(bytes(p) for p in parts) if parts and len(parts) > 1 else (parts[0] if parts else b"")

    def _write_data(self, chunk: bytes | memoryview) -> None:
        self.conn.write(self._data(chunk))

    async def _send_error(self, status: int, message: str) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            resp = routes._text(status, message)
            try:
                await self._send(resp, time.perf_counter_ns())
            except h11.LocalProtocolError:
                pass
        self.conn.close()


def _reason(status: int) -> bytes:
    try:
        return http.HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""
