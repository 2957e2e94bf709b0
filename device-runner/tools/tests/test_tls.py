import socket
import ssl
import stat
import threading

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from latencylab_tools.target.server import server_ssl_context
from latencylab_tools.tls import SERVER_IPS, ensure_tls


def test_creates_ca_and_server_cert_with_private_keys(tmp_path):
    paths = ensure_tls(tmp_path / "tls")
    for key in (paths.ca_key, paths.server_key):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    cert = x509.load_pem_x509_certificate(paths.server_cert.read_bytes())
    assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
    assert cert.public_key().curve.name == "secp256r1"
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(san.get_values_for_type(x509.DNSName)) == {"localhost", "target.latencylab.test"}
    ips = {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    assert ips == set(SERVER_IPS)
    assert {"127.0.0.1", "::1", "198.18.0.1", "198.18.0.15", "198.19.0.1", "198.19.0.15"} <= ips
    ca = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    assert cert.issuer == ca.subject
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_reuses_existing_files(tmp_path):
    first = ensure_tls(tmp_path)
    before = {p: p.read_bytes() for p in (first.ca_cert, first.ca_key, first.server_cert, first.server_key)}
    second = ensure_tls(tmp_path)
    assert {p: p.read_bytes() for p in before} == before
    assert second == first


def test_regenerates_server_cert_when_missing(tmp_path):
    paths = ensure_tls(tmp_path)
    ca_before = paths.ca_cert.read_bytes()
    paths.server_cert.unlink()
    ensure_tls(tmp_path)
    assert paths.ca_cert.read_bytes() == ca_before
    assert paths.server_cert.exists()


def test_handshake_verifies_against_ca_for_names_and_ips(tmp_path):
    paths = ensure_tls(tmp_path)
    server_ctx = server_ssl_context(paths)
    client_ctx = ssl.create_default_context(cafile=str(paths.ca_cert))
    for server_name in ("localhost", "target.latencylab.test", "127.0.0.1", "198.19.0.7"):
        a, b = socket.socketpair()
        with a, b:
            a.settimeout(5)
            b.settimeout(5)
            server = server_ctx.wrap_socket(a, server_side=True, do_handshake_on_connect=False)
            t = threading.Thread(target=server.do_handshake)
            t.start()
            client = client_ctx.wrap_socket(b, server_hostname=server_name)
            t.join()
            assert client.version() in ("TLSv1.3", "TLSv1.2")
            client.close()
            server.close()
