"""Lifecycle: library start/stop in a thread, CLI ready line and SIGTERM, HTTP/3."""

import asyncio
import json
import signal
import socket
import subprocess
import sys

import pytest
from latencylab_tools.target import start_target
from latencylab_tools.target.transport import PACING_CAP_BYTES_PER_S, SO_MAX_PACING_RATE

DEVICE_RUNNER = __import__("pathlib").Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_start_target_thread_binds_and_stops(tls_dir):
    target = start_target("127.0.0.1", tls_dir=tls_dir.dir)
    try:
        assert target.h3_port == target.tls_port
        with socket.create_connection(("127.0.0.1", target.plain_port), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert b"200 OK" in s.recv(1000)
        # UDP port with the TLS port's number is bound by the h3 listener.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, \
                pytest.raises(OSError, match="Address already in use"):
            u.bind(("127.0.0.1", target.tls_port))
    finally:
        target.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", target.plain_port), timeout=1)


def test_cli_fixed_ports_ready_line_and_sigterm(tls_dir):
    plain, tls = free_port(), free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "latencylab_tools.target", "--host", "127.0.0.1", "--plain-port", str(plain),
         "--tls-port", str(tls), "--tls-dir", str(tls_dir.dir)],
        stdout=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER,
    )
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["event"] == "ready"
        assert (ready["plain_port"], ready["tls_port"], ready["h3_port"]) == (plain, tls, tls)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_h3_with_aioquic_client(target_server):
    from aioquic.asyncio import connect
    from aioquic.asyncio.protocol import QuicConnectionProtocol
    from aioquic.h3.connection import H3_ALPN, H3Connection
    from aioquic.h3.events import DataReceived, HeadersReceived
    from aioquic.quic.configuration import QuicConfiguration

    class Client(QuicConnectionProtocol):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.h3 = H3Connection(self._quic)
            self.done = asyncio.get_running_loop().create_future()
            self.headers, self.body = {}, bytearray()

        def quic_event_received(self, event):
            for e in self.h3.handle_event(event):
                if isinstance(e, HeadersReceived):
                    self.headers = dict(e.headers)
                elif isinstance(e, DataReceived):
                    self.body += e.data
                if getattr(e, "stream_ended", False) and not self.done.done():
                    self.done.set_result(None)

    async def run():
        config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name="localhost")
        config.load_verify_locations(str(target_server.ca_file))
        async with connect("127.0.0.1", target_server.h3_port, configuration=config, create_protocol=Client) as c:
            sid = c._quic.get_next_available_stream_id()
            c.h3.send_headers(sid, [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", b"localhost"),
                                    (b":path", b"/files/mid-03")], end_stream=True)
            c.transmit()
            await asyncio.wait_for(c.done, 10)
            return c.headers, bytes(c.body)

    from latencylab_tools.target import content

    headers, body = asyncio.run(run())
    assert headers[b":status"] == b"200"
    assert headers[b"server-timing"].startswith(b"app;dur=")
    assert body == content.file_bytes("mid-03")


@pytest.mark.parametrize("tcp_pacing", [True, False])
def test_tcp_pacing_is_set_on_the_connection_sockets(tls_dir, tcp_pacing):
    """The target paces TCP like quic-go paces QUIC unless told not to: the kernel's
    internal pacing is on exactly when SO_MAX_PACING_RATE is below 'unlimited'."""
    with start_target(tls_dir=tls_dir.dir, tls_port=None, h3=False, tcp_pacing=tcp_pacing) as target:
        with socket.create_connection(("127.0.0.1", target.plain_port)) as client:
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert client.recv(100).startswith(b"HTTP/1.1 200")
            (conn,) = target._connections
            sock = conn.transport.get_extra_info("socket")
            rate = int.from_bytes(sock.getsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, 8)[:8], "little")
    assert target.describe()["tcp_pacing"] is tcp_pacing
    if tcp_pacing:
        assert rate == PACING_CAP_BYTES_PER_S
    else:
        assert rate in (2**32 - 1, 2**64 - 1)  # the kernel's "unlimited" (32- or 64-bit option)
