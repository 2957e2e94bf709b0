"""HTTP/2 server side (h2 library) with gRPC dispatch on the same connection."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from typing import Any, cast

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from hpack import NeverIndexedHeaderTuple

from .. import grpcwire
from . import grpc_service, routes
from .transport import ARM_PROTOCOL_HEADER, TargetProtocol

# Generous windows so that uploads (POST /echo) are not throttled by WINDOW_UPDATE
# round trips; the probe measures the network, not our flow-control policy.
INITIAL_WINDOW = 16 * 1024 * 1024
CONNECTION_WINDOW = 64 * 1024 * 1024
# Body bytes a response may queue inline (in data_received) before a task takes over.
INLINE_BODY = 256 * 1024


class _Stream:
    __slots__ = ("headers", "body", "task", "window_open")

    def __init__(self, headers: dict[str, str]):
        self.headers = headers
        self.body = bytearray()
        self.task: asyncio.Task[None] | None = None
        self.window_open = asyncio.Event()


class H2Session:
    def __init__(self, conn: TargetProtocol):
        self.conn = conn
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8", validate_inbound_headers=True)
        self.h2 = h2.connection.H2Connection(config=config)
        self.h2.local_settings = h2.settings.Settings(
            client=False,
            initial_values={
                h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000,
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: INITIAL_WINDOW,
                h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 64 * 1024,
            },
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        self.streams: dict[int, _Stream] = {}
        self.flush()

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            self.conn.write(data)

    def connection_lost(self) -> None:
        for stream in self.streams.values():
            if stream.task is not None:
                stream.task.cancel()
        self.streams.clear()

    def data_received(self, data: bytes) -> None:
        # The Server-Timing clock of every request completed by these bytes starts now:
        # the same point as HTTP/1.1 (http1.py), so both measure the same thing.
        received_ns = time.perf_counter_ns()
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.conn.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                # header_encoding="utf-8" makes h2 decode them to str; its annotations say bytes.
                headers = cast(dict[str, str], dict(event.headers))
                self.streams[event.stream_id] = _Stream(headers)
            elif isinstance(event, h2.events.DataReceived):
                stream = self.streams.get(event.stream_id)
                if stream is not None:
                    stream.body += event.data
                    if len(stream.body) > routes.MAX_ECHO_BYTES:
                        self._reset(event.stream_id)
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id)
                if stream is not None:
                    self._dispatch(event.stream_id, stream, received_ns)
            elif isinstance(event, h2.events.WindowUpdated):
                targets = self.streams.values() if event.stream_id == 0 else [self.streams.get(event.stream_id)]
                for s in targets:
                    if s is not None:
                        s.window_open.set()
            elif isinstance(event, h2.events.StreamReset):
                stream = self.streams.pop(event.stream_id, None)
                if stream is not None and stream.task is not None:
                    stream.task.cancel()
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.flush()
                self.conn.close()
                return
        self.flush()  # one write for every response answered inline above

    def _reset(self, stream_id: int) -> None:
        stream = self.streams.pop(stream_id, None)
        if stream is not None and stream.task is not None:
            stream.task.cancel()
        try:
            self.h2.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
        except h2.exceptions.ProtocolError:
            pass

    def _plan(self, stream: _Stream) -> _Reply:
        """The response as headers (without Server-Timing), body chunks and trailers."""
        path = stream.headers.get(":path", "/")
        if stream.headers.get("content-type", "").startswith("application/grpc"):
            deframer = grpcwire.Deframer()
            try:
                messages = deframer.feed(bytes(stream.body))
                if deframer.pending:
                    raise grpcwire.WireError("trailing partial gRPC message")
                result = grpc_service.handle(path, messages)
            except grpcwire.WireError as e:
                result = grpc_service.GrpcResult(status=grpcwire.INVALID_ARGUMENT, message=str(e))
            headers = [(":status", "200"), ("content-type", "application/grpc"),
                       *self.conn.options.common_headers(stream.headers.get(ARM_PROTOCOL_HEADER))]
            if result.status != grpcwire.OK:
                # Trailers-only response.
                headers += [("grpc-status", str(result.status)), ("grpc-message", _grpc_message(result.message))]
                return _Reply(headers, iter(()), None, result.delay_s)
            return _Reply(headers, (grpcwire.frame(m) for m in result.messages), [("grpc-status", "0")],
                          result.delay_s)
        method = stream.headers.get(":method", "GET")
        resp = routes.handle(method, path, bytes(stream.body))
        headers = [
            (":status", str(resp.status)),
            ("content-type", resp.content_type),
            ("content-length", str(resp.length)),
            *resp.extra_headers,
            *self.conn.options.common_headers(stream.headers.get(ARM_PROTOCOL_HEADER)),
        ]
        no_body = method == "HEAD" or resp.length == 0
        return _Reply(headers, iter(()) if no_body else iter(resp.chunks), None, resp.delay_s)

    def _dispatch(self, stream_id: int, stream: _Stream, done_ns: int) -> None:
        try:
            reply = self._plan(stream)
            if reply.delay_s:
                later = self._respond_later(stream_id, stream, reply, done_ns)
                stream.task = asyncio.get_running_loop().create_task(later)
                return
            self._send_headers(stream_id, reply, done_ns)
            # Inline while the flow-control window and INLINE_BODY allow; the rest in a task.
            # END_STREAM rides on the last DATA frame (as nginx does), not an extra empty one.
            budget = INLINE_BODY
            chunks = reply.body
            chunk = next(chunks, None)
            while chunk is not None and not reply.ended:
                following = next(chunks, None)
                view = memoryview(chunk)
                sent = self._send_now(stream_id, view, budget, reply if following is None else None)
                budget -= sent
                if sent < len(view):
                    reply.pending = view[sent:]
                    reply.body = chunks if following is None else itertools.chain([following], chunks)
                    stream.task = asyncio.get_running_loop().create_task(self._finish_later(stream_id, stream, reply))
                    return
                chunk = following
            self._end(stream_id, reply)
            self.streams.pop(stream_id, None)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self.streams.pop(stream_id, None)

    def _send_headers(self, stream_id: int, reply: _Reply, done_ns: int) -> None:
        # A value that changes with every response: never indexed, so it does not churn
        # the HPACK dynamic tables of both ends (an insert + eviction per response).
        timing = NeverIndexedHeaderTuple("server-timing", routes.server_timing(time.perf_counter_ns() - done_ns))
        headers: list[Any] = [*reply.headers, timing]
        ends = reply.trailers is None and _is_empty(reply)
        self.h2.send_headers(stream_id, headers, end_stream=ends)
        reply.ended = ends

    def _end(self, stream_id: int, reply: _Reply) -> None:
        if reply.ended:
            return
        if reply.trailers is not None:
            self.h2.send_headers(stream_id, reply.trailers, end_stream=True)
        else:
            self.h2.end_stream(stream_id)
        reply.ended = True

    def _send_now(self, stream_id: int, view: memoryview, budget: int, last_of: _Reply | None = None) -> int:
        """Queue DATA frames for as much of view as the windows and budget allow; bytes queued.

        last_of: view is that reply's last body chunk, and it has no trailers: the frame
        carrying its final byte also ends the stream (reply.ended is set)."""
        offset = 0
        ends = last_of is not None and last_of.trailers is None
        while offset < len(view) and offset < budget:
            window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size,
                         budget - offset)
            if window <= 0:
                break
            n = min(window, len(view) - offset)
            end = ends and offset + n == len(view)
            self.h2.send_data(stream_id, bytes(view[offset : offset + n]), end_stream=end)
            offset += n
            if end:
                if last_of is None:
                    raise RuntimeError("last_of is None")
                last_of.ended = True
            if self.conn.options.nagle_trap:
                self.flush()  # one write per frame keeps the trap's small-write pattern
        return offset

    async def _respond_later(self, stream_id: int, stream: _Stream, reply: _Reply, done_ns: int) -> None:
        try:
            await asyncio.sleep(reply.delay_s)
            self._send_headers(stream_id, reply, done_ns)
            self.flush()
            await self._finish(stream_id, stream, reply)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass  # client went away mid-response
        finally:
            self.streams.pop(stream_id, None)

    async def _finish_later(self, stream_id: int, stream: _Stream, reply: _Reply) -> None:
        try:
            await self._finish(stream_id, stream, reply)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        finally:
            self.streams.pop(stream_id, None)

    async def _finish(self, stream_id: int, stream: _Stream, reply: _Reply) -> None:
        if reply.pending is not None:
            pending, reply.pending = reply.pending, None
            await self._send_data(stream_id, stream, pending)
        for chunk in reply.body:
            await self._send_data(stream_id, stream, chunk)
        self._end(stream_id, reply)
        self.flush()

    async def _send_data(self, stream_id: int, stream: _Stream, data: bytes | memoryview) -> None:
        view = memoryview(data)
        offset = 0
        while offset < len(view):
            window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size)
            if window <= 0:
                stream.window_open.clear()
                await stream.window_open.wait()
                if self.conn.closed:
                    raise h2.exceptions.StreamClosedError(stream_id)
                continue
            n = min(window, len(view) - offset)
            self.h2.send_data(stream_id, bytes(view[offset : offset + n]))
            offset += n
            if self.conn.options.nagle_trap:
                self.flush()  # one write per frame keeps the trap's small-write pattern
        self.flush()
        await self.conn.drain()
        if self.conn.closed:
            raise h2.exceptions.StreamClosedError(stream_id)


class _Reply:
    """One stream's response; body is consumed lazily (a 50 MB download never materialises)."""

    __slots__ = ("headers", "body", "trailers", "delay_s", "pending", "ended")

    def __init__(self, headers: list[tuple[str, str]], body: Iterator[bytes | memoryview],
                 trailers: list[tuple[str, str]] | None, delay_s: float):
        self.headers = headers
        self.body = body
        self.trailers = trailers
        self.delay_s = delay_s
        self.pending: memoryview | None = None
        self.ended = False


def _is_empty(reply: _Reply) -> bool:
    """Whether the body iterator yields no bytes; peeks without losing the first chunk."""
    for chunk in reply.body:
        if len(chunk):
            reply.body = itertools.chain([chunk], reply.body)
            return False
    reply.body = iter(())
    return True


def _grpc_message(text: str) -> str:
    # grpc-message is percent-encoded per the gRPC HTTP/2 spec.
    return "".join(c if 0x20 <= ord(c) < 0x7F and c != "%" else "".join(f"%{b:02X}" for b in c.encode()) for c in text)
