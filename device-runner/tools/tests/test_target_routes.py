"""Reference target routes over real sockets, on h1c, h1 (TLS) and h2 (TLS).

httpx is used as an independent client; http_version is asserted on every response
because httpx silently falls back to HTTP/1.1.
"""

import re
import ssl

import httpx
import pytest
from latencylab_tools.target import content
from latencylab_tools.target.transport import ARM_PROTOCOL_HEADER

PROTOCOLS = ["h1c", "h1", "h2"]


@pytest.fixture(scope="module")
def clients(target_server):
    t = target_server
    ctx = ssl.create_default_context(cafile=str(t.ca_file))
    made = {
        "h1c": (httpx.Client(base_url=f"http://127.0.0.1:{t.plain_port}", timeout=10), "HTTP/1.1"),
        "h1": (httpx.Client(base_url=f"https://localhost:{t.tls_port}", verify=ctx, timeout=10), "HTTP/1.1"),
        "h2": (httpx.Client(base_url=f"https://localhost:{t.tls_port}", verify=ctx, http1=False,
                            http2=True, timeout=10), "HTTP/2"),
    }
    yield made
    for client, _ in made.values():
        client.close()


def get(clients, proto, path, **kw):
    client, version = clients[proto]
    resp = client.request(kw.pop("method", "GET"), path, **kw)
    assert resp.http_version == version
    return resp


SERVER_TIMING = re.compile(r"^app;dur=\d+\.\d{3}$")


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_healthz_and_headers(clients, target_server, proto):
    resp = get(clients, proto, "/healthz")
    assert resp.status_code == 200
    assert resp.text == "ok\n"
    assert SERVER_TIMING.match(resp.headers["server-timing"])
    assert "alt-svc" not in resp.headers  # no arm asked for h3


@pytest.mark.parametrize("proto", PROTOCOLS)
@pytest.mark.parametrize("arm", ["h1c", "h1", "h2", "grpc", "h3", "H3"])
def test_alt_svc_only_to_requests_of_h3_arms(clients, target_server, proto, arm):
    """Alt-Svc on a TLS port, and only to a request whose arm is h3: an h2 arm's client that
    read it could move the arm onto h3 by itself."""
    resp = get(clients, proto, "/healthz", headers={ARM_PROTOCOL_HEADER: arm})
    if proto != "h1c" and arm.lower() == "h3":
        assert resp.headers["alt-svc"] == f'h3=":{target_server.tls_port}"; ma=86400'
    else:
        assert "alt-svc" not in resp.headers


@pytest.mark.parametrize("proto", PROTOCOLS)
@pytest.mark.parametrize("n", [0, 1, 16_384, 1_048_577])
def test_bytes(clients, proto, n):
    resp = get(clients, proto, f"/bytes/{n}")
    assert resp.status_code == 200
    assert resp.content == content.byte_range(n)


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_files_at_seed_sizes_and_deterministic(clients, proto):
    sizes = content.file_sizes()
    assert len(sizes) == 29
    assert sizes["mid-21"] == 309497
    assert sizes["unity-3"] == 465284
    for name in ("mid-01", "mid-24", "unity-1", "unity-5"):
        resp = get(clients, proto, f"/files/{name}")
        assert resp.status_code == 200
        assert len(resp.content) == sizes[name]
        assert resp.content == content.file_bytes(name)
    assert get(clients, proto, "/files/mid-25").status_code == 404


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_echo(clients, proto):
    body = b"\x00t=123456789" + bytes(range(256)) * 100
    resp = get(clients, proto, "/echo", method="POST", content=body)
    assert resp.status_code == 200
    assert resp.content == body
    assert get(clients, proto, "/echo", method="GET").status_code == 405


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_delay_waits_and_reports_server_time(clients, proto):
    resp = get(clients, proto, "/delay/30")
    assert resp.status_code == 200
    assert resp.content == b"ok"
    dur_ms = float(resp.headers["server-timing"].split("dur=")[1])
    assert dur_ms >= 30.0  # functional: the delay really happened, inside the server


@pytest.mark.parametrize("proto", PROTOCOLS)
@pytest.mark.parametrize(
    "path, fragment",
    [
        ("/bytes/50000001", "0..50000000"),
        ("/bytes/-1", "0..50000000"),
        ("/bytes/1e3", "0..50000000"),
        ("/bytes/", "0..50000000"),
        ("/delay/60001", "0..60000"),
        ("/delay/1.5", "0..60000"),
        ("/delay/abc", "0..60000"),
    ],
)
def test_bounds_answer_400_with_message(clients, proto, path, fragment):
    resp = get(clients, proto, path)
    assert resp.status_code == 400
    assert fragment in resp.text
    assert "server-timing" in resp.headers


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_bounds_accept_limits(clients, proto):
    assert get(clients, proto, "/delay/0").status_code == 200
    assert get(clients, proto, "/nope").status_code == 404


def test_large_download_h2_flow_control(clients):
    n = 20_000_000
    resp = get(clients, "h2", f"/bytes/{n}")
    assert len(resp.content) == n
    assert resp.content[:1000] == content.byte_range(1000)


def test_h1_pipelined_requests(target_server):
    import socket

    with socket.create_connection(("127.0.0.1", target_server.plain_port), timeout=5) as s:
        s.sendall(b"GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\nGET /delay/1 HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.count(b"HTTP/1.1 200 OK") == 3
    assert data.endswith(b"ok\n")
