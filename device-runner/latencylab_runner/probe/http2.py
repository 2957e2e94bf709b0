"""HTTP/2 client on a blocking TLS socket, one stream at a time.

Also carries gRPC (grpc.py builds the messages), so gRPC phases are measured the same
way as plain h2.

The framing is our own (RFC 9113), HPACK decoding is the `hpack` library's. The `h2`
library's general state machine cost ~0.15 ms of Python per request on a 2-vCPU host,
more than the reference server needed to answer (docs/methodology.md §6.3); a client
that only ever has one stream open needs little of it:

- requests are encoded without touching the HPACK dynamic table (static-table indexed
  fields and literals "without indexing", no Huffman), so the fixed part of every
  request's header block is built once per connection;
- the response side keeps full HPACK state (every header block on the connection is
  decoded, also on streams we no longer care about), flow control in both directions,
  SETTINGS/PING acknowledgements, CONTINUATION, padding, RST_STREAM and GOAWAY.

Anything the RFC calls a connection error raises H2ProtocolError (an "other" sample);
the connection is not reused afterwards.
"""

from __future__ import annotations

import ssl
import struct
import time
from collections.abc import Callable

import hpack
import hpack.exceptions

from .sample import Timeline, parse_server_timing
from .tcp import TcpConnection, remaining
from .types import Origin, ProbeFailure, ProbeRequest

RECV_SIZE = 256 * 1024
USER_AGENT = "latencylab-probe/0.1"
# Large receive windows: a download is limited by the network, not by WINDOW_UPDATE RTTs.
STREAM_WINDOW = 16 * 1024 * 1024
CONNECTION_WINDOW = 64 * 1024 * 1024
MAX_HEADER_LIST = 64 * 1024

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
F_END_STREAM = 0x1  # also ACK on SETTINGS / PING
F_END_HEADERS = 0x4
F_PADDED = 0x8
F_PRIORITY = 0x20
S_HEADER_TABLE_SIZE, S_ENABLE_PUSH, S_MAX_CONCURRENT_STREAMS, S_INITIAL_WINDOW_SIZE, S_MAX_FRAME_SIZE, \
    S_MAX_HEADER_LIST_SIZE = range(1, 7)
MAX_WINDOW = 2**31 - 1

_FRAME = struct.Struct(">HBBBL")  # 24-bit length as H + B, type, flags, stream id (R bit masked)
_U32 = struct.Struct(">L")
_SETTING = struct.Struct(">HL")


class H2ProtocolError(Exception):
    """The peer broke HTTP/2 (a connection error): an "other" sample, connection dropped."""


