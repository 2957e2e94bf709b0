"""The client side of one HTTP/2 connection without I/O (RFC 9113): bytes in, events out.

No socket, no clock and no error classes here. The socket layer (http2.py) writes
data_to_send(), feeds what it receives to receive_data(), acts on the events, stamps
the phases and maps failures to the contract's error classes; the single-request and
the concurrent-streams paths drive the same H2Connection.

The framing is our own, HPACK decoding is the `hpack` library's. The `h2` library's
general state machine cost ~0.15 ms of Python per request on a 2-vCPU host, more than
the reference server needed to answer (docs/methodology.md §6.3); a client needs little
of it:

- requests are encoded without touching the HPACK dynamic table (static-table indexed
  fields and literals "without indexing", no Huffman), so the fixed part of every
  request's header block is built once per connection;
- the response side keeps full HPACK state (every header block on the connection is
  decoded, also on streams no longer tracked), flow control in both directions,
  SETTINGS/PING acknowledgements, CONTINUATION, padding, RST_STREAM and GOAWAY.

Anything the RFC calls a connection error raises H2ProtocolError; the connection must
not be used afterwards.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

import hpack
import hpack.exceptions

USER_AGENT = "latencylab-probe/0.1"
# Large receive windows: a download is limited by the network, not by WINDOW_UPDATE RTTs.
STREAM_WINDOW = 16 * 1024 * 1024
CONNECTION_WINDOW = 64 * 1024 * 1024
MAX_HEADER_LIST = 64 * 1024
DEFAULT_WINDOW = 65535  # RFC 9113 §6.9.2, until the peer's SETTINGS / WINDOW_UPDATE say otherwise
DEFAULT_MAX_FRAME = 16384  # ours stays the default: we never announce SETTINGS_MAX_FRAME_SIZE

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
F_END_STREAM = 0x1  # also ACK on SETTINGS / PING
F_ACK = 0x1
F_END_HEADERS = 0x4
F_PADDED = 0x8
F_PRIORITY = 0x20
S_ENABLE_PUSH, S_INITIAL_WINDOW_SIZE, S_MAX_FRAME_SIZE, S_MAX_HEADER_LIST_SIZE = 2, 4, 5, 6
MAX_WINDOW = 2**31 - 1
MAX_STREAM_ID = 2**31 - 1

_FRAME = struct.Struct(">HBBBL")  # 24-bit length as H + B, type, flags, stream id (R bit masked)
_U32 = struct.Struct(">L")
_SETTING = struct.Struct(">HL")


class H2Error(Exception):
    """Base of everything the core raises."""


class H2ProtocolError(H2Error):
    """The peer broke HTTP/2 (a connection error): the connection must be dropped."""


class H2RequestError(H2Error, ValueError):
    """This request cannot be sent as given (an illegal path or header); nothing was queued."""


class GoingAway(H2Error):
    """The peer sent GOAWAY: no new stream may be opened on this connection."""


class StreamIdsExhausted(H2Error):
    """Every client stream id of this connection has been used."""


# --- events ------------------------------------------------------------------------


@dataclass(slots=True)
class ResponseReceived:
    """The final (non-1xx) response header block of a tracked stream."""

    stream_id: int
    status: int
    headers: dict[str, str]


@dataclass(slots=True)
class DataReceived:
    """Body bytes of a tracked stream (padding removed)."""

    stream_id: int
    data: bytes


@dataclass(slots=True)
class TrailersReceived:
    stream_id: int
    trailers: dict[str, str]


@dataclass(slots=True)
class StreamEnded:
    """The response is complete; the stream is no longer tracked."""

    stream_id: int


@dataclass(slots=True)
class StreamReset:
    """RST_STREAM from the peer on a tracked stream; the stream is no longer tracked."""

    stream_id: int
    error_code: int


@dataclass(slots=True)
class ConnectionTerminated:
    """GOAWAY: streams above last_stream_id were not processed (and are no longer
    tracked); those at or below it may still complete. No new streams."""

    last_stream_id: int
    error_code: int


@dataclass(slots=True)
class SettingsReceived:
    """The peer's SETTINGS (already applied and acknowledged)."""

    settings: dict[int, int]


