"""Assemble the reference target: h1c port, TLS port (h1+h2+gRPC by ALPN), h3 on UDP
(the native latencylab-h3-target, started and stopped with the target: http3.py)."""

from __future__ import annotations

import asyncio
import ctypes
import errno
import socket
import ssl
import sys
import tempfile
import threading
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ..tls import TlsPaths, ensure_tls
from .http1 import H1Session
from .http2 import H2Session
from .http3 import NativeH3Server, serve_h3, write_content
from .transport import ServerOptions, Session, TargetProtocol

ALPN = ["h2", "http/1.1"]


TICKET_KEYS_LEN = 80  # OpenSSL: 16-byte key name + 32-byte HMAC key + 32-byte AES key
_SSL_CTRL_SET_TLSEXT_TICKET_KEYS = 59


def with_served_certificate(paths: TlsPaths, cert_file: Path | str | None,
                            key_file: Path | str | None) -> TlsPaths:
    """`paths` serving the lab's certificate and key when given (both, or neither)."""
    if (cert_file is None) != (key_file is None):
        raise ValueError("cert_file and key_file: give both or neither")
    if cert_file is None or key_file is None:
        return paths
    return replace(paths, server_cert=Path(cert_file), server_key=Path(key_file))


def server_ssl_context(paths: TlsPaths, ticket_keys: bytes | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(paths.server_cert, paths.server_key)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_alpn_protocols(ALPN)
    if ticket_keys is not None:
        set_ticket_keys(ctx, ticket_keys)
    return ctx


def set_ticket_keys(ctx: ssl.SSLContext, keys: bytes) -> None:
    """Give the context fixed session-ticket keys (SSL_CTX_set_tlsext_ticket_keys).

    Worker processes must share them: every process otherwise draws its own random keys,
    and a resumed connection that the kernel hands to another worker than the one that
    issued its ticket silently gets a full handshake (tls_resumed=false). The ssl module
    has no API for this, so it goes through ctypes: CPython's SSLContext object starts
    with the SSL_CTX pointer right after the object header; the pointer is checked
    against the context's options before it is used.
    """
    if len(keys) != TICKET_KEYS_LEN:
        raise ValueError(f"ticket keys must be {TICKET_KEYS_LEN} bytes")
    if sys.implementation.name != "cpython":
        raise RuntimeError("shared TLS ticket keys need CPython")
    libssl = None
    with open("/proc/self/maps") as maps:  # the libssl the ssl module is linked against
        for line in maps:
            path = line.split()[-1]
            if "/libssl.so" in path:
                libssl = ctypes.CDLL(path)
                break
    if libssl is None:
        raise RuntimeError("libssl is not loaded in this process")
    ssl_ctx = ctypes.c_void_p.from_address(id(ctx) + object.__basicsize__).value
    libssl.SSL_CTX_get_options.restype = ctypes.c_uint64
    libssl.SSL_CTX_get_options.argtypes = [ctypes.c_void_p]
    if not ssl_ctx or libssl.SSL_CTX_get_options(ssl_ctx) != int(ctx.options):
        raise RuntimeError("cannot locate the SSL_CTX of this SSLContext")
    libssl.SSL_CTX_ctrl.restype = ctypes.c_long
    libssl.SSL_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_char_p]
    if libssl.SSL_CTX_ctrl(ssl_ctx, _SSL_CTRL_SET_TLSEXT_TICKET_KEYS, len(keys), keys) != 1:
        raise RuntimeError("SSL_CTX_set_tlsext_ticket_keys failed")


def _session_for(conn: TargetProtocol, alpn: str | None) -> Session:
    """HTTP/2 when ALPN chose it, else HTTP/1.1 (plain port, or TLS without h2)."""
    return H2Session(conn) if alpn == "h2" else H1Session(conn)


