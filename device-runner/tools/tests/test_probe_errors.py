"""Failures become error samples (never exceptions), each with the right error_class."""

import socket
import threading

import pytest
from latencylab_tools.probe import Origin, ProbeRequest, open_session
from latencylab_tools.tls import ensure_tls
from probe_helpers import check_sample


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch_one(protocol, origin, ca_file=None, timeout_s=10.0, path="/healthz", ca_pem=None):
    with open_session(protocol=protocol, connection="cold", origin=origin, ca_file=ca_file, ca_pem=ca_pem,
                      timeout_s=timeout_s) as s:
        fields = s.fetch(ProbeRequest("GET", path, op="get"))
    check_sample(fields)
    return fields


@pytest.mark.parametrize("protocol", ["h1c", "h1", "h2", "grpc"])
def test_refused_connection(protocol, tls_dir):
    port = closed_port()
    origin = Origin("http" if protocol == "h1c" else "https", "127.0.0.1", port, "localhost")
    fields = fetch_one(protocol, origin, str(tls_dir.ca_cert))
    assert fields["error_class"] == "connect"
    assert "refused" in fields["error_detail"].lower()
    assert fields["conn_start"] is not None
    assert fields["conn_ready"] is None
    assert fields["app_done"] is not None


def test_h3_nobody_listening(tls_dir):
    origin = Origin("https", "127.0.0.1", closed_port(), "localhost")
    fields = fetch_one("h3", origin, str(tls_dir.ca_cert), timeout_s=2.0)
    assert fields["error_class"] in ("connect", "timeout")


@pytest.fixture
def silent_server():
    """Accepts TCP connections and never says a word."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    accepted = []
    stop = threading.Event()

    def loop():
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(srv.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join()
    for c in accepted:
        c.close()
    srv.close()


@pytest.mark.parametrize("protocol", ["h1c", "h2"])
def test_timeout_when_server_is_silent(protocol, silent_server, tls_dir):
    origin = Origin("http" if protocol == "h1c" else "https", "127.0.0.1", silent_server, "localhost")
    fields = fetch_one(protocol, origin, str(tls_dir.ca_cert), timeout_s=0.3)
    assert fields["error_class"] == "timeout"


@pytest.mark.parametrize("protocol", ["h1", "h2", "h3"])
def test_timeout_on_slow_response(protocol, target_server):
    origin = Origin("https", "127.0.0.1", target_server.tls_port, "localhost")
    fields = fetch_one(protocol, origin, str(target_server.ca_file), timeout_s=0.3, path="/delay/2000")
    assert fields["error_class"] == "timeout"
    assert fields["req_start"] is not None
    assert fields["resp_first_byte"] is None


@pytest.fixture
def slamming_server():
    """Reads the request, then closes: the client sees a reset/EOF before any response."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)

    def loop():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            c.recv(65536)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            c.close()

    threading.Thread(target=loop, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()


def test_reset_mid_request(slamming_server):
    fields = fetch_one("h1c", Origin("http", "127.0.0.1", slamming_server))
    assert fields["error_class"] == "reset"


@pytest.mark.parametrize("protocol", ["h1", "h2"])
def test_untrusted_certificate_is_tls_error(protocol, target_server, tmp_path):
    other_ca = ensure_tls(tmp_path / "other").ca_cert.read_text()
    origin = Origin("https", "127.0.0.1", target_server.tls_port, "localhost")
    fields = fetch_one(protocol, origin, ca_pem=other_ca)
    assert fields["error_class"] == "tls"
    assert "certificate" in fields["error_detail"].lower()


def test_wrong_name_is_tls_error(target_server):
    origin = Origin("https", "127.0.0.1", target_server.tls_port, "not-in-san.example")
    fields = fetch_one("h2", origin, str(target_server.ca_file))
    assert fields["error_class"] == "tls"


@pytest.mark.parametrize("protocol", ["h1c", "h1", "h2", "grpc", "h3"])
def test_http_error_status(protocol, target_server):
    port = target_server.plain_port if protocol == "h1c" else target_server.tls_port
    origin = Origin("http" if protocol == "h1c" else "https", "127.0.0.1", port, "localhost")
    fields = fetch_one(protocol, origin, str(target_server.ca_file), path="/bytes/50000001")
    if protocol == "grpc":
        assert fields["error_class"] == "http"
        assert "grpc-status 3" in fields["error_detail"]
    else:
        assert fields["error_class"] == "http"
        assert fields["status"] == 400
        assert fields["resp_end"] is not None  # timings of a failed request are kept


def test_protocol_mismatch_against_http11_only_python_server(tls_dir):
    """A TLS server that speaks only http/1.1: an h2 arm must not measure a fallback."""
    import ssl

    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(tls_dir.server_cert, tls_dir.server_key)
    ctx.set_alpn_protocols(["http/1.1"])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def serve():
        try:
            c, _ = srv.accept()
            with ctx.wrap_socket(c, server_side=True) as t:
                t.recv(1000)
        except OSError:
            pass

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    fields = fetch_one("h2", Origin("https", "127.0.0.1", srv.getsockname()[1], "localhost"), str(tls_dir.ca_cert))
    srv.close()
    assert fields["error_class"] == "protocol_mismatch"
    assert fields["alpn"] == "http/1.1"
    assert fields["req_start"] is None
    assert fields["resp_end"] is None
