"""The probe against a third-party server: Debian's nginx (h1/h2 by ALPN, no Alt-Svc)."""

import pytest
from latencylab_tools.probe import Origin, ProbeRequest, open_session
from latencylab_tools.target import content
from probe_helpers import check_sample


@pytest.mark.parametrize("policy", ["cold", "warm", "resumed"])
@pytest.mark.parametrize("protocol", ["h1c", "h1", "h2"])
def test_nginx(nginx_server, tls_dir, protocol, policy):
    if protocol == "h1c":
        origin = Origin("http", "127.0.0.1", nginx_server.plain_port)
    else:
        origin = Origin("https", "127.0.0.1", nginx_server.port, "localhost")
    with open_session(protocol=protocol, connection=policy, origin=origin, ca_file=str(tls_dir.ca_cert),
                      timeout_s=10) as session:
        samples = []
        for name in ("mid-02", "unity-3", "mid-06"):
            fields = session.fetch(ProbeRequest("GET", f"/files/{name}", op="file"))
            check_sample(fields)
            assert fields["error_class"] is None, fields["error_detail"]
            assert session.last_body == content.file_bytes(name)
            assert fields["server_time_us"] is None  # nginx sends no Server-Timing
            samples.append(fields)
    if policy == "warm":
        assert [s["conn_reused"] for s in samples] == [False, True, True]
    else:
        assert all(s["conn_reused"] is False for s in samples)
    if policy == "resumed" and protocol != "h1c":
        assert [s["tls_resumed"] for s in samples] == [False, True, True]
    if policy == "cold" and protocol != "h1c":
        assert all(s["tls_resumed"] is False for s in samples)


def test_h2_arm_against_http11_only_nginx_is_protocol_mismatch(nginx_server, tls_dir):
    origin = Origin("https", "127.0.0.1", nginx_server.h1_only_port, "localhost")
    for protocol in ("h2", "grpc"):
        with open_session(protocol=protocol, connection="warm", origin=origin, ca_file=str(tls_dir.ca_cert)) as s:
            fields = s.fetch(ProbeRequest("GET", "/files/mid-01", op="file"))
        check_sample(fields)
        assert fields["error_class"] == "protocol_mismatch"
        assert fields["resp_bytes"] is None


def test_h1_arm_against_http11_only_nginx_is_fine(nginx_server, tls_dir):
    origin = Origin("https", "127.0.0.1", nginx_server.h1_only_port, "localhost")
    with open_session(protocol="h1", connection="warm", origin=origin, ca_file=str(tls_dir.ca_cert)) as s:
        fields = s.fetch(ProbeRequest("GET", "/files/mid-01", op="file"))
    assert fields["error_class"] is None
    assert fields["alpn"] == "http/1.1"
