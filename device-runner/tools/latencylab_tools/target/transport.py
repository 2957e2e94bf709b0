"""asyncio Protocol for the TCP ports: socket options, write back-pressure, ALPN dispatch.

The HTTP/1.1 and HTTP/2 sessions import this module (they write through TargetProtocol);
it does not import them: server.py hands in the session factory (new_session)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol as TypingProtocol

# Linux's SO_MAX_PACING_RATE (asm-generic/socket.h); Python's socket module does not name it.
# Any cap below "unlimited" turns on the kernel's internal TCP pacing (since 4.13), no fq
# qdisc needed; this cap (~17 Gbit/s) never binds, so the rate is the kernel's own
# tcp_pacing_ss_ratio / ca_ratio (200 % / 120 %) × cwnd / srtt.
SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)
PACING_CAP_BYTES_PER_S = 0x7FFFFFFF


# The request header that names the protocol of the arm a request belongs to. The runner
# puts it on every arm's requests to the reference target (workloads/job.py). Alt-Svc is
# advertised only to a request whose arm is h3: a client that learns Alt-Svc from an h2
# arm's response may move that arm onto h3 on its own (URLSession does), and the arm would
# no longer measure what it is labelled.
ARM_PROTOCOL_HEADER = "latencylab-arm-protocol"


def wants_h3(arm_protocol: str | None) -> bool:
    return (arm_protocol or "").strip().lower() == "h3"


@dataclass(frozen=True)
class ServerOptions:
    tls: bool
    h3_port: int | None = None  # advertised in Alt-Svc on TLS ports, to h3 arms' requests only
    nagle_trap: bool = False  # calibration: Nagle on + response split in two writes
    # Pace TCP as QUIC stacks pace (quic-go: 2 × cwnd/srtt in slow start). Off by default, as
    # on a default Linux server (no fq qdisc): docs/methodology.md §5 says when to turn it on.
    tcp_pacing: bool = False

    def common_headers(self, arm_protocol: str | None) -> list[tuple[str, str]]:
        """Headers every response carries; `arm_protocol` is the request's ARM_PROTOCOL_HEADER."""
        if self.tls and self.h3_port and wants_h3(arm_protocol):
            return [("alt-svc", f'h3=":{self.h3_port}"; ma=86400')]
        return []


class Session(TypingProtocol):
    def data_received(self, data: bytes) -> None: ...
    def connection_lost(self) -> None: ...


# The session for a connection, given the ALPN protocol its TLS handshake chose (None: none).
SessionFactory = Callable[["TargetProtocol", str | None], Session]


class TargetProtocol(asyncio.Protocol):
    """One TCP (or TLS) connection; its session (h1 or h2) is chosen from ALPN once TLS is up."""

    def __init__(self, options: ServerOptions, connections: set[TargetProtocol], new_session: SessionFactory):
        self.options = options
        self._connections = connections
        self._new_session = new_session
        self.transport: asyncio.Transport | None = None
        self.session: Session | None = None
        self._can_write = asyncio.Event()
        self._can_write.set()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not isinstance(transport, asyncio.Transport):
            raise RuntimeError(f"transport is {type(transport).__name__}, not asyncio.Transport")
        self.transport = transport
        self._connections.add(self)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # asyncio turns NODELAY on by default; the trap needs Nagle back on.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0 if self.options.nagle_trap else 1)
            if self.options.tcp_pacing:
                sock.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, PACING_CAP_BYTES_PER_S)
        # Large write buffer: a 300 KB file is queued in one go; back-pressure beyond that.
        transport.set_write_buffer_limits(high=1 << 20)
        alpn = None
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is not None:
            alpn = ssl_object.selected_alpn_protocol()
        self.session = self._new_session(self, alpn)

    def data_received(self, data: bytes) -> None:
        if self.session is not None:
            self.session.data_received(data)

    def eof_received(self) -> bool | None:
        return None  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._connections.discard(self)
        self._can_write.set()  # wake writers so they notice the close
        if self.session is not None:
            self.session.connection_lost()

    def pause_writing(self) -> None:
        self._can_write.clear()

    def resume_writing(self) -> None:
        self._can_write.set()

    def write(self, data: bytes | memoryview) -> None:
        if not self.closed and data:
            if self.transport is None:
                raise RuntimeError("self.transport is None")
            self.transport.write(data)

    async def drain(self) -> None:
        if not self._can_write.is_set():
            await self._can_write.wait()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()
