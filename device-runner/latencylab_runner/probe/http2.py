"""HTTP/2 client on a blocking TLS socket (h2 library), one stream at a time.

Also carries gRPC (grpc.py builds the messages), so gRPC phases are measured the same
way as plain h2.
"""

from __future__ import annotations

import socket
import ssl
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

from .sample import Timeline, parse_server_timing
from .tcp import TcpConnection, remaining
from .types import Origin, ProbeFailure

RECV_SIZE = 256 * 1024
USER_AGENT = "latencylab-probe/0.1"
# Large receive windows: a download is limited by the network, not by WINDOW_UPDATE RTTs.
STREAM_WINDOW = 16 * 1024 * 1024
CONNECTION_WINDOW = 64 * 1024 * 1024


class H2Response:
    __slots__ = ("status", "headers", "trailers", "body")

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.trailers: dict[str, str] = {}
        self.body = bytearray()


def _config() -> h2.config.H2Configuration:
    # Outbound validation/normalisation walks every header of every request in Python;
    # the probe builds its own lowercase headers, and _check_value() rejects the only
    # caller-supplied parts (path, extra headers) that could be malformed. Inbound
    # validation stays on: a malformed response must still be a protocol error.
    return h2.config.H2Configuration(
        client_side=True, header_encoding="utf-8", validate_outbound_headers=False,
        normalize_outbound_headers=False,
    )


def _check_value(value: str, what: str) -> None:
    if not value or "\r" in value or "\n" in value or "\0" in value:
        raise h2.exceptions.ProtocolError(f"illegal {what}: {value[:200]!r}")


_RESPONSE = h2.events.ResponseReceived
_DATA = h2.events.DataReceived
_TRAILERS = h2.events.TrailersReceived
_ENDED = h2.events.StreamEnded
_RESET = h2.events.StreamReset
_TERMINATED = h2.events.ConnectionTerminated


class H2Client:
    def __init__(self, conn: TcpConnection, origin: Origin):
        self.conn = conn
        self.origin = origin
        self.h2 = h2.connection.H2Connection(config=_config())
        self.h2.local_settings = h2.settings.Settings(
            client=True,
            initial_values={
                h2.settings.SettingCodes.ENABLE_PUSH: 0,
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW,
                h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 64 * 1024,
            },
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        self._pending_events: list[h2.events.Event] = []
        # Fixed request headers, built once per connection (Origin.authority parses the
        # host as an IP address on every access).
        self._scheme = (":scheme", "https")
        self._authority = (":authority", origin.authority)
        self._user_agent = ("user-agent", USER_AGENT)
        # The preface is written together with the first request (one write, as nghttp2).

    def feed_idle(self, data: bytes) -> None:
        """Frames that arrived while idle (PING, SETTINGS, GOAWAY): process before reuse."""
        try:
            for event in self.h2.receive_data(data):
                if isinstance(event, h2.events.ConnectionTerminated):
                    self.conn.usable = False
        except h2.exceptions.ProtocolError:
            self.conn.usable = False

    def exchange(
        self, method: str, path: str, body: bytes, tl: Timeline, deadline: float, extra_headers: list[tuple[str, str]]
    ) -> H2Response:
        sock = self.conn.sock
        try:
            _check_value(path, "path")
            for name, value in extra_headers:
                _check_value(name, "header name")
                _check_value(value, "header value")
            conn = self.h2
            stream_id = conn.get_next_available_stream_id()
            headers = [(":method", method), self._scheme, self._authority, (":path", path), self._user_agent]
            if extra_headers:
                headers += extra_headers
            if body or method in ("POST", "PUT", "PATCH"):
                headers.append(("content-length", str(len(body))))
            conn.send_headers(stream_id, headers, end_stream=not body)
            sock.settimeout(remaining(deadline))
            tl.mark("req_start")
            if body:
                self._send_body(stream_id, body, deadline)
            sock.sendall(conn.data_to_send())
            tl.mark("req_end")
            return self._read_response(stream_id, tl, deadline)
        except TimeoutError as e:
            self.conn.usable = False
            raise ProbeFailure("timeout", "no complete response before the deadline") from e
        except (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e
        except h2.exceptions.ProtocolError as e:
            self.conn.usable = False
            raise ProbeFailure("other", f"HTTP/2 protocol error: {e!r}") from e
        except (ssl.SSLError, socket.error) as e:
            self.conn.usable = False
            raise ProbeFailure("reset", f"{type(e).__name__}: {e}") from e

    def _send_body(self, stream_id: int, body: bytes, deadline: float) -> None:
        view = memoryview(body)
        offset = 0
        while offset < len(view):
            window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size)
            if window <= 0:
                # Flush what we have and wait for WINDOW_UPDATE from the peer.
                self.conn.sock.sendall(self.h2.data_to_send())
                self.conn.sock.settimeout(remaining(deadline))
                data = self.conn.sock.recv(RECV_SIZE)
                if not data:
                    raise ProbeFailure("reset", "connection closed while uploading")
                self._pending_events.extend(self.h2.receive_data(data))
                continue
            n = min(window, len(view) - offset)
            self.h2.send_data(stream_id, bytes(view[offset : offset + n]), end_stream=offset + n == len(view))
            offset += n

    def _read_response(self, stream_id: int, tl: Timeline, deadline: float) -> H2Response:
        resp = H2Response()
        events = self._pending_events
        self._pending_events = []
        sock = self.conn.sock
        conn = self.h2
        now = time.perf_counter_ns()
        first_read = True
        while True:
            for event in events:
                kind = type(event)
                if kind is _DATA:
                    if event.stream_id == stream_id:
                        resp.body += event.data
                        # Window-update bookkeeping only; sent after resp_end (or before
                        # the next read), never between frames of one read.
                        conn.acknowledge_received_data(event.flow_controlled_length, stream_id)
                elif kind is _RESPONSE:
                    if event.stream_id == stream_id:
                        # First byte of *our* response: the server's SETTINGS, sent before our
                        # request, must not count as the response's first byte.
                        tl.mark_once("resp_first_byte", now)
                        tl.mark("resp_headers_end")
                        resp.headers = dict(event.headers)  # type: ignore[arg-type]
                        resp.status = int(resp.headers.get(":status", "0"))
                elif kind is _ENDED:
                    if event.stream_id == stream_id:
                        tl.mark("resp_end")
                        out = conn.data_to_send()
                        if out:
                            sock.sendall(out)  # WINDOW_UPDATEs / SETTINGS ack, after resp_end
                        return resp
                elif kind is _TRAILERS:
                    if event.stream_id == stream_id:
                        resp.trailers = dict(event.headers)  # type: ignore[arg-type]
                elif kind is _RESET:
                    if event.stream_id == stream_id:
                        raise ProbeFailure("reset", f"stream reset by server (error code {event.error_code})")
                elif kind is _TERMINATED:
                    self.conn.usable = False
                    raise ProbeFailure("reset", f"GOAWAY from server (error code {event.error_code})")
            out = conn.data_to_send()
            if out:
                sock.sendall(out)
            if first_read:
                # exchange() set the timeout from the deadline microseconds ago: skip the
                # second settimeout (an ioctl) on the common single-read response.
                first_read = False
                remaining(deadline)
            else:
                sock.settimeout(remaining(deadline))
            data = sock.recv(RECV_SIZE)
            now = time.perf_counter_ns()
            if not data:
                self.conn.usable = False
                raise ProbeFailure("reset", "connection closed before the response completed")
            events = conn.receive_data(data)


def server_time_us(resp: H2Response) -> int | None:
    return parse_server_timing(resp.headers.get("server-timing"))
