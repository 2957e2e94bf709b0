"""The h2 socket layer: uploads that wait for the peer's windows (against the real
target), and how each way a peer can end an exchange becomes an error class, for one
request and for concurrent streams alike (against a scripted TLS peer that breaks the
rules on purpose, which no real server does on request)."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable, Iterator

import hpack
import pytest
from latencylab_tools.probe import Origin, ProbeRequest, open_session
from latencylab_tools.tls import TlsPaths
from probe_helpers import check_sample, origin_for

DATA, HEADERS, RST_STREAM, SETTINGS, GOAWAY = 0, 1, 3, 4, 7
END_STREAM, END_HEADERS = 0x1, 0x4


def fr(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes((kind, flags)) + struct.pack(">I", stream_id) + payload


def response(enc: hpack.Encoder, stream_id: int, body: bytes) -> bytes:
    return (fr(HEADERS, END_HEADERS, stream_id, enc.encode([(":status", "200")]))
            + fr(DATA, END_STREAM, stream_id, body))


def rst(stream_id: int, code: int) -> bytes:
    return fr(RST_STREAM, 0, stream_id, struct.pack(">L", code))


def goaway(last: int, code: int) -> bytes:
    return fr(GOAWAY, 0, 0, struct.pack(">LL", last, code))


# What the peer answers once it has the request HEADERS of stream ids 1, 3, …: bytes, a
# list of writes (each its own TLS record, so the client reads them one by one), or None
# to close the connection.
Script = Callable[[hpack.Encoder], bytes | list[bytes] | None]


def _read_request_streams(conn: ssl.SSLSocket, count: int) -> None:
    buf = b""
    seen = 0
    while seen < count:
        data = conn.recv(65536)
        if not data:
            return
        buf += data
        if buf.startswith(b"PRI * HTTP/2.0"):
            buf = buf[24:]
        while len(buf) >= 9 and len(buf) >= 9 + int.from_bytes(buf[:3], "big"):
            length = int.from_bytes(buf[:3], "big")
            seen += buf[3] == HEADERS
            buf = buf[9 + length :]


@pytest.fixture
def scripted_peer(tls_dir: TlsPaths) -> Iterator[Callable[[Script, int], int]]:
    """start(script, streams) → port of a TLS (ALPN h2) peer that sends empty SETTINGS,
    waits for `streams` request HEADERS and then plays `script` on each connection."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(tls_dir.server_cert, tls_dir.server_key)
    ctx.set_alpn_protocols(["h2"])
    servers: list[socket.socket] = []

    def start(script: Script, streams: int) -> int:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)
        servers.append(srv)

        def serve() -> None:
            while True:
                try:
                    raw, _ = srv.accept()
                except OSError:
                    return
                try:
                    with ctx.wrap_socket(raw, server_side=True) as conn:
                        conn.sendall(fr(SETTINGS, 0, 0))
                        _read_request_streams(conn, streams)
                        answer = script(hpack.Encoder())
                        if answer is not None:
                            for write in [answer] if isinstance(answer, bytes) else answer:
                                conn.sendall(write)
                            while conn.recv(65536):  # until the client closes
                                pass
                except OSError:
                    pass

        threading.Thread(target=serve, daemon=True).start()
        return srv.getsockname()[1]

    yield start
    for srv in servers:
        srv.close()


def _fetch(port: int, ca: str) -> dict:
    with open_session(protocol="h2", connection="cold", origin=Origin("https", "127.0.0.1", port, "localhost"),
                      ca_file=ca, timeout_s=1.0) as s:
        fields = s.fetch(ProbeRequest("GET", "/x", op="get"))
    check_sample(fields)
    return fields


SINGLE = {
    "stream reset": (lambda enc: rst(1, 7), "reset", "stream reset by server (error code 7)"),
    "GOAWAY before our stream": (lambda enc: goaway(0, 2), "reset", "GOAWAY from server (error code 2)"),
    "connection closed": (lambda enc: None, "reset", ""),
    "protocol error": (lambda enc: fr(DATA, 0, 0, b"x"), "other", "HTTP/2 protocol error: DATA on stream 0"),
    "silence": (lambda enc: b"", "timeout", ""),
}