@dataclass(slots=True)
class WindowUpdated:
    """WINDOW_UPDATE from the peer (stream 0: the connection)."""

    stream_id: int
    increment: int


@dataclass(slots=True)
class PingReceived:
    """A PING from the peer (already answered)."""

    data: bytes


H2Event = (ResponseReceived | DataReceived | TrailersReceived | StreamEnded | StreamReset | ConnectionTerminated
           | SettingsReceived | WindowUpdated | PingReceived)


# --- encoding ----------------------------------------------------------------------


def frame(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
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
        raise H2RequestError(f"illegal {what}: {value[:200]!r}")


def _unpad(flags: int, payload: bytes) -> bytes:
    if not flags & F_PADDED:
        return payload
    if not payload or payload[0] >= len(payload):
        raise H2ProtocolError("bad padding")
    return payload[1 : len(payload) - payload[0]]


# --- the connection ----------------------------------------------------------------


class _Stream:
    """A stream we still expect frames on: its windows, whether its final response has
    started, and the part of its request body still waiting for flow-control window."""

    __slots__ = ("id", "send_window", "recv_unacked", "started", "body", "body_offset")

    def __init__(self, stream_id: int, send_window: int):
        self.id = stream_id
        self.send_window = send_window
        self.recv_unacked = 0  # bytes consumed, not yet WINDOW_UPDATEd
        self.started = False  # final response headers seen
        self.body: memoryview | None = None
        self.body_offset = 0


class H2Connection:
    """One client connection's HTTP/2 state. The client preface, our SETTINGS and the
    connection window are queued at once, so they leave with the first request (one
    write, as nghttp2 does)."""

    def __init__(self, authority: str, user_agent: str = USER_AGENT):
        self.decoder = hpack.Decoder(max_header_list_size=MAX_HEADER_LIST)
        self.decoder.max_allowed_table_size = 4096  # our SETTINGS_HEADER_TABLE_SIZE (default)
        self.next_stream_id = 1
        self.peer_max_frame = DEFAULT_MAX_FRAME
        self.peer_initial_window = DEFAULT_WINDOW
        self.send_window = DEFAULT_WINDOW  # connection-level, toward the peer
        self.recv_unacked = 0  # connection-level bytes received, not yet WINDOW_UPDATEd
        self.goaway_last_stream: int | None = None
        self.goaway_code = 0
        self._streams: dict[int, _Stream] = {}
        self._blocked: dict[int, _Stream] = {}  # streams whose body waits for window
        self._events: list[H2Event] = []  # of the receive_data() call in progress
        self._buf = bytearray()  # an incomplete frame
        self._block: bytearray | None = None  # header block awaiting CONTINUATION
        self._block_stream = 0
        self._block_flags = 0
        settings = b"".join(_SETTING.pack(k, v) for k, v in (
            (S_ENABLE_PUSH, 0), (S_INITIAL_WINDOW_SIZE, STREAM_WINDOW), (S_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST)))
        self._out = bytearray(PREFACE + frame(SETTINGS, 0, 0, settings)
                              + frame(WINDOW_UPDATE, 0, 0, _U32.pack(CONNECTION_WINDOW - DEFAULT_WINDOW)))
        # Fixed request fields, encoded once per connection.
        self._pseudo = encode_field(":scheme", "https") + encode_field(":authority", authority)
        self._user_agent = encode_field("user-agent", user_agent)
        self._method_cache: dict[str, bytes] = {}

    # -- output ------------------------------------------------------------------
    @property
    def has_output(self) -> bool:
        return bool(self._out)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    # -- requests ----------------------------------------------------------------
    def send_request(self, method: str, path: str, body: bytes = b"",
                     extra_headers: Iterable[tuple[str, str]] = ()) -> int:
        """Opens a stream and queues the request: HEADERS (+ CONTINUATION) and as much of
        the body as the flow-control windows allow; the rest follows as the peer opens
        them. Returns the stream id. Raises H2RequestError (nothing queued), GoingAway or
        StreamIdsExhausted."""
        if self.goaway_last_stream is not None:
            raise GoingAway("connection closed by GOAWAY before the request")
        block = self._request_block(method, path, body, extra_headers)
        stream_id = self.next_stream_id
        if stream_id > MAX_STREAM_ID:
            raise StreamIdsExhausted("HTTP/2 stream ids exhausted on this connection")
        self.next_stream_id += 2
        st = self._streams[stream_id] = _Stream(stream_id, self.peer_initial_window)
        self._queue_headers(stream_id, block, end_stream=not body)
        if body:
            st.body = memoryview(body)
            self._send_body(st)
        return stream_id

    @property
    def bodies_waiting(self) -> bool:
        """Whether some request body waits for the peer's flow-control window."""
        return bool(self._blocked)

    def body_remaining(self, stream_id: int) -> int:
        """Request body bytes of the stream not yet queued (0 once all are, or when the
        stream is no longer tracked: a response that ends early ends the upload too)."""
        st = self._streams.get(stream_id)
        if st is None or st.body is None:
            return 0
        return len(st.body) - st.body_offset

    def forget(self, stream_id: int) -> None:
        """Stop tracking a stream: its later frames are still parsed (HPACK, connection
        window) but produce no events, and the rest of its body is not sent."""
        self._streams.pop(stream_id, None)
        self._blocked.pop(stream_id, None)

    @property
    def open_streams(self) -> list[int]:
        return list(self._streams)

    def _request_block(self, method: str, path: str, body: bytes, extra_headers: Iterable[tuple[str, str]]) -> bytes:
        """The request's HPACK header block; pseudo-header fields first (RFC 9113 §8.3)."""
        _check_value(path, "path")
        block = self._method_cache.get(method)
        if block is None:
            _check_value(method, "method")
            block = self._method_cache[method] = encode_field(":method", method)
        fields = [block, self._pseudo, encode_field(":path", path), self._user_agent]
        for name, value in extra_headers:
            _check_value(name, "header name")
            _check_value(value, "header value")
            fields.append(encode_field(name, value))
        if body or method in ("POST", "PUT", "PATCH"):
            fields.append(encode_field("content-length", str(len(body))))
        return b"".join(fields)

    def _queue_headers(self, stream_id: int, block: bytes, end_stream: bool) -> None:
        flags = F_END_STREAM if end_stream else 0
        size = self.peer_max_frame
        if len(block) <= size:
            self._out += frame(HEADERS, flags | F_END_HEADERS, stream_id, block)
            return
        self._out += frame(HEADERS, flags, stream_id, block[:size])
        for off in range(size, len(block), size):
            last = off + size >= len(block)
            self._out += frame(CONTINUATION, F_END_HEADERS if last else 0, stream_id, block[off : off + size])

    def _send_body(self, st: _Stream) -> None:
        view = st.body
        if view is None:
            raise RuntimeError("view is None")
        offset, total, out = st.body_offset, len(view), self._out
        while offset < total:
            n = min(self.send_window, st.send_window, self.peer_max_frame, total - offset)
            if n <= 0:
                break
            flags = F_END_STREAM if offset + n == total else 0
            out += _FRAME.pack(n >> 8, n & 0xFF, DATA, flags, st.id)
            out += view[offset : offset + n]
            self.send_window -= n
            st.send_window -= n
            offset += n
        st.body_offset = offset
        if offset < total:
            self._blocked[st.id] = st
        else:
            st.body = None
            self._blocked.pop(st.id, None)

    def _send_blocked(self) -> None:
        for st in list(self._blocked.values()):
            if self.send_window <= 0:
                return
            self._send_body(st)

    # -- input -------------------------------------------------------------------
    def receive_data(self, data: bytes) -> list[H2Event]:
        """Parses every complete frame in what has arrived so far (a partial frame waits
        for the next call); returns the events, in order. Replies (SETTINGS and PING
        acks, WINDOW_UPDATEs, body DATA unblocked by the peer) are queued for
        data_to_send(). Raises H2ProtocolError on a connection error."""
        events: list[H2Event] = []
        self._events = events
        buf = self._buf
        if buf:
            buf += data
            data = bytes(buf)
            buf.clear()
        pos, end = 0, len(data)
        unpack = _FRAME.unpack_from
        frame_in = self._frame_in
        while end - pos >= 9:
            hi, lo, kind, flags, stream_id = unpack(data, pos)
            length = (hi << 8) | lo
            if end - pos - 9 < length:
                break
            if length > DEFAULT_MAX_FRAME:
                raise H2ProtocolError(f"frame type {kind} of {length} bytes")
            payload = data[pos + 9 : pos + 9 + length]
            pos += 9 + length
            frame_in(kind, flags, stream_id & 0x7FFFFFFF, payload)
        if pos < end:
            buf += data[pos:]
        return events

    def _frame_in(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:  # noqa: C901  the frame-type dispatch of RFC 9113 §6, kept in one place
        if self._block is not None and kind != CONTINUATION:
            raise H2ProtocolError("expected CONTINUATION")
        if kind == DATA:
            self._data_in(flags, stream_id, payload)
        elif kind == HEADERS:
            if stream_id == 0:
                raise H2ProtocolError("HEADERS on stream 0")
            payload = _unpad(flags, payload)
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
            self._window_update_in(stream_id, payload)
        elif kind == PING:
            if len(payload) != 8 or stream_id != 0:
                raise H2ProtocolError("bad PING")
            if not flags & F_ACK:
                self._out += frame(PING, F_ACK, 0, payload)
                self._events.append(PingReceived(payload))
        elif kind == RST_STREAM:
            if len(payload) != 4 or stream_id == 0:
                raise H2ProtocolError("bad RST_STREAM")
            if stream_id in self._streams:
                self.forget(stream_id)
                self._events.append(StreamReset(stream_id, _U32.unpack(payload)[0]))
        elif kind == GOAWAY:
            if len(payload) < 8 or stream_id != 0:
                raise H2ProtocolError("bad GOAWAY")
            last = _U32.unpack_from(payload, 0)[0] & 0x7FFFFFFF
            self.goaway_code = _U32.unpack_from(payload, 4)[0]
            if self.goaway_last_stream is not None:
                last = min(last, self.goaway_last_stream)
            self.goaway_last_stream = last
            for refused in [s for s in self._streams if s > last]:
                self.forget(refused)
            self._events.append(ConnectionTerminated(last, self.goaway_code))
        elif kind == PUSH_PROMISE:
            raise H2ProtocolError("PUSH_PROMISE although SETTINGS_ENABLE_PUSH=0")
        # PRIORITY and unknown frame types are ignored (RFC 9113 §5.5).

    def _data_in(self, flags: int, stream_id: int, payload: bytes) -> None:
        if stream_id == 0:
            raise H2ProtocolError("DATA on stream 0")
        size = len(payload)  # flow control counts padding too
        self.recv_unacked += size
        if self.recv_unacked >= CONNECTION_WINDOW // 2:
            self._out += frame(WINDOW_UPDATE, 0, 0, _U32.pack(self.recv_unacked))
            self.recv_unacked = 0
        st = self._streams.get(stream_id)
        if st is None:
            return  # a stream we no longer track (reset, finished, forgotten): connection window only
        if not st.started:
            raise H2ProtocolError("DATA before the response headers")
        data = _unpad(flags, payload)
        if data:
            self._events.append(DataReceived(stream_id, data))
        if flags & F_END_STREAM:
            self._end(st)
            return
        st.recv_unacked += size
        if st.recv_unacked >= STREAM_WINDOW // 2:
            self._out += frame(WINDOW_UPDATE, 0, stream_id, _U32.pack(st.recv_unacked))
            st.recv_unacked = 0

    def _headers_in(self, stream_id: int, flags: int, block: bytes) -> None:
        try:
            fields = self.decoder.decode(block, raw=True)  # always: keeps HPACK state in sync
        except hpack.exceptions.HPACKError as e:
            raise H2ProtocolError(f"HPACK: {e!r}") from e
        st = self._streams.get(stream_id)
        if st is None:
            return
        try:
            headers = {k.decode("utf-8"): v.decode("utf-8") for k, v in fields}
        except UnicodeDecodeError as e:
            raise H2ProtocolError("header not UTF-8") from e
        if not st.started:
            status = headers.get(":status", "")
            if len(status) != 3 or not status.isdigit():
                raise H2ProtocolError(f"bad :status {status[:20]!r}")
            for name in headers:
                if name != name.lower():
                    raise H2ProtocolError(f"uppercase header name {name[:100]!r}")
            code = int(status)
            if code >= 200:
                st.started = True
                self._events.append(ResponseReceived(stream_id, code, headers))
            elif flags & F_END_STREAM:
                raise H2ProtocolError("interim response ends the stream")
            # 1xx: interim, the final response follows on the same stream.
        else:
            if not flags & F_END_STREAM:
                raise H2ProtocolError("trailers without END_STREAM")
            self._events.append(TrailersReceived(stream_id, headers))
        if flags & F_END_STREAM:
            self._end(st)

    def _end(self, st: _Stream) -> None:
        if not st.started:
            raise H2ProtocolError("stream ended without a final response")
        del self._streams[st.id]
        if self._blocked:
            self._blocked.pop(st.id, None)  # the server answered before taking the whole body
        self._events.append(StreamEnded(st.id))

    def _window_update_in(self, stream_id: int, payload: bytes) -> None:
        if len(payload) != 4:
            raise H2ProtocolError("WINDOW_UPDATE size")
        inc = _U32.unpack(payload)[0] & 0x7FFFFFFF
        if stream_id == 0:
            if inc == 0:
                raise H2ProtocolError("WINDOW_UPDATE of 0")
            self.send_window += inc
            if self.send_window > MAX_WINDOW:
                raise H2ProtocolError("connection flow-control window overflow")
        else:
            st = self._streams.get(stream_id)
            if st is None:
                return  # a stream we no longer track
            st.send_window += inc
        self._events.append(WindowUpdated(stream_id, inc))
        if self._blocked:
            self._send_blocked()

    def _settings_in(self, flags: int, stream_id: int, payload: bytes) -> None:
        if stream_id != 0:
            raise H2ProtocolError("SETTINGS on a stream")
        if flags & F_ACK:  # ACK of ours
            if payload:
                raise H2ProtocolError("SETTINGS ACK with a payload")
            return
        if len(payload) % 6:
            raise H2ProtocolError("SETTINGS size")
        received: dict[int, int] = {}
        for off in range(0, len(payload), 6):
            key, value = _SETTING.unpack_from(payload, off)
            received[key] = value
            if key == S_INITIAL_WINDOW_SIZE:
                if value > MAX_WINDOW:
                    raise H2ProtocolError("SETTINGS_INITIAL_WINDOW_SIZE too large")
                delta = value - self.peer_initial_window
                for st in self._streams.values():  # applies to every open stream (§6.9.2)
                    st.send_window += delta
                self.peer_initial_window = value
            elif key == S_MAX_FRAME_SIZE:
                if not 16384 <= value <= 16777215:
                    raise H2ProtocolError("bad SETTINGS_MAX_FRAME_SIZE")
                self.peer_max_frame = value
            elif key == S_ENABLE_PUSH and value > 1:
                raise H2ProtocolError("bad SETTINGS_ENABLE_PUSH")
            # HEADER_TABLE_SIZE: we never index, so any size suits our encoder.
        self._out += frame(SETTINGS, F_ACK, 0)
        self._events.append(SettingsReceived(received))
        if self._blocked:
            self._send_blocked()
