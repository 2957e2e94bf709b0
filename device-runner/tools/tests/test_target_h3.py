"""The target's HTTP/3 (the native latencylab-h3-target, quic-go) over real sockets:
every route answers as the same target's HTTP/2 does, resumption and 0-RTT work, and
the child process never outlives the target.

HTTP/2 goes through httpx, HTTP/3 through aioquic's client: both independent of the
servers under test.
"""

from __future__ import annotations

import asyncio
import errno
import json
import re
import signal
import socket
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest
from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection, H3Stream
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import QuicEvent
from conditions import poll_until
from latencylab_tools import native
from latencylab_tools.probe import ProbeRequest, open_session
from latencylab_tools.target import content, http3, serve_target, start_target
from latencylab_tools.target.transport import ARM_PROTOCOL_HEADER
from probe_helpers import origin_for
from target_process import launch_target

SERVER_TIMING = re.compile(r"^app;dur=\d+\.\d{3}$")

# (method, target, request body): every route, its error answers and HEAD.
EXCHANGES = [
    ("GET", "/healthz", b""),
    ("HEAD", "/healthz", b""),
    ("POST", "/healthz", b"x"),
    ("GET", "/bytes/0", b""),
    ("GET", "/bytes/5?q=1", b""),
    ("GET", f"/bytes/{content.BLOCK_SIZE + 12345}", b""),
    ("POST", "/bytes/35000", b"p" * 800),
    ("HEAD", "/bytes/100", b""),
    ("PUT", "/bytes/1", b""),
    ("GET", "/bytes/+5", b""),
    ("GET", "/bytes/50000001", b""),
    ("GET", "/delay/0", b""),
    ("GET", "/delay/30", b""),
    ("GET", "/delay/1e3", b""),
    ("POST", "/delay/1", b""),
    ("POST", "/echo", b'{"client_ts_us": 1763725200123456}'),
    ("POST", "/echo", b""),
    ("POST", "/echo", bytes(range(256)) * 1000),
    ("GET", "/echo", b""),
    ("HEAD", "/echo", b""),
    ("GET", "/files/mid-01", b""),
    ("GET", "/files/unity-3", b""),
    ("HEAD", "/files/mid-02", b""),
    ("POST", "/files/mid-01", b""),
    ("GET", "/files/nope", b""),
    ("GET", "/files/it's", b""),
    ("GET", "/files/caf%C3%A9", b""),
    ("GET", "/nowhere?x=1", b""),
]


class _HeadAwareH3(H3Connection):
    """aioquic's client checks a response's content-length against its body even when
    answering HEAD, where the length is the GET's and there is no body (RFC 9110 9.3.2)."""

    head_streams: set[int]

    def _check_content_length(self, stream: H3Stream) -> None:
        if stream.stream_id not in self.head_streams:
            super()._check_content_length(stream)


