"""HTTP/2 over a blocking TLS socket: the socket layer around the sans-IO core (h2core.py).

It writes what the core queues, feeds it what arrives, stamps the phases (µs from t0,
perf_counter_ns) and maps every failure to the contract's error classes in one place
(_failure). One request (exchange, also gRPC: grpc.py builds the messages, so gRPC
phases are measured the same way as plain h2) and a batch of concurrent streams
(exchange_many) run the same loop.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable, Iterable, Sequence

from .h2core import (
    ConnectionTerminated,
    DataReceived,
    GoingAway,
    H2Connection,
    H2Error,
    H2ProtocolError,
    H2RequestError,
    ResponseReceived,
    StreamEnded,
    StreamIdsExhausted,
    StreamReset,
    TrailersReceived,
)
from .sample import Timeline
from .tcp import TcpConnection, remaining
from .types import Origin, ProbeFailure, ProbeRequest

RECV_SIZE = 256 * 1024

# One request as the loop takes it: method, path, body, extra header fields.
_Request = tuple[str, str, bytes, Sequence[tuple[str, str]]]


class H2Response:
    __slots__ = ("status", "headers", "trailers", "body", "ended")

    def __init__(self) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.trailers: dict[str, str] = {}
        self.body = bytearray()
        self.ended = False


Outcome = tuple[Timeline, H2Response | ProbeFailure]


class _InFlight:
    """One stream of an exchange: where its outcome goes and its timeline."""

    __slots__ = ("stream_id", "index", "tl", "resp")

    def __init__(self, stream_id: int, index: int, tl: Timeline):
        self.stream_id = stream_id
        self.index = index
        self.tl = tl
        self.resp = H2Response()


def _failure(e: Exception) -> ProbeFailure:
    """The error class of anything that ends an HTTP/2 exchange early (the one place)."""
    if isinstance(e, ProbeFailure):
        return e
    if isinstance(e, TimeoutError):
        return ProbeFailure("timeout", "no complete response before the deadline")
    if isinstance(e, (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)):
        return ProbeFailure("reset", f"{type(e).__name__}: {e}")
    if isinstance(e, H2ProtocolError):
        return ProbeFailure("other", f"HTTP/2 protocol error: {e}")
    if isinstance(e, H2RequestError):
        return ProbeFailure("other", f"cannot send the HTTP/2 request: {e}")
    if isinstance(e, GoingAway):
        return ProbeFailure("reset", str(e))
    if isinstance(e, StreamIdsExhausted):
        return ProbeFailure("other", str(e))
    if isinstance(e, (OSError, ssl.SSLError)):
        return ProbeFailure("reset", f"{type(e).__name__}: {e}")
    return ProbeFailure("other", f"{type(e).__name__}: {e}")  # a bug: still a sample, not a dead run


class H2Client:
    def __init__(self, conn: TcpConnection, origin: Origin):
        self.conn = conn
        self.core = H2Connection(origin.authority)

    def feed_idle(self, data: bytes) -> None:
        """Frames that arrived while idle (PING, SETTINGS, GOAWAY): processed before reuse;
        their replies leave with the next request."""
        try:
            self.core.receive_data(data)
        except H2Error:
            self.conn.usable = False
        if self.core.goaway_last_stream is not None:
            self.conn.usable = False

    def exchange(
        self, method: str, path: str, body: bytes, tl: Timeline, deadline: float, extra_headers: list[tuple[str, str]]
    ) -> H2Response:
        """One request on its own stream; raises ProbeFailure."""
        [(_, outcome)] = self._run([(method, path, body, extra_headers)], lambda _: tl, deadline, None)
        if isinstance(outcome, ProbeFailure):
            raise outcome
        return outcome

    def exchange_many(
        self, reqs: list[ProbeRequest], new_timeline: Callable[[int], Timeline], deadline: float
    ) -> list[Outcome]:
        """All requests as concurrent streams, written in one go; one (timeline, response
        or failure) per request, in order. new_timeline(i) is called when request i is
        issued (its t0); app_done is stamped when each stream's response is complete.
        Never raises ProbeFailure: a connection failure becomes the failure of every
        stream not finished by then (and the connection is not reused)."""
        return self._run([(r.method, r.path, r.body, list(r.headers)) for r in reqs], new_timeline, deadline,
                         "app_done")

    def _run(self, requests: list[_Request], new_timeline: Callable[[int], Timeline], deadline: float,  # # noqa: C901  the socket loop: each branch stamps a timestamp where the bytes move
             done_mark: str | None) -> list[Outcome]:
        core, sock = self.core, self.conn.sock
        results: list[Outcome | None] = [None] * len(requests)
        timelines: list[Timeline] = []
        pending: dict[int, _InFlight] = {}  # issued, response not complete yet
        uploading: list[_InFlight] = []  # issued, body not wholly written yet
        first = True
        try:
            for i, request in enumerate(requests):
                tl = new_timeline(i)
                timelines.append(tl)
                try:
                    stream_id = core.send_request(*request)
                except H2RequestError as e:  # this request only; the connection is fine
                    results[i] = (tl, _failure(e))
                    continue
                pending[stream_id] = _InFlight(stream_id, i, tl)
            if pending:
                sock.settimeout(remaining(deadline))
                now = time.perf_counter_ns()
                for issued in pending.values():
                    issued.tl.mark("req_start", now)
                sock.sendall(core.data_to_send())
                uploading = self._mark_sent(pending.values())
            while pending:
                if first:
                    # The timeout was set from the deadline microseconds ago: skip a second
                    # settimeout (an ioctl) for the common single-read response.
                    first = False
                    remaining(deadline)
                else:
                    sock.settimeout(remaining(deadline))
                data = sock.recv(RECV_SIZE)
                recv_ns = time.perf_counter_ns()
                if not data:
                    raise ProbeFailure("reset", "connection closed before the response completed")
                for ev in core.receive_data(data):
                    if isinstance(ev, DataReceived):
                        st = pending.get(ev.stream_id)
                        if st is not None:
                            st.resp.body += ev.data
                    elif isinstance(ev, ResponseReceived):
                        st = pending.get(ev.stream_id)
                        if st is not None:
                            # First byte of *this* response: the server's SETTINGS, sent
                            # before our request, and 1xx interim responses do not count.
                            st.tl.mark_once("resp_first_byte", recv_ns)
                            st.tl.mark("resp_headers_end")
                            st.resp.status, st.resp.headers = ev.status, ev.headers
                    elif isinstance(ev, StreamEnded):
                        st = pending.pop(ev.stream_id, None)
                        if st is not None:
                            st.tl.mark("resp_end")
                            st.resp.ended = True
                            results[st.index] = (st.tl, st.resp)
                            if done_mark is not None:
                                st.tl.mark(done_mark)  # this stream's response is with the app now
                    elif isinstance(ev, TrailersReceived):
                        st = pending.get(ev.stream_id)
                        if st is not None:
                            st.resp.trailers = ev.trailers
                    elif isinstance(ev, StreamReset):
                        st = pending.pop(ev.stream_id, None)
                        if st is not None:
                            failure = ProbeFailure("reset", f"stream reset by server (error code {ev.error_code})")
                            self._fail(results, st, failure, done_mark)
                    elif isinstance(ev, ConnectionTerminated):
                        self.conn.usable = False  # whatever it still answers, no further requests
                        failure = ProbeFailure("reset", f"GOAWAY from server (error code {ev.error_code})")
                        for stream_id in [s for s in pending if s > ev.last_stream_id]:
                            self._fail(results, pending.pop(stream_id), failure, done_mark)
                if core.has_output:  # WINDOW_UPDATEs, SETTINGS / PING acks, unblocked body DATA
                    sock.sendall(core.data_to_send())
                if uploading:
                    uploading = self._mark_sent(uploading)
        except Exception as e:  # noqa: BLE001 - every way out is mapped by _failure
            self.conn.usable = False
            failure = _failure(e)
            for stream_id in pending:
                core.forget(stream_id)
            for i, result in enumerate(results):
                if result is None:
                    results[i] = (timelines[i] if i < len(timelines) else new_timeline(i), failure)
        return results  # type: ignore[return-value]  # every slot is filled by now

    @staticmethod
    def _fail(results: list[Outcome | None], st: _InFlight, failure: ProbeFailure, done_mark: str | None) -> None:
        results[st.index] = (st.tl, failure)
        if done_mark is not None:
            st.tl.mark(done_mark)

    def _mark_sent(self, streams: Iterable[_InFlight]) -> list[_InFlight]:
        """Stamps req_end on the streams whose request is wholly written; returns the others."""
        now = time.perf_counter_ns()
        if not self.core.bodies_waiting:
            for st in streams:
                st.tl.mark("req_end", now)
            return []
        waiting = []
        for st in streams:
            if self.core.body_remaining(st.stream_id):
                waiting.append(st)
            else:
                st.tl.mark("req_end", now)
        return waiting