@dataclass
class RunningTarget:
    host: str
    plain_port: int | None
    tls_port: int | None
    h3_port: int | None
    tls: TlsPaths
    nagle_trap: bool
    tcp_pacing: bool = False
    # The HTTP/3 server's implementation ("quic-go <version>"), None without h3: runs record it.
    h3_server: str | None = None
    _servers: list[asyncio.base_events.Server] = field(default_factory=list, repr=False)
    _h3: NativeH3Server | None = field(default=None, repr=False)
    _connections: set[TargetProtocol] = field(default_factory=set, repr=False)
    # listen=False: bound (SO_REUSEPORT) but not listening sockets that only reserve the
    # port numbers for worker processes; closed by release_reserved() or aclose().
    _reserved: list[socket.socket] = field(default_factory=list, repr=False)

    @property
    def ca_file(self) -> Path:
        return self.tls.ca_cert

    def describe(self) -> dict[str, object]:
        return {
            "host": self.host,
            "plain_port": self.plain_port,
            "tls_port": self.tls_port,
            "h3_port": self.h3_port,
            "h3_server": self.h3_server,
            "ca_file": str(self.tls.ca_cert),
            "cert_file": str(self.tls.server_cert),
            "nagle_trap": self.nagle_trap,
            "tcp_pacing": self.tcp_pacing,
        }

    def release_reserved(self) -> None:
        for sock in self._reserved:
            sock.close()
        self._reserved.clear()

    async def aclose(self) -> None:
        self.release_reserved()
        for server in self._servers:
            server.close()
        if self._h3 is not None:
            await self._h3.aclose()
            self._h3 = None
        for conn in list(self._connections):
            if conn.transport is not None:
                conn.transport.abort()
        for server in self._servers:
            await server.wait_closed()