@pytest.mark.parametrize("script, error_class, detail", SINGLE.values(), ids=SINGLE.keys())
def test_single_request_failures(scripted_peer, tls_dir, script, error_class, detail):
    fields = _fetch(scripted_peer(script, 1), str(tls_dir.ca_cert))
    assert fields["error_class"] == error_class
    assert detail in fields["error_detail"]


def test_goaway_that_covers_the_stream_lets_it_finish(scripted_peer, tls_dir):
    port = scripted_peer(lambda enc: goaway(1, 0) + response(enc, 1, b"hello"), 1)
    fields = _fetch(port, str(tls_dir.ca_cert))
    assert fields["error_class"] is None
    assert fields["resp_bytes"] == 5


def _fetch_concurrent(port: int, ca: str, n: int) -> list[dict]:
    with open_session(protocol="h2", connection="warm", origin=Origin("https", "127.0.0.1", port, "localhost"),
                      ca_file=ca, timeout_s=5.0) as s:
        samples = s.fetch_concurrent([ProbeRequest("GET", f"/{i}", op="get") for i in range(n)])
    for f in samples:
        check_sample(f)
    return samples


def test_concurrent_reset_fails_only_its_stream(scripted_peer, tls_dir):
    port = scripted_peer(lambda enc: response(enc, 1, b"a") + rst(3, 8) + response(enc, 5, b"ccc"), 3)
    samples = _fetch_concurrent(port, str(tls_dir.ca_cert), 3)
    assert [f["error_class"] for f in samples] == [None, "reset", None]
    assert [f["resp_bytes"] for f in samples] == [1, None, 3]
    assert "error code 8" in samples[1]["error_detail"]


def test_concurrent_goaway_fails_the_streams_above_its_last(scripted_peer, tls_dir):
    port = scripted_peer(lambda enc: goaway(1, 0) + response(enc, 1, b"a"), 3)
    samples = _fetch_concurrent(port, str(tls_dir.ca_cert), 3)
    assert [f["error_class"] for f in samples] == [None, "reset", "reset"]
    assert all("GOAWAY" in f["error_detail"] for f in samples[1:])


def test_concurrent_protocol_error_fails_every_unfinished_stream(scripted_peer, tls_dir):
    port = scripted_peer(lambda enc: [response(enc, 1, b"a"), fr(HEADERS, END_HEADERS, 0, b"")], 3)
    samples = _fetch_concurrent(port, str(tls_dir.ca_cert), 3)
    assert [f["error_class"] for f in samples] == [None, "other", "other"]
    assert samples[2]["error_detail"] == "HTTP/2 protocol error: HEADERS on stream 0"


@pytest.mark.parametrize("connection", ["cold", "warm"])
def test_uploads_larger_than_the_initial_window(target_server, connection):
    """The first request on a connection leaves before the server's SETTINGS: its body
    waits for the peer's windows, on one stream and on several at once."""
    origin = origin_for("h2", "127.0.0.1", target_server.plain_port, target_server.tls_port)
    bodies = [bytes([i]) * (150_000 + i) for i in range(3)]
    with open_session(protocol="h2", connection=connection, origin=origin, ca_file=str(target_server.ca_file),
                      timeout_s=10.0) as s:
        single = s.fetch(ProbeRequest("POST", "/echo", body=bodies[0], op="echo"))
        check_sample(single)
        assert single["error_class"] is None, single["error_detail"]
        assert single["req_bytes"] == single["resp_bytes"] == len(bodies[0])
        assert s.last_body == bodies[0]
        samples = s.fetch_concurrent([ProbeRequest("POST", "/echo", body=b, op="echo") for b in bodies])
    for f, body in zip(samples, bodies, strict=True):
        check_sample(f)
        assert f["error_class"] is None, f["error_detail"]
        assert f["req_bytes"] == f["resp_bytes"] == len(body)
