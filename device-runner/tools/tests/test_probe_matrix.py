"""Every protocol × connection policy against the reference target, over real sockets."""

import pytest
from latencylab_tools.probe import ProbeRequest, open_session
from latencylab_tools.target import content
from probe_helpers import check_sample, origin_for

PROTOCOLS = ["h1c", "h1", "h2", "grpc", "h3"]
POLICIES = ["cold", "warm", "resumed"]
EXPECTED_ALPN = {"h1c": "http/1.1", "h1": "http/1.1", "h2": "h2", "grpc": "h2", "h3": "h3"}


def session_for(target, protocol, policy, **kw):
    origin = origin_for(protocol, "127.0.0.1", target.plain_port, target.tls_port)
    return open_session(protocol=protocol, connection=policy, origin=origin, ca_file=str(target.ca_file),
                        timeout_s=kw.pop("timeout_s", 10.0), **kw)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_policy(target_server, protocol, policy):
    with session_for(target_server, protocol, policy) as session:
        samples = []
        for name in ("mid-01", "mid-03", "mid-21"):
            fields = session.fetch(ProbeRequest("GET", f"/files/{name}", op="file"))
            check_sample(fields, allow_early=True)
            assert fields["error_class"] is None, fields["error_detail"]
            assert fields["status"] == 200
            assert fields["resp_bytes"] == content.file_sizes()[name]
            assert session.last_body == content.file_bytes(name)
            assert fields["alpn"] == EXPECTED_ALPN[protocol]
            assert fields["server_time_us"] is not None
            assert fields["op"] == "file"
            assert fields["path"] == f"/files/{name}"
            if protocol != "h3":
                assert fields["srtt_us"] is not None
                assert fields["retrans"] is not None
            samples.append(fields)
    first, rest = samples[0], samples[1:]
    assert first["conn_reused"] is False
    assert first["conn_start"] is not None
    if protocol == "h1c":
        assert first["tls_start"] is None
        assert first["tls_version"] is None
    else:
        assert first["tls_start"] is not None
        assert first["tls_version"] == "TLSv1.3"
        assert first["tls_resumed"] is False
    if protocol == "h3":
        assert first["tls_start"] == first["conn_start"]
    # 127.0.0.1 is a literal: no DNS phase happened.
    assert first["dns_start"] is None
    assert first["dns_end"] is None
    if policy == "warm":
        for s in rest:
            assert s["conn_reused"] is True
            assert s["conn_id"] == first["conn_id"]
            assert all(s[k] is None for k in ("dns_start", "dns_end", "conn_start", "tls_start", "conn_ready"))
    else:
        assert len({s["conn_id"] for s in samples}) == 3
        for s in rest:
            assert s["conn_reused"] is False
            assert s["conn_ready"] is not None
            if protocol != "h1c":
                assert s["tls_resumed"] is (policy == "resumed")
            if protocol == "h3":
                assert s["early_data"] is (policy == "resumed")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_echo_and_delay(target_server, protocol):
    with session_for(target_server, protocol, "warm") as session:
        body = b'{"client_ts_us": 1763725200123456}'
        fields = session.fetch(ProbeRequest("POST", "/echo", body=body, op="echo"))
        check_sample(fields)
        assert fields["error_class"] is None, fields["error_detail"]
        assert session.last_body == body
        assert fields["req_bytes"] == len(body)
        assert fields["resp_bytes"] == len(body)
        fields = session.fetch(ProbeRequest("GET", "/delay/25", op="delay", server_delay_ms=25))
        check_sample(fields)
        assert fields["server_delay_ms"] == 25
        assert fields["server_time_us"] >= 25_000  # functional: the server really waited
        assert fields["resp_first_byte"] - fields["req_start"] >= 25_000


@pytest.mark.parametrize("protocol", ["h1", "h2", "grpc", "h3"])
def test_ca_pem_bundle_instead_of_file(target_server, protocol):
    origin = origin_for(protocol, "127.0.0.1", target_server.plain_port, target_server.tls_port)
    with open_session(protocol=protocol, connection="cold", origin=origin, ca_pem=target_server.ca_file.read_text(),
                      timeout_s=10) as session:
        fields = session.fetch(ProbeRequest("GET", "/healthz", op="get"))
    assert fields["error_class"] is None, fields["error_detail"]


def test_dns_phase_for_a_name(target_server):
    """A DNS name (localhost, from /etc/hosts) gets a resolve per cold connection."""
    from latencylab_tools.probe import Origin

    origin = Origin("https", "localhost", target_server.tls_port)
    with open_session(protocol="h2", connection="cold", origin=origin, ca_file=str(target_server.ca_file)) as s:
        for _ in range(2):
            fields = s.fetch(ProbeRequest("GET", "/healthz", op="get"))
            check_sample(fields)
            assert fields["error_class"] is None, fields["error_detail"]
            assert fields["dns_start"] is not None
            assert fields["dns_end"] >= fields["dns_start"]


def test_grpc_stream_large_download(target_server):
    with session_for(target_server, "grpc", "warm") as session:
        fields = session.fetch(ProbeRequest("GET", "/bytes/3000000", op="grpc_stream"))
        check_sample(fields)
        assert fields["error_class"] is None, fields["error_detail"]
        assert session.last_body == content.byte_range(3_000_000)
        fields = session.fetch(ProbeRequest("GET", "/files/nope", op="grpc_stream"))
        check_sample(fields)
        assert fields["error_class"] == "http"
        assert "grpc-status 5" in fields["error_detail"]


def test_open_session_rejects_bad_arguments(target_server):
    origin = origin_for("h2", "127.0.0.1", 1, 1)
    with pytest.raises(ValueError, match="protocol must be one of"):
        open_session(protocol="h9", connection="warm", origin=origin)
    with pytest.raises(ValueError, match="connection must be one of"):
        open_session(protocol="h2", connection="lukewarm", origin=origin)
    with pytest.raises(ValueError, match="needs an http:// origin"):
        open_session(protocol="h1c", connection="warm", origin=origin)  # https origin for cleartext