class _H3Client(QuicConnectionProtocol):
    def __init__(self, *args: object, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.h3 = _HeadAwareH3(self._quic)
        self.h3.head_streams = set()
        self.responses: dict[int, tuple[dict[bytes, bytes], bytearray, asyncio.Future[None]]] = {}

    def quic_event_received(self, event: QuicEvent) -> None:
        for e in self.h3.handle_event(event):
            self._h3_event(e)

    def _h3_event(self, e: H3Event) -> None:
        if not isinstance(e, HeadersReceived | DataReceived) or e.stream_id not in self.responses:
            return
        headers, body, done = self.responses[e.stream_id]
        if isinstance(e, HeadersReceived):
            headers.update(e.headers)
        else:
            body += e.data
        if e.stream_ended and not done.done():
            done.set_result(None)

    async def request(self, method: str, target: str, body: bytes,
                      arm_protocol: str | None = None) -> tuple[int, dict[str, str], bytes]:
        sid = self._quic.get_next_available_stream_id()
        done = asyncio.get_running_loop().create_future()
        self.responses[sid] = ({}, bytearray(), done)
        if method == "HEAD":
            self.h3.head_streams.add(sid)
        arm = [(ARM_PROTOCOL_HEADER.encode(), arm_protocol.encode())] if arm_protocol else []
        self.h3.send_headers(sid, [(b":method", method.encode()), (b":scheme", b"https"),
                                   (b":authority", b"localhost"), (b":path", target.encode()), *arm],
                             end_stream=not body)
        if body:
            self.h3.send_data(sid, body, end_stream=True)
        self.transmit()
        await asyncio.wait_for(done, 10)
        raw, data, _ = self.responses.pop(sid)
        headers = {k.decode(): v.decode() for k, v in raw.items()}
        return int(headers.pop(":status")), headers, bytes(data)


def h3_exchanges(port: int, ca_file: Path, exchanges: list[tuple[str, str, bytes]],
                 arm_protocol: str | None = "h3") -> list[tuple[int, dict, bytes]]:
    """Every exchange in turn on one HTTP/3 connection, as an arm of `arm_protocol` sends it."""
    async def run() -> list[tuple[int, dict, bytes]]:
        config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name="localhost")
        config.load_verify_locations(str(ca_file))
        async with connect("127.0.0.1", port, configuration=config, create_protocol=_H3Client) as client:
            return [await client.request(*x, arm_protocol) for x in exchanges]  # type: ignore[attr-defined]

    return asyncio.run(run())


def h2_exchanges(port: int, ca_file: Path, exchanges: list[tuple[str, str, bytes]],
                 arm_protocol: str | None = "h3") -> list[tuple[int, dict, bytes]]:
    ctx = ssl.create_default_context(cafile=str(ca_file))
    headers = {ARM_PROTOCOL_HEADER: arm_protocol} if arm_protocol else {}
    out = []
    with httpx.Client(base_url=f"https://localhost:{port}", verify=ctx, http1=False, http2=True, timeout=10) as client:
        for method, target, body in exchanges:
            resp = client.request(method, target, content=body or None, headers=headers)
            assert resp.http_version == "HTTP/2"
            out.append((resp.status_code, dict(resp.headers), resp.content))
    return out


def test_every_route_answers_as_on_h2(target_server):
    h3 = h3_exchanges(target_server.h3_port, target_server.ca_file, EXCHANGES)
    h2 = h2_exchanges(target_server.tls_port, target_server.ca_file, EXCHANGES)
    for (method, target, _), (s3, headers3, body3), (s2, headers2, body2) in zip(EXCHANGES, h3, h2, strict=True):
        where = f"{method} {target}"
        assert s3 == s2, where
        assert body3 == body2, where
        timing3 = headers3.pop("server-timing")
        assert SERVER_TIMING.match(timing3), where
        if target == "/delay/30":
            assert float(timing3.removeprefix("app;dur=")) >= 30  # functional: the server really waited
        assert SERVER_TIMING.match(headers2.pop("server-timing")), where
        assert headers3 == headers2, where
        assert headers3["alt-svc"] == f'h3=":{target_server.h3_port}"; ma=86400'
    by_target = {(m, t): r for (m, t, _), r in zip(EXCHANGES, h3, strict=True)}
    assert by_target[("GET", "/files/unity-3")][2] == content.file_bytes("unity-3")
    big = content.BLOCK_SIZE + 12345
    assert by_target[("GET", f"/bytes/{big}")][2] == content.byte_range(big)
    assert by_target[("GET", "/files/it's")][2] == (
        b"/files/{name}: unknown file \"it's\"; known: mid-01..mid-24, unity-1..unity-5\n")


