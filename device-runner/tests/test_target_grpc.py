"""gRPC interop: a real grpcio client (stubs generated from target.proto) against the
target's own gRPC-over-h2 implementation on the TLS port."""

import importlib
import sys
from pathlib import Path

import grpc
import pytest
from grpc_tools import protoc

from latencylab_runner.target import content, grpc_wire

PROTO = Path(__file__).resolve().parent.parent / "latencylab_runner" / "target" / "target.proto"


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    out = tmp_path_factory.mktemp("grpc_gen")
    argv = ["protoc", f"-I{PROTO.parent}", f"--python_out={out}", f"--grpc_python_out={out}", str(PROTO)]
    assert protoc.main(argv) == 0
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("target_pb2"), importlib.import_module("target_pb2_grpc")
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def stub(pb, target_server):
    creds = grpc.ssl_channel_credentials(target_server.ca_file.read_bytes())
    channel = grpc.secure_channel(f"localhost:{target_server.tls_port}", creds)
    yield pb[1].TargetStub(channel)
    channel.close()


def test_echo_unary(pb, stub):
    payload = bytes(range(256)) * 400
    reply, call = stub.Echo.with_call(pb[0].EchoRequest(payload=payload), timeout=10)
    assert reply.payload == payload
    metadata = dict(call.initial_metadata())
    assert metadata["server-timing"].startswith("app;dur=")
    assert call.code() == grpc.StatusCode.OK


def test_echo_delay(pb, stub):
    reply, call = stub.Echo.with_call(pb[0].EchoRequest(payload=b"x", delay_ms=20), timeout=10)
    assert float(dict(call.initial_metadata())["server-timing"].split("dur=")[1]) >= 20


def test_download_streams_64k_messages(pb, stub):
    n = 200_000
    chunks = [c.data for c in stub.Download(pb[0].DownloadRequest(size=n), timeout=10)]
    assert [len(c) for c in chunks] == [65536, 65536, 65536, n - 3 * 65536]
    assert b"".join(chunks) == content.byte_range(n)


def test_download_named_file(pb, stub):
    chunks = [c.data for c in stub.Download(pb[0].DownloadRequest(name="unity-2"), timeout=10)]
    assert b"".join(chunks) == content.file_bytes("unity-2")


@pytest.mark.parametrize(
    "request_kwargs, code",
    [({"size": 50_000_001}, grpc.StatusCode.INVALID_ARGUMENT), ({"name": "nope"}, grpc.StatusCode.NOT_FOUND)],
)
def test_download_errors(pb, stub, request_kwargs, code):
    with pytest.raises(grpc.RpcError) as err:
        list(stub.Download(pb[0].DownloadRequest(**request_kwargs), timeout=10))
    assert err.value.code() == code


def test_echo_delay_bound(pb, stub):
    with pytest.raises(grpc.RpcError) as err:
        stub.Echo(pb[0].EchoRequest(delay_ms=60_001), timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "0..60000" in err.value.details()


def test_hand_codec_matches_protobuf(pb):
    msg = pb[0].EchoRequest(payload=b"abc" * 100, delay_ms=300)
    assert grpc_wire.decode_echo_request(msg.SerializeToString()) == (b"abc" * 100, 300)
    assert pb[0].EchoRequest.FromString(grpc_wire.encode_echo_request(b"abc" * 100, 300)) == msg
    dl = pb[0].DownloadRequest(size=70000, name="mid-02")
    assert grpc_wire.decode_download_request(dl.SerializeToString()) == (70000, "mid-02")
    assert pb[0].DownloadRequest.FromString(grpc_wire.encode_download_request(70000, "mid-02")) == dl