def _tcp_socket(host: str, port: int, *, reuse_port: bool = False, listen: bool = True) -> socket.socket:
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    if reuse_port and not listen and port:
        # SO_REUSEPORT would let us share a fixed port with another (same-user) reuse-port
        # server without an error; bind once without it so a port in use still fails.
        with socket.socket(info[0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(info[4])
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        # Worker processes each bind their own listener to the same port; the kernel
        # spreads incoming connections across them by 4-tuple hash.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(info[4])
    if listen:
        sock.listen(1024)
    sock.setblocking(False)
    return sock


async def _bind_tls_and_h3(target: RunningTarget, host: str, tls_port: int, ctx: ssl.SSLContext,
                           h3_content: Path | None, *, reuse_port: bool, listen: bool,
                           advertise_h3_port: int | None) -> None:
    """The TLS port, and h3 (unless h3_content is None) on the same port number over UDP;
    with port 0, retry until both bind."""
    loop = asyncio.get_running_loop()
    h3 = h3_content is not None
    for attempt in range(20):
        sock = _tcp_socket(host, tls_port, reuse_port=reuse_port, listen=listen)
        port = sock.getsockname()[1]
        if h3_content is not None:
            try:
                target._h3 = await serve_h3(host, port, target.tls.server_cert, target.tls.server_key, h3_content)
            except OSError as e:
                sock.close()
                if tls_port == 0 and e.errno == errno.EADDRINUSE and attempt < 19:
                    continue
                raise
            target.h3_server = target._h3.server
        opts = ServerOptions(tls=True, h3_port=port if h3 else advertise_h3_port, nagle_trap=target.nagle_trap,
                             tcp_pacing=target.tcp_pacing)
        if listen:
            server = await loop.create_server(
                partial(TargetProtocol, opts, target._connections, _session_for), sock=sock, ssl=ctx,
                ssl_handshake_timeout=10,
            )
            target._servers.append(server)
        else:
            target._reserved.append(sock)
        target.tls_port = port
        target.h3_port = port if h3 else None
        return


async def serve_target(
    host: str = "127.0.0.1",
    plain_port: int | None = 0,
    tls_port: int | None = 0,
    tls_dir: Path | str = Path("var/tls"),
    *,
    nagle_trap: bool = False,
    tcp_pacing: bool = False,
    h3: bool = True,
    reuse_port: bool = False,
    listen: bool = True,
    advertise_h3_port: int | None = None,
    ticket_keys: bytes | None = None,
    cert_file: Path | str | None = None,
    key_file: Path | str | None = None,
) -> RunningTarget:
    """Bind everything on the running loop. Port 0 picks a free port; None disables it.

    Multi-process mode (the CLI's --workers): the supervisor calls this with
    ``reuse_port=True, listen=False`` (TCP ports reserved, h3 served here); each worker
    with ``reuse_port=True, h3=False, advertise_h3_port=<the supervisor's h3 port>`` and
    the supervisor's ``ticket_keys`` (TLS resumption must work whichever worker answers).

    ``cert_file``/``key_file``: the lab's own certificate chain and key (a publicly trusted
    certificate for the lab's DNS name, which Android's h3 needs: docs/device-lab.md §4),
    served on TLS and QUIC instead of the private CA's; the CA in ``tls_dir`` stays for
    clients that name it.
    """
    loop = asyncio.get_running_loop()
    paths = with_served_certificate(ensure_tls(Path(tls_dir)), cert_file, key_file)
    target = RunningTarget(host, None, None, None, paths, nagle_trap, tcp_pacing)
    try:
        if plain_port is not None:
            opts = ServerOptions(tls=False, nagle_trap=nagle_trap, tcp_pacing=tcp_pacing)
            sock = _tcp_socket(host, plain_port, reuse_port=reuse_port, listen=listen)
            if listen:
                server = await loop.create_server(
                    partial(TargetProtocol, opts, target._connections, _session_for), sock=sock
                )
                target._servers.append(server)
            else:
                target._reserved.append(sock)
            target.plain_port = sock.getsockname()[1]
        if tls_port is not None:
            ctx = server_ssl_context(paths, ticket_keys)
            bind = partial(_bind_tls_and_h3, target, host, tls_port, ctx, reuse_port=reuse_port, listen=listen,
                           advertise_h3_port=advertise_h3_port)
            if h3:
                # The native h3 server loads the bodies once at start: the directory can go after.
                with tempfile.TemporaryDirectory(prefix="latencylab-h3-content-") as content_dir:
                    write_content(Path(content_dir))
                    await bind(Path(content_dir))
            else:
                await bind(None)
    except BaseException:
        await target.aclose()
        raise
    return target


class TargetThread:
    """A target running on its own event loop in a background thread (for tests/benches).

    Attributes mirror RunningTarget: host, plain_port, tls_port, h3_port, tls, ca_file.
    """

    def __init__(self, **kwargs: object):
        self._kwargs = kwargs
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop = asyncio.new_event_loop()
        self._running: RunningTarget | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="latencylab-target", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())
        self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        try:
            self._running = await serve_target(**self._kwargs)  # type: ignore[arg-type]
        except BaseException as e:  # noqa: BLE001 - reported to the starting thread
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        await self._stop.wait()
        await self._running.aclose()

    def start(self, timeout: float = 30.0) -> TargetThread:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("target server did not start")
        if self._error is not None:
            raise self._error
        return self

    def __getattr__(self, name: str) -> object:
        running = self.__dict__.get("_running")
        if running is None:
            raise AttributeError(name)
        return getattr(running, name)

    def stop(self) -> None:
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)

    def __enter__(self) -> TargetThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_target(
    host: str = "127.0.0.1",
    plain_port: int | None = 0,
    tls_port: int | None = 0,
    tls_dir: Path | str = Path("var/tls"),
    *,
    nagle_trap: bool = False,
    tcp_pacing: bool = False,
    h3: bool = True,
) -> TargetThread:
    """Start the target in a background thread; returns once every port is bound."""
    return TargetThread(
        host=host, plain_port=plain_port, tls_port=tls_port, tls_dir=tls_dir, nagle_trap=nagle_trap,
        tcp_pacing=tcp_pacing, h3=h3,
    ).start()
