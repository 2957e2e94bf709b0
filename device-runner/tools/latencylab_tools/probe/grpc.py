"""gRPC calls of latencylab.target.v1.Target over the probe's own h2 client.

The workload speaks in HTTP routes; a gRPC arm maps each to the equivalent call so that
every arm moves the same application bytes:
  POST /echo → Echo(payload=body)          GET /delay/{ms} → Echo(delay_ms=ms)
  GET /healthz → Echo()                    GET /bytes/{n} → Download(size=n)
  GET /files/{name} → Download(name=name)
  /latencylab.target.v1.Target/<Method> → that method, body = the serialized request message
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import grpcwire as wire
from .http2 import H2Client, H2Response
from .sample import Timeline, parse_server_timing
from .types import ProbeFailure, ProbeRequest


@dataclass(frozen=True)
class GrpcCall:
    path: str
    message: bytes
    request_bytes: int  # application payload bytes, comparable with the HTTP arms


def map_request(req: ProbeRequest) -> GrpcCall:
    path = req.path.split("?", 1)[0]
    if path.startswith(f"/{wire.SERVICE}/"):
        return GrpcCall(path, req.body, len(req.body))
    if path == "/echo":
        return GrpcCall(wire.ECHO_PATH, wire.encode_echo_request(req.body), len(req.body))
    if path.startswith("/delay/") and path[7:].isdigit():
        return GrpcCall(wire.ECHO_PATH, wire.encode_echo_request(b"", int(path[7:])), 0)
    if path == "/healthz":
        return GrpcCall(wire.ECHO_PATH, wire.encode_echo_request(b""), 0)
    if path.startswith("/bytes/") and path[7:].isdigit():
        return GrpcCall(wire.DOWNLOAD_PATH, wire.encode_download_request(size=int(path[7:])), 0)
    if path.startswith("/files/") and len(path) > 7:
        return GrpcCall(wire.DOWNLOAD_PATH, wire.encode_download_request(name=path[7:]), 0)
    raise ProbeFailure("other", f"no gRPC mapping for {req.method} {path[:200]}")


GRPC_HEADERS = [("content-type", "application/grpc"), ("te", "trailers"), ("grpc-accept-encoding", "identity")]


def call(client: H2Client, req: ProbeRequest, tl: Timeline, deadline: float) -> bytes:
    """Runs the call; fills status/server_time/req_bytes/resp_bytes. Returns the payload
    bytes received (concatenated `bytes` field 1 of every response message)."""
    mapped = map_request(req)
    resp: H2Response = client.exchange("POST", mapped.path, wire.frame(mapped.message), tl, deadline, GRPC_HEADERS)
    return complete(resp, mapped, tl)


def wire_request(req: ProbeRequest, mapped: GrpcCall) -> ProbeRequest:
    """The HTTP/2 request that carries `mapped` (for a concurrent group's streams)."""
    return ProbeRequest(method="POST", path=mapped.path, body=wire.frame(mapped.message), op=req.op,
                        server_delay_ms=req.server_delay_ms, headers=tuple(GRPC_HEADERS))


def complete(resp: H2Response, mapped: GrpcCall, tl: Timeline) -> bytes:
    """A call's response: fills status/server_time/req_bytes/resp_bytes and returns the
    payload bytes; raises ProbeFailure for an HTTP or gRPC error status."""
    f = tl.fields
    f["status"] = resp.status
    tl.server_header = resp.headers.get("server")
    f["server_time_us"] = parse_server_timing(resp.headers.get("server-timing"))
    f["req_bytes"] = mapped.request_bytes
    payload = bytearray()
    try:
        for message in wire.Deframer().feed(bytes(resp.body)):
            payload += wire.decode_bytes_message(message)
    except wire.WireError as e:
        raise ProbeFailure("other", f"bad gRPC response: {e}") from e
    f["resp_bytes"] = len(payload)
    if resp.status != 200:
        raise ProbeFailure("http", f"HTTP {resp.status} for gRPC {mapped.path}")
    # Trailers-only responses carry grpc-status in the headers.
    status = resp.trailers.get("grpc-status", resp.headers.get("grpc-status"))
    if status != "0":
        grpc_message = resp.trailers.get("grpc-message", resp.headers.get("grpc-message", ""))
        raise ProbeFailure("http", f"grpc-status {status}: {grpc_message}"[:1000])
    return bytes(payload)
