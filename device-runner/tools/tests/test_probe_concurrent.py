"""Session.fetch_concurrent: several streams at once on one h2 / h3 connection."""

from itertools import pairwise

import pytest
from latencylab_tools.probe import ProbeRequest, open_session
from latencylab_tools.target import content
from probe_helpers import check_sample, origin_for

N = 6
SIZE = 200_000


def _session(target, protocol, policy="warm"):
    origin = origin_for(protocol, "127.0.0.1", target.plain_port, target.tls_port)
    return open_session(protocol=protocol, connection=policy, origin=origin, ca_file=str(target.ca_file),
                        timeout_s=10.0)


def _duration_us(f):
    return f["resp_end"]  # from the stream's own t0


@pytest.mark.parametrize("protocol", ["h2", "h3"])
def test_concurrent_streams_overlap_on_one_warm_connection(target_server, protocol):
    with _session(target_server, protocol) as session:
        warm = session.fetch(ProbeRequest("GET", "/healthz", op="get"))
        assert warm["error_class"] is None, warm["error_detail"]
        reqs = [ProbeRequest("GET", f"/bytes/{SIZE + i}", op="bytes") for i in range(N)]
        for _ in range(2):  # twice: the connection stays usable after a batch
            samples = session.fetch_concurrent(reqs)
            assert len(samples) == N
            for i, f in enumerate(samples):
                check_sample(f)
                assert f["error_class"] is None, f["error_detail"]
                assert f["status"] == 200
                assert f["resp_bytes"] == SIZE + i
                assert f["path"] == f"/bytes/{SIZE + i}"
                assert f["alpn"] == protocol
                assert f["conn_reused"] is True
                assert f["conn_id"] == warm["conn_id"]
                assert all(f[k] is None for k in ("dns_start", "dns_end", "conn_start", "tls_start", "conn_ready"))
                assert f["server_time_us"] is not None
                assert None not in (f["req_start"], f["req_end"], f["resp_first_byte"], f["resp_end"], f["app_done"])
            # Issued together: taken in the order they were issued, each stream began before the
            # one before it completed (an ordering, not a bound on the t0s' spread). One pause of
            # the client between two issues (the OS took its CPU) is allowed; fetched one after
            # another, no stream would overlap the previous one.
            spans = sorted((f["wall_time"], f["wall_time"] + _duration_us(f)) for f in samples)
            overlapping = sum(later[0] < earlier[1] for earlier, later in pairwise(spans))
            assert overlapping >= N - 2, spans
        after = session.fetch(ProbeRequest("GET", "/files/mid-01", op="file"))
        assert after["error_class"] is None
        assert after["conn_reused"] is True
        assert session.last_body == content.file_bytes("mid-01")


def test_concurrent_grpc_calls_are_streams_on_one_connection(target_server):
    """gRPC multiplexes like HTTP/2 (it is HTTP/2): each request is mapped to its call, the
    calls go out as concurrent streams, and each sample keeps the request's own path."""
    with _session(target_server, "grpc") as session:
        reqs = [ProbeRequest("GET", f"/bytes/{SIZE + i}", op="bytes") for i in range(N)]
        reqs.append(ProbeRequest("GET", "/files/mid-01", op="file"))
        samples = session.fetch_concurrent(reqs)
        assert [f["error_class"] for f in samples] == [None] * len(reqs), [f["error_detail"] for f in samples]
        for i, f in enumerate(samples):
            check_sample(f)
            assert f["alpn"] == "h2"
            assert f["status"] == 200
            assert f["path"] == reqs[i].path
            assert f["resp_bytes"] == (SIZE + i if i < N else len(content.file_bytes("mid-01")))
        assert len({f["conn_id"] for f in samples}) == 1
        assert [f["conn_reused"] for f in samples] == [False] + [True] * N
        # Issued together: every call was issued before the first one completed.
        first_end = min(f["wall_time"] + f["app_done"] for f in samples)
        assert max(f["wall_time"] for f in samples) < first_end
        after = session.fetch(ProbeRequest("POST", "/echo", body=b"x" * 10, op="echo"))
        assert after["error_class"] is None, after["error_detail"]
        assert after["conn_reused"] is True


@pytest.mark.parametrize("protocol", ["h2", "h3"])
def test_concurrent_opens_the_connection_on_the_first_sample(target_server, protocol):
    with _session(target_server, protocol) as session:
        samples = session.fetch_concurrent([ProbeRequest("GET", "/bytes/1000", op="bytes") for _ in range(3)])
        first, rest = samples[0], samples[1:]
        for f in samples:
            check_sample(f)
            assert f["error_class"] is None, f["error_detail"]
            assert f["resp_bytes"] == 1000
        assert first["conn_reused"] is False
        assert first["conn_start"] is not None
        assert first["conn_ready"] is not None
        for f in rest:
            assert f["conn_reused"] is True
            assert f["conn_start"] is None
            assert f["conn_id"] == first["conn_id"]


@pytest.mark.parametrize("protocol", ["h2", "h3"])
def test_concurrent_per_stream_errors(target_server, protocol):
    with _session(target_server, protocol) as session:
        samples = session.fetch_concurrent([ProbeRequest("GET", "/bytes/10", op="bytes"),
                                            ProbeRequest("GET", "/no-such-route", op="get"),
                                            ProbeRequest("GET", "/bytes/20", op="bytes")])
        assert [f["error_class"] for f in samples] == [None, "http", None]
        assert [f["resp_bytes"] for f in samples][::2] == [10, 20]
        for f in samples:
            check_sample(f)


@pytest.mark.parametrize("protocol", ["h2", "h3"])
def test_concurrent_unreachable_target_gives_error_samples(protocol):
    from latencylab_tools.probe import Origin
    origin = Origin("https", "127.0.0.1", 9, server_name="localhost")  # discard port: nobody listens
    with open_session(protocol=protocol, connection="warm", origin=origin, timeout_s=2.0) as session:
        samples = session.fetch_concurrent([ProbeRequest("GET", "/", op="get")] * 3)
    assert len(samples) == 3
    for f in samples:
        check_sample(f)
        assert f["error_class"] in ("connect", "timeout", "reset"), f


@pytest.mark.parametrize("protocol", ["h1", "h1c"])
def test_concurrent_needs_h2_h3_or_grpc(target_server, protocol):
    with _session(target_server, protocol) as session:
        with pytest.raises(ValueError, match="concurrent streams need h2, h3 or grpc"):
            session.fetch_concurrent([ProbeRequest("GET", "/healthz")])


def test_concurrent_empty_batch(target_server):
    with _session(target_server, "h2") as session:
        assert session.fetch_concurrent([]) == []
