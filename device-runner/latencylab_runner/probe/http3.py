"""HTTP/3 client on aioquic, driven by a private event loop in the calling thread.

Timestamps come from datagram arrival (datagram_received), not from when the H3 layer
gets around to the event, so they are as close to the wire as asyncio allows.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import time
import uuid
from collections.abc import Callable
from typing import Any, cast

from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.events import ConnectionTerminated, HandshakeCompleted, QuicEvent, StreamReset
from aioquic.tls import SessionTicket

from .sample import Timeline, parse_server_timing
from .types import Origin, ProbeFailure, ProbeRequest

USER_AGENT = "latencylab-probe/0.1"
NO_APPLICATION_PROTOCOL = 0x100 + 120  # TLS alert 120 as a QUIC CRYPTO_ERROR


class _Exchange:
    """State of the one request in flight."""

    def __init__(self, stream_id: int, tl: Timeline, loop: asyncio.AbstractEventLoop):
        self.stream_id = stream_id
        self.tl = tl
        self.headers: dict[bytes, bytes] = {}
        self.body = bytearray()
        self.done: asyncio.Future[None] = loop.create_future()


class H3Protocol(QuicConnectionProtocol):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.id = uuid.uuid4().hex[:16]
        self.rx_ns = 0
        self.handshake_ns: int | None = None
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.exchanges: dict[int, _Exchange] = {}  # requests in flight, by stream id
        self.alpn: str | None = None
        self.session_resumed = False
        self.early_data_accepted = False
        self.closed_reason: ProbeFailure | None = None

    def datagram_received(self, data: bytes | str, addr: Any) -> None:  # aioquic's signature
        self.rx_ns = time.perf_counter_ns()
        super().datagram_received(data, addr)

    def error_received(self, exc: Exception) -> None:
        # ICMP port unreachable on the connected UDP socket: nobody listens there.
        self._fail(ProbeFailure("connect", f"{type(exc).__name__}: {exc}"))

    def _fail(self, failure: ProbeFailure) -> None:
        if self.closed_reason is None:
            self.closed_reason = failure
        if not self.handshake.done():
            self.handshake.set_exception(failure)
        for ex in self.exchanges.values():
            if not ex.done.done():
                ex.done.set_exception(failure)

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, HandshakeCompleted):
            self.handshake_ns = self.rx_ns or time.perf_counter_ns()
            self.alpn = event.alpn_protocol
            self.session_resumed = event.session_resumed
            self.early_data_accepted = event.early_data_accepted
            if not self.handshake.done():
                self.handshake.set_result(None)
        elif isinstance(event, ConnectionTerminated):
            if event.error_code == NO_APPLICATION_PROTOCOL:
                failure = ProbeFailure("protocol_mismatch", f"server refused ALPN h3: {event.reason_phrase}")
            elif not self.handshake.done() and event.error_code >= 0x100:
                failure = ProbeFailure("tls", f"QUIC handshake failed: {event.reason_phrase} (0x{event.error_code:x})")
            else:
                failure = ProbeFailure("reset",
                                       f"QUIC connection closed: {event.reason_phrase} (0x{event.error_code:x})")
            self._fail(failure)
        elif isinstance(event, StreamReset) and event.stream_id in self.exchanges:
            # Only that stream fails; a failed fetch() drops the connection anyway.
            reset = self.exchanges[event.stream_id]
            if not reset.done.done():
                reset.done.set_exception(ProbeFailure("reset", f"stream reset by server (0x{event.error_code:x})"))
        for h3_event in self.h3.handle_event(event):
            ex = self.exchanges.get(getattr(h3_event, "stream_id", -1))
            if ex is None:
                continue
            if isinstance(h3_event, HeadersReceived):
                if not ex.headers:
                    ex.tl.mark_once("resp_first_byte", self.rx_ns)
                    ex.tl.mark("resp_headers_end")
                    ex.headers = dict(h3_event.headers)
            elif isinstance(h3_event, DataReceived):
                ex.body += h3_event.data
            if getattr(h3_event, "stream_ended", False):
                ex.tl.mark("resp_end")
                if not ex.done.done():
                    ex.done.set_result(None)

    def srtt_us(self) -> int | None:
        loss = getattr(self._quic, "_loss", None)  # aioquic keeps its RTT estimate here
        if loss is None or not getattr(loss, "_rtt_initialized", False):
            return None
        return int(loss._rtt_smoothed * 1_000_000)


def _app_done(tl: Timeline, _fut: object) -> None:
    tl.mark("app_done")  # this stream's response is with the app now


class H3Client:
    """Owns the event loop; one QUIC connection at a time (reused when warm)."""

    def __init__(self, origin: Origin, ca_file: str | None, ca_pem: str | None):
        self.origin = origin
        self.ca_file = ca_file
        self.ca_pem = ca_pem
        self.loop = asyncio.new_event_loop()
        self.protocol: H3Protocol | None = None
        self.transport: asyncio.DatagramTransport | None = None
        self.ticket: SessionTicket | None = None

    def _configuration(self, use_ticket: bool) -> QuicConfiguration:
        config = QuicConfiguration(
            is_client=True, alpn_protocols=H3_ALPN, server_name=self.origin.tls_name,
            max_data=64 * 1024 * 1024, max_stream_data=16 * 1024 * 1024,
        )
        if self.ca_file:
            config.load_verify_locations(cafile=self.ca_file)
        if self.ca_pem:
            config.load_verify_locations(cadata=self.ca_pem.encode())
        # Neither given: aioquic verifies against certifi's public roots. Never CERT_NONE.
        if use_ticket and self.ticket is not None:
            config.session_ticket = self.ticket
        return config

    def _store_ticket(self, ticket: SessionTicket) -> None:
        self.ticket = ticket

    def fetch(self, req: ProbeRequest, tl: Timeline, deadline: float, *,
              new_connection: bool, use_ticket: bool) -> bytes:
        return self.loop.run_until_complete(self._fetch(req, tl, deadline, new_connection, use_ticket))

    async def _fetch(self, req: ProbeRequest, tl: Timeline, deadline: float,
                     new_connection: bool, use_ticket: bool) -> bytes:
        f = tl.fields
        if new_connection or self.protocol is None or self.protocol.closed_reason is not None:
            self._close_connection()
            await self._connect(tl, deadline, use_ticket)
            f["conn_reused"] = False
        else:
            f["conn_reused"] = True
        proto = self.protocol
        if proto is None:
            raise RuntimeError("proto is None")
        # 0-RTT: with an early-data ticket, send the (idempotent) request before the
        # handshake completes; otherwise wait for it.
        early = (use_ticket and self.ticket is not None and self.ticket.max_early_data_size
                 and req.method in ("GET", "HEAD"))
        if not proto.handshake.done() and not early:
            await self._wait(proto.handshake, deadline, "QUIC handshake")
        stream_id = proto._quic.get_next_available_stream_id()
        ex = _Exchange(stream_id, tl, self.loop)
        proto.exchanges[stream_id] = ex
        headers = [
            (b":method", req.method.encode()), (b":scheme", b"https"),
            (b":authority", self.origin.authority.encode()), (b":path", req.path.encode()),
            (b"user-agent", USER_AGENT.encode()),
        ]
        if req.body or req.method in ("POST", "PUT", "PATCH"):
            headers.append((b"content-length", str(len(req.body)).encode()))
        headers.extend((k.encode(), v.encode()) for k, v in req.headers)
        tl.mark("req_start")
        proto.h3.send_headers(stream_id, headers, end_stream=not req.body)
        if req.body:
            proto.h3.send_data(stream_id, req.body, end_stream=True)
        proto.transmit()
        tl.mark("req_end")
        f["req_bytes"] = len(req.body)
        await self._wait(ex.done, deadline, "response")
        if proto.handshake_ns is not None and f["conn_reused"] is False:
            tl.mark("conn_ready", proto.handshake_ns)
        del proto.exchanges[stream_id]
        status = ex.headers.get(b":status")
        f["status"] = int(status) if status and status.isdigit() else None
        server_timing = ex.headers.get(b"server-timing")
        f["server_time_us"] = parse_server_timing(server_timing.decode("latin-1") if server_timing else None)
        f["resp_bytes"] = len(ex.body)
        f["alpn"] = proto.alpn
        f["tls_version"] = "TLSv1.3"
        f["tls_resumed"] = proto.session_resumed
        f["early_data"] = proto.early_data_accepted if f["conn_reused"] is False else False
        f["conn_id"] = proto.id
        f["srtt_us"] = proto.srtt_us()
        return bytes(ex.body)

    def fetch_many(self, reqs: list[ProbeRequest], new_timeline: Callable[[int], Timeline], deadline: float, *,
                   new_connection: bool, use_ticket: bool) -> list[tuple[Timeline, bytes | ProbeFailure]]:
        """All requests as concurrent streams on one connection (opened on request 0's
        timeline if needed); new_timeline(i) is called when request i is issued (its t0).
        One (timeline, body or failure) per request, in order; never raises ProbeFailure."""
        return self.loop.run_until_complete(
            self._fetch_many(reqs, new_timeline, deadline, new_connection, use_ticket))

    async def _fetch_many(self, reqs: list[ProbeRequest], new_timeline: Callable[[int], Timeline], deadline: float,
                          new_connection: bool, use_ticket: bool) -> list[tuple[Timeline, bytes | ProbeFailure]]:
        first = new_timeline(0)
        try:
            if new_connection or self.protocol is None or self.protocol.closed_reason is not None:
                self._close_connection()
                first.fields["conn_reused"] = False
                await self._connect(first, deadline, use_ticket)
            else:
                first.fields["conn_reused"] = True
            proto = self.protocol
            if proto is None:
                raise RuntimeError("proto is None")
            if not proto.handshake.done():  # no 0-RTT for a batch: wait for the handshake
                await self._wait(proto.handshake, deadline, "QUIC handshake")
        except ProbeFailure as e:
            failed: list[tuple[Timeline, bytes | ProbeFailure]] = [(first, e)]
            return failed + [(new_timeline(i), e) for i in range(1, len(reqs))]
        results: list[tuple[Timeline, bytes | ProbeFailure] | None] = [None] * len(reqs)
        sent: list[tuple[int, _Exchange]] = []
        authority = self.origin.authority.encode()
        for i, req in enumerate(reqs):
            tl = first if i == 0 else new_timeline(i)
            tl.fields["conn_reused"] = tl.fields["conn_reused"] if i == 0 else True
            tl.fields["req_bytes"] = len(req.body)
            headers = [
                (b":method", req.method.encode()), (b":scheme", b"https"), (b":authority", authority),
                (b":path", req.path.encode()), (b"user-agent", USER_AGENT.encode()),
            ]
            if req.body or req.method in ("POST", "PUT", "PATCH"):
                headers.append((b"content-length", str(len(req.body)).encode()))
            headers.extend((k.encode(), v.encode()) for k, v in req.headers)
            try:
                stream_id = proto._quic.get_next_available_stream_id()
                ex = _Exchange(stream_id, tl, self.loop)
                tl.mark("req_start")
                proto.h3.send_headers(stream_id, headers, end_stream=not req.body)
                if req.body:
                    proto.h3.send_data(stream_id, req.body, end_stream=True)
            except Exception as e:  # noqa: BLE001 - e.g. stream limit or a header aioquic rejects
                results[i] = (tl, ProbeFailure("other", f"{type(e).__name__}: {e}"))
                continue
            proto.exchanges[stream_id] = ex
            ex.done.add_done_callback(functools.partial(_app_done, tl))
            sent.append((i, ex))
        proto.transmit()
        now = time.perf_counter_ns()
        for _, ex in sent:
            ex.tl.mark("req_end", now)
        if sent:
            await asyncio.wait([ex.done for _, ex in sent], timeout=max(0.001, deadline - time.monotonic()))
        for i, ex in sent:
            proto.exchanges.pop(ex.stream_id, None)
            tl, f = ex.tl, ex.tl.fields
            if i == 0 and f["conn_reused"] is False and proto.handshake_ns is not None:
                tl.mark("conn_ready", proto.handshake_ns)
            f.update(alpn=proto.alpn, tls_version="TLSv1.3", tls_resumed=proto.session_resumed, conn_id=proto.id,
                     early_data=False, srtt_us=proto.srtt_us())
            outcome: bytes | ProbeFailure
            if not ex.done.done():
                proto.closed_reason = proto.closed_reason or ProbeFailure("timeout", "response")
                outcome = ProbeFailure("timeout", "response did not complete before the deadline")
            elif (exc := ex.done.exception()) is not None:
                outcome = exc if isinstance(exc, ProbeFailure) else ProbeFailure("other", f"{type(exc).__name__}")
            else:
                status = ex.headers.get(b":status")
                f["status"] = int(status) if status and status.isdigit() else None
                server_timing = ex.headers.get(b"server-timing")
                f["server_time_us"] = parse_server_timing(server_timing.decode("latin-1") if server_timing else None)
                f["resp_bytes"] = len(ex.body)
                outcome = bytes(ex.body)
            results[i] = (tl, outcome)
        return [r for r in results if r is not None]

    async def _connect(self, tl: Timeline, deadline: float, use_ticket: bool) -> None:
        host, port = self.origin.host, self.origin.port
        if self.origin.host_is_ip:
            infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_DGRAM, flags=socket.AI_NUMERICHOST)
        else:
            tl.mark("dns_start")
            try:
                infos = await asyncio.wait_for(
                    self.loop.getaddrinfo(host, port, type=socket.SOCK_DGRAM), max(0.001, deadline - time.monotonic())
                )
            except socket.gaierror as e:
                raise ProbeFailure("dns", f"cannot resolve {host}: {e}") from e
            except TimeoutError as e:
                raise ProbeFailure("timeout", f"DNS lookup of {host} timed out") from e
            tl.mark("dns_end")
        family, _, _, _, addr = infos[0]
        config = self._configuration(use_ticket)
        tl.fields["tls_start"] = tl.mark("conn_start")  # QUIC: crypto starts with the connection
        quic = QuicConnection(configuration=config, session_ticket_handler=self._store_ticket)
        try:
            transport, protocol = await self.loop.create_datagram_endpoint(
                # An IP family's sockaddr starts with (host, port).
                lambda: H3Protocol(quic), family=family, remote_addr=cast(tuple[str, int], addr[:2])
            )
        except OSError as e:
            raise ProbeFailure("connect", f"{type(e).__name__}: {e}") from e
        self.transport, self.protocol = transport, protocol
        protocol.connect(addr)

    async def _wait(self, fut: asyncio.Future[None], deadline: float, what: str) -> None:
        left = deadline - time.monotonic()
        try:
            await asyncio.wait_for(asyncio.shield(fut), max(0.001, left))
        except TimeoutError as e:
            if self.protocol is not None:
                self.protocol.closed_reason = ProbeFailure("timeout", what)
            raise ProbeFailure("timeout", f"{what} did not complete before the deadline") from e

    def _close_connection(self) -> None:
        if self.protocol is not None:
            self.protocol.close()  # sends CONNECTION_CLOSE; no need to wait for draining
        if self.transport is not None:
            self.transport.close()
        self.protocol = None
        self.transport = None

    def after_fetch(self, keep: bool) -> None:
        if not keep:
            self._close_connection()
            # Let the transport actually close before the next connection.
            self.loop.run_until_complete(asyncio.sleep(0))

    def close(self) -> None:
        self._close_connection()
        try:
            self.loop.run_until_complete(asyncio.sleep(0))
        finally:
            self.loop.close()
