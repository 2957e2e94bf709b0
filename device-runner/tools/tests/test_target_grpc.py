"""gRPC interop: a real grpcio client against the target's own gRPC-over-h2
implementation on the TLS port. The messages are real protobuf classes built at run
time from target.proto (protoc → descriptor set → message classes), called through
grpcio's generic API, so no generated module has to be importable."""

from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_tools import protoc
from latencylab_tools import grpcwire
from latencylab_tools.target import content

PROTO = Path(__file__).resolve().parent.parent / "latencylab_tools" / "target" / "target.proto"
PACKAGE = "latencylab.target.v1"


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """The four messages of target.proto as protobuf classes."""
    out = tmp_path_factory.mktemp("grpc_gen") / "target.desc"
    assert protoc.main(["protoc", f"-I{PROTO.parent}", f"--descriptor_set_out={out}", str(PROTO)]) == 0
    pool = descriptor_pool.DescriptorPool()
    for file_proto in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(file_proto)
    names = ("EchoRequest", "EchoReply", "DownloadRequest", "DownloadChunk")
    return SimpleNamespace(**{n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{n}"))
                              for n in names})


@pytest.fixture(scope="module")
def stub(pb, target_server):
    """Echo (unary) and Download (server streaming) through grpcio's generic calls."""
    creds = grpc.ssl_channel_credentials(target_server.ca_file.read_bytes())
    channel = grpc.secure_channel(f"localhost:{target_server.tls_port}", creds)
    yield SimpleNamespace(
        Echo=channel.unary_unary(grpcwire.ECHO_PATH, request_serializer=pb.EchoRequest.SerializeToString,
                                 response_deserializer=pb.EchoReply.FromString),
        Download=channel.unary_stream(grpcwire.DOWNLOAD_PATH, request_serializer=pb.DownloadRequest.SerializeToString,
                                      response_deserializer=pb.DownloadChunk.FromString),
    )
    channel.close()


def test_echo_unary(pb, stub):
    payload = bytes(range(256)) * 400
    reply, call = stub.Echo.with_call(pb.EchoRequest(payload=payload), timeout=10)
    assert reply.payload == payload
    metadata = dict(call.initial_metadata())
    assert metadata["server-timing"].startswith("app;dur=")
    assert call.code() == grpc.StatusCode.OK


def test_echo_delay(pb, stub):
    reply, call = stub.Echo.with_call(pb.EchoRequest(payload=b"x", delay_ms=20), timeout=10)
    assert float(dict(call.initial_metadata())["server-timing"].split("dur=")[1]) >= 20


def test_download_streams_64k_messages(pb, stub):
    n = 200_000
    chunks = [c.data for c in stub.Download(pb.DownloadRequest(size=n), timeout=10)]
    assert [len(c) for c in chunks] == [65536, 65536, 65536, n - 3 * 65536]
    assert b"".join(chunks) == content.byte_range(n)


def test_download_named_file(pb, stub):
    chunks = [c.data for c in stub.Download(pb.DownloadRequest(name="unity-2"), timeout=10)]
    assert b"".join(chunks) == content.file_bytes("unity-2")


@pytest.mark.parametrize(
    "request_kwargs, code",
    [({"size": 50_000_001}, grpc.StatusCode.INVALID_ARGUMENT), ({"name": "nope"}, grpc.StatusCode.NOT_FOUND)],
)
def test_download_errors(pb, stub, request_kwargs, code):
    with pytest.raises(grpc.RpcError) as err:
        list(stub.Download(pb.DownloadRequest(**request_kwargs), timeout=10))
    assert err.value.code() == code


def test_echo_delay_bound(pb, stub):
    with pytest.raises(grpc.RpcError) as err:
        stub.Echo(pb.EchoRequest(delay_ms=60_001), timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "0..60000" in err.value.details()


def test_hand_codec_matches_protobuf(pb):
    msg = pb.EchoRequest(payload=b"abc" * 100, delay_ms=300)
    assert grpcwire.decode_echo_request(msg.SerializeToString()) == (b"abc" * 100, 300)
    assert pb.EchoRequest.FromString(grpcwire.encode_echo_request(b"abc" * 100, 300)) == msg
    dl = pb.DownloadRequest(size=70000, name="mid-02")
    assert grpcwire.decode_download_request(dl.SerializeToString()) == (70000, "mid-02")
    assert pb.DownloadRequest.FromString(grpcwire.encode_download_request(70000, "mid-02")) == dl