def _frame(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    n = len(payload)
    return _FRAME.pack(n >> 8, n & 0xFF, kind, flags, stream_id) + payload


def _int(value: int, prefix_bits: int, first: int) -> bytes:
    """HPACK integer (RFC 7541 §5.1) with the given high bits of the first byte."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes((first | value,))
    out = bytearray((first | limit,))
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _string(value: bytes) -> bytes:
    return _int(len(value), 7, 0x00) + value  # H=0: no Huffman


# Static table (RFC 7541 Appendix A) name indices of the fields we send.
_STATIC_NAME = {b":authority": 1, b":method": 2, b":path": 4, b":scheme": 6, b"content-length": 28,
                b"content-type": 31, b"user-agent": 58}
_STATIC_FULL = {(b":method", b"GET"): 2, (b":method", b"POST"): 3, (b":scheme", b"https"): 7}


def encode_field(name: str, value: str) -> bytes:
    """One header field that leaves the peer's dynamic table alone: fully indexed from the
    static table, else a literal without indexing (indexed or literal name)."""
    n, v = name.encode("ascii"), value.encode("utf-8")
    full = _STATIC_FULL.get((n, v))
    if full is not None:
        return bytes((0x80 | full,))
    idx = _STATIC_NAME.get(n)
    if idx is not None:
        return _int(idx, 4, 0x00) + _string(v)
    return b"\x00" + _string(n) + _string(v)


def _check_value(value: str, what: str) -> None:
    if not value or "\r" in value or "\n" in value or "\0" in value:
        raise H2ProtocolError(f"illegal {what}: {value[:200]!r}")


class H2Response:
    __slots__ = ("status", "headers", "trailers", "body", "ended", "reset_code")

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.trailers: dict[str, str] = {}
        self.body = bytearray()
        self.ended = False
        self.reset_code: int | None = None


class _Stream:
    """One stream of a concurrent batch (exchange_many); swapped into the single-stream
    fields of H2Client while one of its frames is processed."""

    __slots__ = ("id", "index", "tl", "resp", "send_window", "recv_unacked")

    def __init__(self, stream_id: int, index: int, tl: Timeline, send_window: int):
        self.id = stream_id
        self.index = index
        self.tl = tl
        self.resp = H2Response()
        self.send_window = send_window
        self.recv_unacked = 0


def _connection_failure(e: BaseException) -> ProbeFailure | None:
    """The ProbeFailure exchange() maps a socket / protocol exception to (None: a bug)."""
    if isinstance(e, ProbeFailure):
        return e
    if isinstance(e, TimeoutError):
        return ProbeFailure("timeout", "no complete response before the deadline")
    if isinstance(e, (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)):
        return ProbeFailure("reset", f"{type(e).__name__}: {e}")
    if isinstance(e, H2ProtocolError):
        return ProbeFailure("other", f"HTTP/2 protocol error: {e}")
    if isinstance(e, (OSError, ssl.SSLError)):
        return ProbeFailure("reset", f"{type(e).__name__}: {e}")
    return None


class H2Client:
    def __init__(self, conn: TcpConnection, origin: Origin):
        self.conn = conn
        self.origin = origin
        self.decoder = hpack.Decoder(max_header_list_size=MAX_HEADER_LIST)
        self.decoder.max_allowed_table_size = 4096  # our SETTINGS_HEADER_TABLE_SIZE (default)
        self.next_stream_id = 1
        self.peer_max_frame = 16384
        self.peer_initial_window = 65535
        self.send_window = 65535  # connection-level, toward the peer
        self.stream_send_window = 0
        self.recv_unacked = 0  # connection-level bytes consumed, not yet WINDOW_UPDATEd
        self.stream_recv_unacked = 0
        self.goaway_last_stream: int | None = None
        self._goaway_code = 0
        self._buf = bytearray()
        self._block: bytearray | None = None  # header block awaiting CONTINUATION
        self._block_stream = 0
        self._block_flags = 0
        self._stream_id = 0  # the open stream (0: none)
        self._resp: H2Response | None = None
        self._recv_ns = 0
        self._tl: Timeline | None = None
        # Client preface, our SETTINGS and the connection window: written together with
        # the first request (one write, as nghttp2 does).
        settings = b"".join(_SETTING.pack(k, v) for k, v in (
            (S_ENABLE_PUSH, 0), (S_INITIAL_WINDOW_SIZE, STREAM_WINDOW), (S_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST)))
        self._out = bytearray(PREFACE + _frame(SETTINGS, 0, 0, settings)
                              + _frame(WINDOW_UPDATE, 0, 0, _U32.pack(CONNECTION_WINDOW - 65535)))
        # Fixed request fields, encoded once per connection.
        self._pseudo = encode_field(":scheme", "https") + encode_field(":authority", origin.authority)
        self._user_agent = encode_field("user-agent", USER_AGENT)
        self._method_cache: dict[str, bytes] = {}
        # Frame dispatch: _frame_in for the one-stream path, _frame_in_multi while
        # exchange_many() has several streams open.
        self._dispatch = self._frame_in
        self._streams: dict[int, _Stream] = {}

    # -- idle ------------------------------------------------------------------
    def feed_idle(self, data: bytes) -> None:
        """Frames that arrived while idle (PING, SETTINGS, GOAWAY): process before reuse."""
        try:
            self._feed(data)
        except H2ProtocolError:
            self.conn.usable = False

    # -- request ---------------------------------------------------------------
    def exchange(
        self, method: str, path: str, body: bytes, tl: Timeline, deadline: float, extra_headers: list[tuple[str, str]]
    ) -> H2Response:
        sock = self.conn.sock
        try:
            if self.goaway_last_stream is not None:
                self.conn.usable = False
                raise ProbeFailure("reset", "connection closed by GOAWAY before the request")
            header_block = self._request_block(method, path, body, extra_headers)
            stream_id = self.next_stream_id
            if stream_id > MAX_WINDOW:
                self.conn.usable = False
                raise ProbeFailure("other", "HTTP/2 stream ids exhausted on this connection")
            self.next_stream_id += 2
            self._open(stream_id, tl)
            self._queue_headers(stream_id, header_block, end_stream=not body)
            sock.settimeout(remaining(deadline))
            tl.mark("req_start")
            if body:
                self._send_body(stream_id, body, deadline)
            sock.sendall(self._take_out())
            tl.mark("req_end")
            return self._read_response(tl, deadline)
        except TimeoutError as e:
            self.conn.usable = False
            raise ProbeFailure("timeout", "no complete response before the deadline") from e
        except (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e
        except H2ProtocolError as e:
            self.conn.usable = False
            raise ProbeFailure("other", f"HTTP/2 protocol error: {e}") from e
        except (OSError, ssl.SSLError) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e
        finally:
            self._stream_id = 0
            self._resp = None
            self._tl = None

    def _request_block(self, method: str, path: str, body: bytes, extra_headers: list[tuple[str, str]]) -> bytes:
        """The request's HPACK header block; pseudo-header fields first (RFC 9113 §8.3)."""
        _check_value(path, "path")
        block = self._method_cache.get(method)
        if block is None:
            block = self._method_cache[method] = encode_field(":method", method)
        fields = [block, self._pseudo, encode_field(":path", path), self._user_agent]
        for name, value in extra_headers:
            _check_value(name, "header name")
            _check_value(value, "header value")
            fields.append(encode_field(name, value))
        if body or method in ("POST", "PUT", "PATCH"):
            fields.append(encode_field("content-length", str(len(body))))
        return b"".join(fields)

    def exchange_many(
        self, reqs: list[ProbeRequest], new_timeline: Callable[[int], Timeline], deadline: float
    ) -> list[tuple[Timeline, H2Response | ProbeFailure]]:
        """All requests as concurrent streams, written in one go; one (timeline, response
        or failure) per request, in order. new_timeline(i) is called when request i is
        issued (its t0). Never raises ProbeFailure: a connection failure becomes the
        failure of every stream not finished by then (and the connection is not reused).

        Request bodies must fit the flow-control windows open at the start (no waiting
        for WINDOW_UPDATE with several streams open); a larger one fails its stream."""
        sock = self.conn.sock
        results: list[tuple[Timeline, H2Response | ProbeFailure] | None] = [None] * len(reqs)
        timelines: list[Timeline] = []
        streams: dict[int, _Stream] = {}
        self._streams = streams
        self._dispatch = self._frame_in_multi
        try:
            if self.goaway_last_stream is not None:
                self.conn.usable = False
                raise ProbeFailure("reset", "connection closed by GOAWAY before the request")
            conn_window = self.send_window
            for i, req in enumerate(reqs):
                tl = new_timeline(i)
                timelines.append(tl)
                try:
                    block = self._request_block(req.method, req.path, req.body, [])
                except H2ProtocolError as e:
                    results[i] = (tl, ProbeFailure("other", f"HTTP/2 protocol error: {e}"))
                    continue
                if len(req.body) > min(conn_window, self.peer_initial_window):
                    results[i] = (tl, ProbeFailure(
                        "other", "request body larger than the open flow-control window (concurrent streams)"))
                    continue
                stream_id = self.next_stream_id
                if stream_id > MAX_WINDOW:
                    self.conn.usable = False
                    results[i] = (tl, ProbeFailure("other", "HTTP/2 stream ids exhausted on this connection"))
                    continue
                self.next_stream_id += 2
                streams[stream_id] = _Stream(stream_id, i, tl, self.peer_initial_window - len(req.body))
                self._queue_headers(stream_id, block, end_stream=not req.body)
                body = req.body
                for off in range(0, len(body), self.peer_max_frame):
                    chunk = body[off : off + self.peer_max_frame]
                    end = off + len(chunk) == len(body)
                    self._out += _frame(DATA, F_END_STREAM if end else 0, stream_id, chunk)
                conn_window -= len(body)
                self.send_window -= len(body)
            sock.settimeout(remaining(deadline))
            now = time.perf_counter_ns()
            for st in streams.values():
                st.tl.mark("req_start", now)
            sock.sendall(self._take_out())
            now = time.perf_counter_ns()
            for st in streams.values():
                st.tl.mark("req_end", now)
            pending = dict(streams)
            while True:
                for stream_id, st in list(pending.items()):
                    resp = st.resp
                    if resp.ended:
                        results[st.index] = (st.tl, resp)
                    elif resp.reset_code is not None:
                        results[st.index] = (st.tl, ProbeFailure(
                            "reset", f"stream reset by server (error code {resp.reset_code})"))
                    elif self.goaway_last_stream is not None and stream_id > self.goaway_last_stream:
                        results[st.index] = (st.tl, ProbeFailure(
                            "reset", f"GOAWAY from server (error code {self._goaway_code})"))
                    else:
                        continue
                    st.tl.mark("app_done")  # this stream's response is with the app now
                    del pending[stream_id]
                if not pending:
                    break
                if self._out:
                    sock.sendall(self._take_out())
                self._recv_into_state(deadline)
            if self._out:
                sock.sendall(self._take_out())
            if self.goaway_last_stream is not None:
                self.conn.usable = False
        except Exception as e:  # noqa: BLE001 - becomes the failure of the unfinished streams
            self.conn.usable = False
            failure = _connection_failure(e) or ProbeFailure("other", f"{type(e).__name__}: {e}")
            for i in range(len(reqs)):
                if results[i] is None:
                    results[i] = (timelines[i] if i < len(timelines) else new_timeline(i), failure)
        finally:
            self._dispatch = self._frame_in
            self._streams = {}
            self._stream_id = 0
            self._resp = None
            self._tl = None
        return [r for r in results if r is not None]

    def _frame_in_multi(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:
        st = self._streams.get(stream_id) if stream_id else None
        if st is None:
            self._stream_id, self._resp, self._tl = 0, None, None
            before = self.peer_initial_window
            self._frame_in(kind, flags, stream_id, payload)
            if self.peer_initial_window != before:  # SETTINGS: applies to every open stream
                for other in self._streams.values():
                    other.send_window += self.peer_initial_window - before
            return
        self._stream_id, self._resp, self._tl = stream_id, st.resp, st.tl
        self.stream_send_window, self.stream_recv_unacked = st.send_window, st.recv_unacked
        try:
            self._frame_in(kind, flags, stream_id, payload)
        finally:
            st.send_window, st.recv_unacked = self.stream_send_window, self.stream_recv_unacked

    def _open(self, stream_id: int, tl: Timeline) -> None:
        self._stream_id = stream_id
        self._resp = H2Response()
        self._tl = tl
        self.stream_send_window = self.peer_initial_window
        self.stream_recv_unacked = 0

    def _take_out(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def _queue_headers(self, stream_id: int, block: bytes, end_stream: bool) -> None:
        flags = F_END_STREAM if end_stream else 0
        size = self.peer_max_frame
        if len(block) <= size:
            self._out += _frame(HEADERS, flags | F_END_HEADERS, stream_id, block)
            return
        self._out += _frame(HEADERS, flags, stream_id, block[:size])
        for off in range(size, len(block), size):
            last = off + size >= len(block)
            self._out += _frame(CONTINUATION, F_END_HEADERS if last else 0, stream_id, block[off : off + size])

    def _send_body(self, stream_id: int, body: bytes, deadline: float) -> None:
        view = memoryview(body)
        offset = 0
        resp = self._resp
        assert resp is not None
        while offset < len(view):
            if resp.ended or resp.reset_code is not None:
                return  # the server answered (or refused) before taking the whole body
            window = min(self.send_window, self.stream_send_window, self.peer_max_frame)
            if window <= 0:
                # Flush what we have and wait for WINDOW_UPDATE from the peer.
                self.conn.sock.sendall(self._take_out())
                self._recv_into_state(deadline)
                continue
            n = min(window, len(view) - offset)
            end = offset + n == len(view)
            self._out += _frame(DATA, F_END_STREAM if end else 0, stream_id, view[offset : offset + n].tobytes())
            self.send_window -= n
            self.stream_send_window -= n
            offset += n

    def _recv_into_state(self, deadline: float) -> None:
        sock = self.conn.sock
        sock.settimeout(remaining(deadline))
        data = sock.recv(RECV_SIZE)
        self._recv_ns = time.perf_counter_ns()
        if not data:
            self.conn.usable = False
            raise ProbeFailure("reset", "connection closed before the response completed")
        self._feed(data)

    def _read_response(self, tl: Timeline, deadline: float) -> H2Response:
        resp = self._resp
        assert resp is not None
        sock = self.conn.sock
        first = True
        while not resp.ended:
            if resp.reset_code is not None:
                raise ProbeFailure("reset", f"stream reset by server (error code {resp.reset_code})")
            if self.goaway_last_stream is not None and self._stream_id > self.goaway_last_stream:
                self.conn.usable = False
                raise ProbeFailure("reset", f"GOAWAY from server (error code {self._goaway_code})")
            if self._out:
                sock.sendall(self._take_out())
            if first:
                # exchange() set the timeout from the deadline microseconds ago: skip a
                # second settimeout (an ioctl) for the common single-read response.
                first = False
                remaining(deadline)
                data = sock.recv(RECV_SIZE)
                self._recv_ns = time.perf_counter_ns()
                if not data:
                    self.conn.usable = False
                    raise ProbeFailure("reset", "connection closed before the response completed")
                self._feed(data)
            else:
                self._recv_into_state(deadline)
        if self._out:
            sock.sendall(self._take_out())  # WINDOW_UPDATEs / SETTINGS or PING acks, after resp_end
        if self.goaway_last_stream is not None:
            self.conn.usable = False  # answered, but no further requests on this connection
        return resp

    # -- frames ----------------------------------------------------------------
    def _feed(self, data: bytes) -> None:
        buf = self._buf
        if buf:
            buf += data
            data = bytes(buf)
            buf.clear()
        pos, end = 0, len(data)
        unpack = _FRAME.unpack_from
        dispatch = self._dispatch
        while end - pos >= 9:
            hi, lo, kind, flags, stream_id = unpack(data, pos)
            length = (hi << 8) | lo
            if end - pos - 9 < length:
                break
            if length > 16384:  # our SETTINGS_MAX_FRAME_SIZE is the default
                raise H2ProtocolError(f"frame type {kind} of {length} bytes")
            payload = data[pos + 9 : pos + 9 + length]
            pos += 9 + length
            dispatch(kind, flags, stream_id & 0x7FFFFFFF, payload)
        if pos < end:
            buf += data[pos:]

    def _frame_in(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:
        if self._block is not None and kind != CONTINUATION:
            raise H2ProtocolError("expected CONTINUATION")
        if kind == DATA:
            self._data_in(flags, stream_id, payload)
        elif kind == HEADERS:
            if stream_id == 0:
                raise H2ProtocolError("HEADERS on stream 0")
            payload = self._unpad(flags, payload)
            if flags & F_PRIORITY:
                payload = payload[5:]
            if flags & F_END_HEADERS:
                self._headers_in(stream_id, flags, payload)
            else:
                self._block, self._block_stream, self._block_flags = bytearray(payload), stream_id, flags
        elif kind == CONTINUATION:
            if self._block is None or stream_id != self._block_stream:
                raise H2ProtocolError("unexpected CONTINUATION")
            self._block += payload
            if len(self._block) > 4 * MAX_HEADER_LIST:
                raise H2ProtocolError("header block too large")
            if flags & F_END_HEADERS:
                block, self._block = bytes(self._block), None
                self._headers_in(stream_id, self._block_flags, block)
        elif kind == SETTINGS:
            self._settings_in(flags, stream_id, payload)
        elif kind == WINDOW_UPDATE:
            if len(payload) != 4:
                raise H2ProtocolError("WINDOW_UPDATE size")
            inc = _U32.unpack(payload)[0] & 0x7FFFFFFF
            if stream_id == 0:
                if inc == 0:
                    raise H2ProtocolError("WINDOW_UPDATE of 0")
                self.send_window += inc
                if self.send_window > MAX_WINDOW:
                    raise H2ProtocolError("connection flow-control window overflow")
            elif stream_id == self._stream_id:
                self.stream_send_window += inc
        elif kind == PING:
            if len(payload) != 8 or stream_id != 0:
                raise H2ProtocolError("bad PING")
            if not flags & F_END_STREAM:  # not an ACK
                self._out += _frame(PING, 0x1, 0, payload)
        elif kind == RST_STREAM:
            if len(payload) != 4 or stream_id == 0:
                raise H2ProtocolError("bad RST_STREAM")
            if stream_id == self._stream_id and self._resp is not None and not self._resp.ended:
                self._resp.reset_code = _U32.unpack(payload)[0]
        elif kind == GOAWAY:
            if len(payload) < 8 or stream_id != 0:
                raise H2ProtocolError("bad GOAWAY")
            last = _U32.unpack_from(payload, 0)[0] & 0x7FFFFFFF
            self._goaway_code = _U32.unpack_from(payload, 4)[0]
            self.goaway_last_stream = last if self.goaway_last_stream is None else min(last, self.goaway_last_stream)
            self.conn.usable = False
        elif kind == PUSH_PROMISE:
            raise H2ProtocolError("PUSH_PROMISE although SETTINGS_ENABLE_PUSH=0")
        # PRIORITY and unknown frame types are ignored (RFC 9113 §5.5).

    @staticmethod
    def _unpad(flags: int, payload: bytes) -> bytes:
        if not flags & F_PADDED:
            return payload
        if not payload or payload[0] >= len(payload):
            raise H2ProtocolError("bad padding")
        return payload[1 : len(payload) - payload[0]]

    def _data_in(self, flags: int, stream_id: int, payload: bytes) -> None:
        if stream_id == 0:
            raise H2ProtocolError("DATA on stream 0")
        size = len(payload)  # flow control counts padding too
        self.recv_unacked += size
        if self.recv_unacked >= CONNECTION_WINDOW // 2:
            self._out += _frame(WINDOW_UPDATE, 0, 0, _U32.pack(self.recv_unacked))
            self.recv_unacked = 0
        resp = self._resp
        if stream_id != self._stream_id or resp is None or resp.ended:
            return  # a stream we no longer read (reset or finished): connection window only
        if resp.status is None or resp.status < 200:
            raise H2ProtocolError("DATA before the response headers")
        resp.body += self._unpad(flags, payload)
        if flags & F_END_STREAM:
            self._end(resp)
            return
        self.stream_recv_unacked += size
        if self.stream_recv_unacked >= STREAM_WINDOW // 2:
            self._out += _frame(WINDOW_UPDATE, 0, stream_id, _U32.pack(self.stream_recv_unacked))
            self.stream_recv_unacked = 0

    def _headers_in(self, stream_id: int, flags: int, block: bytes) -> None:
        try:
            fields = self.decoder.decode(block, raw=True)  # always: keeps HPACK state in sync
        except hpack.exceptions.HPACKError as e:
            raise H2ProtocolError(f"HPACK: {e!r}") from e
        resp = self._resp
        if stream_id != self._stream_id or resp is None or resp.ended:
            return
        try:
            headers = {k.decode("utf-8"): v.decode("utf-8") for k, v in fields}
        except UnicodeDecodeError as e:
            raise H2ProtocolError("header not UTF-8") from e
        if resp.status is None or resp.status < 200:
            status = headers.get(":status", "")
            if len(status) != 3 or not status.isdigit():
                raise H2ProtocolError(f"bad :status {status[:20]!r}")
            for name in headers:
                if name != name.lower():
                    raise H2ProtocolError(f"uppercase header name {name[:100]!r}")
            resp.status = int(status)
            if resp.status >= 200:
                # First byte of *our* response: the server's SETTINGS, sent before our
                # request, and 1xx interim responses do not count.
                tl = self._tl
                assert tl is not None
                tl.mark_once("resp_first_byte", self._recv_ns)
                tl.mark("resp_headers_end")
                resp.headers = headers
            elif flags & F_END_STREAM:
                raise H2ProtocolError("interim response ends the stream")
        else:
            if not flags & F_END_STREAM:
                raise H2ProtocolError("trailers without END_STREAM")
            resp.trailers = headers
        if flags & F_END_STREAM:
            self._end(resp)

    def _end(self, resp: H2Response) -> None:
        if resp.status is None or resp.status < 200:
            raise H2ProtocolError("stream ended without a final response")
        resp.ended = True
        tl = self._tl
        assert tl is not None
        tl.mark("resp_end")

    def _settings_in(self, flags: int, stream_id: int, payload: bytes) -> None:
        if stream_id != 0:
            raise H2ProtocolError("SETTINGS on a stream")
        if flags & F_END_STREAM:  # ACK of ours
            if payload:
                raise H2ProtocolError("SETTINGS ACK with a payload")
            return
        if len(payload) % 6:
            raise H2ProtocolError("SETTINGS size")
        for off in range(0, len(payload), 6):
            key, value = _SETTING.unpack_from(payload, off)
            if key == S_INITIAL_WINDOW_SIZE:
                if value > MAX_WINDOW:
                    raise H2ProtocolError("SETTINGS_INITIAL_WINDOW_SIZE too large")
                if self._stream_id:
                    self.stream_send_window += value - self.peer_initial_window
                self.peer_initial_window = value
            elif key == S_MAX_FRAME_SIZE:
                if not 16384 <= value <= 16777215:
                    raise H2ProtocolError("bad SETTINGS_MAX_FRAME_SIZE")
                self.peer_max_frame = value
            elif key == S_ENABLE_PUSH and value > 1:
                raise H2ProtocolError("bad SETTINGS_ENABLE_PUSH")
            # HEADER_TABLE_SIZE: we never index, so any size suits our encoder.
        self._out += _frame(SETTINGS, 0x1, 0)


def server_time_us(resp: H2Response) -> int | None:
    return parse_server_timing(resp.headers.get("server-timing"))