@pytest.mark.parametrize("arm_protocol", [None, "h2", "h1", "grpc"])
def test_alt_svc_only_for_requests_of_h3_arms(target_server, arm_protocol):
    """An h2 arm's client that read Alt-Svc could move the arm onto h3 by itself (URLSession
    does): the target advertises h3 only to requests whose arm says it is h3, on TCP and QUIC."""
    asks = [("GET", "/healthz", b"")]
    (_, h3_headers, _), = h3_exchanges(target_server.h3_port, target_server.ca_file, asks, arm_protocol)
    (_, h2_headers, _), = h2_exchanges(target_server.tls_port, target_server.ca_file, asks, arm_protocol)
    assert "alt-svc" not in h3_headers
    assert "alt-svc" not in h2_headers
    (_, h2_as_h3, _), = h2_exchanges(target_server.tls_port, target_server.ca_file, asks, "h3")
    assert h2_as_h3["alt-svc"] == f'h3=":{target_server.h3_port}"; ma=86400'


def test_resumed_policy_resumes_with_early_data(target_server):
    origin = origin_for("h3", "127.0.0.1", target_server.plain_port, target_server.tls_port)
    with open_session(protocol="h3", connection="resumed", origin=origin, ca_file=str(target_server.ca_file),
                      timeout_s=10) as session:
        samples = [session.fetch(ProbeRequest("GET", "/files/mid-05", op="file")) for _ in range(3)]
    assert [s["error_class"] for s in samples] == [None] * 3, [s["error_detail"] for s in samples]
    assert len({s["conn_id"] for s in samples}) == 3
    assert [s["tls_resumed"] for s in samples] == [False, True, True]
    assert [s["early_data"] for s in samples] == [False, True, True]


def _process_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # exited; a zombie waits only for its parent to reap it


def _wait_gone(pid: int, port: int, timeout: float = 10.0) -> bool:
    """The process has exited and its UDP socket is closed (a zombie's last threads may
    still be exiting when its state already reads Z)."""
    return bool(poll_until(lambda: _process_gone(pid) and _udp_port_free(port), timeout))


def _udp_port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_target_reports_the_native_server_and_stopping_ends_it(tls_dir):
    target = start_target("127.0.0.1", tls_dir=tls_dir.dir)
    try:
        assert target.h3_server.startswith("quic-go 0.")
        assert target.describe()["h3_server"] == target.h3_server
        pid = target._h3.pid
        assert not _process_gone(pid)
        assert Path(f"/proc/{pid}/exe").resolve().name == http3.BINARY
    finally:
        target.stop()
    assert _process_gone(pid)
    assert _udp_port_free(target.h3_port)


def test_native_server_exits_when_the_target_process_is_killed(tls_dir):
    """SIGKILL leaves the target no chance to stop its child: the child notices itself."""
    target = launch_target(tls_dir)
    try:
        children = Path(f"/proc/{target.process.pid}/task/{target.process.pid}/children").read_text().split()
        native = [int(c) for c in children if Path(f"/proc/{c}/exe").resolve().name == http3.BINARY]
        assert len(native) == 1
        target.process.send_signal(signal.SIGKILL)
        target.process.wait(10)
        assert _wait_gone(native[0], target.h3_port)
    finally:
        target.stop()


def test_udp_port_in_use_is_an_address_in_use_error(tls_dir):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match="address already in use") as err:
            asyncio.run(serve_target("127.0.0.1", None, port, tls_dir.dir))
    assert err.value.errno == errno.EADDRINUSE


def test_missing_binary_says_how_to_build_it(tls_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(native, "CHECKOUT_BIN", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(native.NativeProgramMissing, match="make bootstrap.*--no-h3"):
        asyncio.run(serve_target("127.0.0.1", None, 0, tls_dir.dir))


@pytest.mark.parametrize("how", ["sigterm", "stdin_eof"])
def test_native_server_exits_cleanly_on_sigterm_and_when_stdin_closes(tls_dir, tmp_path, how):
    http3.write_content(tmp_path)
    proc = subprocess.Popen(
        [http3.find_binary(), "--addr", "127.0.0.1:0", "--cert", str(tls_dir.server_cert), "--key",
         str(tls_dir.server_key), "--content-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["event"] == "ready"
        assert ready["h3_server"].startswith("quic-go ")
        assert not _udp_port_free(ready["h3_port"])
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:
            proc.stdin.close()
        assert proc.wait(10) == 0
        assert _udp_port_free(ready["h3_port"])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
