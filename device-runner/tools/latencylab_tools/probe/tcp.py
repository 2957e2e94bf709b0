"""Blocking TCP/TLS connection set-up with phase timestamps, and TCP_INFO."""

from __future__ import annotations

import select
import socket
import ssl
import struct
import time
import uuid
from typing import Any

from .sample import Timeline
from .types import ProbeFailure


def client_ssl_context(ca_file: str | None, ca_pem: str | None, alpn: list[str]) -> ssl.SSLContext:
    """Verification always on: the private CA and/or a PEM bundle, else the system store."""
    if ca_file or ca_pem:
        ctx = ssl.create_default_context(cafile=ca_file, cadata=ca_pem)
    else:
        ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_alpn_protocols(alpn)
    return ctx


def remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise ProbeFailure("timeout", "request deadline exceeded")
    return left


def resolve(host: str, port: int, deadline: float, tl: Timeline, is_ip: bool, socktype: int) -> list[tuple[Any, ...]]:
    """A fresh getaddrinfo per call (Python keeps no DNS cache). IP literals skip DNS,
    so dns_* stay null: the phase did not happen."""
    if is_ip:
        return socket.getaddrinfo(host.strip("[]"), port, type=socktype, flags=socket.AI_NUMERICHOST)
    tl.mark("dns_start")
    try:
        infos = socket.getaddrinfo(host, port, type=socktype)
    except socket.gaierror as e:
        raise ProbeFailure("dns", f"cannot resolve {host}: {e}") from e
    tl.mark("dns_end")
    remaining(deadline)
    return infos


class TcpConnection:
    """One TCP (+TLS) connection; knows what it negotiated and whether it was resumed."""

    def __init__(self, sock: socket.socket, raw: socket.socket):
        self.sock = sock
        self.raw = raw  # the object owning the fd, for select() and TCP_INFO
        self.id = uuid.uuid4().hex[:16]
        self.alpn: str | None = None
        self.tls_version: str | None = None
        self.tls_resumed: bool | None = None
        self.requests = 0
        self.usable = True

    def close(self) -> None:
        self.usable = False
        try:
            self.sock.close()
        except OSError:
            pass

    def tls_session(self) -> ssl.SSLSession | None:
        if isinstance(self.sock, ssl.SSLSocket):
            return self.sock.session
        return None


def connect(
    host: str,
    port: int,
    tl: Timeline,
    deadline: float,
    *,
    is_ip: bool,
    ssl_context: ssl.SSLContext | None,
    server_name: str,
    session: ssl.SSLSession | None = None,
    nodelay: bool = True,
) -> TcpConnection:
    infos = resolve(host, port, deadline, tl, is_ip, socket.SOCK_STREAM)
    tl.mark("conn_start")
    sock = None
    last_error: OSError | None = None
    for family, socktype, proto, _, addr in infos:
        sock = socket.socket(family, socktype, proto)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1 if nodelay else 0)
            sock.settimeout(remaining(deadline))
            sock.connect(addr)
            break
        except TimeoutError as e:
            sock.close()
            raise ProbeFailure("timeout", f"TCP connect to {addr[0]}:{addr[1]} timed out") from e
        except OSError as e:
            sock.close()
            sock, last_error = None, e
    if sock is None:
        raise ProbeFailure("connect", f"{type(last_error).__name__}: {last_error} ({host}:{port})")
    if ssl_context is None:
        tl.mark("conn_ready")
        conn = TcpConnection(sock, sock)
        conn.alpn = "http/1.1"
        return conn
    tl.mark("tls_start")
    try:
        sock.settimeout(remaining(deadline))
        tls = ssl_context.wrap_socket(sock, server_hostname=server_name, session=session, do_handshake_on_connect=False)
        tls.do_handshake()
    except TimeoutError as e:
        sock.close()
        raise ProbeFailure("timeout", "TLS handshake timed out") from e
    except ssl.SSLError as e:
        sock.close()
        if "NO_APPLICATION_PROTOCOL" in str(e).upper():
            raise ProbeFailure("protocol_mismatch", f"server refused the offered ALPN: {e}") from e
        raise ProbeFailure("tls", f"{type(e).__name__}: {e}") from e
    except (ConnectionError, OSError) as e:
        sock.close()
        raise ProbeFailure("reset", f"connection lost during TLS handshake: {e}") from e
    tl.mark("conn_ready")
    conn = TcpConnection(tls, tls)  # wrap_socket detached `sock`; the SSLSocket owns the fd now
    conn.alpn = tls.selected_alpn_protocol()
    conn.tls_version = tls.version()
    conn.tls_resumed = tls.session_reused
    return conn


# struct tcp_info (linux/tcp.h): 8 one-byte fields, then u32s; tcpi_rtt is index 15 and
# tcpi_total_retrans index 23 of the u32 array.
_TCP_INFO_LEN = 8 + 24 * 4
_TCP_INFO = struct.Struct("8B24I")


def tcp_info(sock: socket.socket) -> tuple[int | None, int | None]:
    """(srtt µs, total retransmits) where the platform exposes TCP_INFO, else (None, None)."""
    opt = getattr(socket, "TCP_INFO", None)
    if opt is None:
        return None, None
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, opt, _TCP_INFO_LEN)
    except OSError:
        return None, None
    if len(raw) < _TCP_INFO_LEN:
        return None, None
    values = _TCP_INFO.unpack(raw)
    return values[8 + 15], values[8 + 23]


def read_idle(conn: TcpConnection) -> bytes | None:
    """Before reusing an idle connection: whatever arrived meanwhile (h2 control frames),
    b"" if nothing, None if the peer closed it. Never blocks."""
    out = b""
    try:
        while True:
            pending = conn.sock.pending() if isinstance(conn.sock, ssl.SSLSocket) else 0
            if not pending and not select.select([conn.raw], [], [], 0)[0]:
                return out
            conn.sock.setblocking(False)
            try:
                data = conn.sock.recv(65536)
            finally:
                conn.sock.setblocking(True)
            if not data:
                return None
            out += data
    except (ssl.SSLWantReadError, BlockingIOError):
        return out  # only TLS records (e.g. session tickets) were pending
    except (OSError, ValueError):
        return None
