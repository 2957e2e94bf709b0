"""The latencylab.target.v1.Target service, independent of the h2 transport."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import grpcwire as wire
from . import content
from .routes import MAX_BYTES, MAX_DELAY_MS


@dataclass
class GrpcResult:
    status: int = wire.OK
    message: str = ""
    delay_s: float = 0.0
    # Encoded (unframed) response messages, produced lazily: a 50 MB download is never
    # materialised as a whole.
    messages: Iterator[bytes] = field(default_factory=lambda: iter(()))


def _error(status: int, message: str) -> GrpcResult:
    return GrpcResult(status=status, message=message)


def handle(path: str, request_messages: list[bytes]) -> GrpcResult:
    if path not in (wire.ECHO_PATH, wire.DOWNLOAD_PATH):
        return _error(wire.UNIMPLEMENTED, f"unknown method {path[:128]}")
    if len(request_messages) != 1:
        return _error(wire.INVALID_ARGUMENT, f"expected exactly 1 request message, got {len(request_messages)}")
    try:
        if path == wire.ECHO_PATH:
            payload, delay_ms = wire.decode_echo_request(request_messages[0])
            if delay_ms > MAX_DELAY_MS:
                return _error(wire.INVALID_ARGUMENT, f"delay_ms must be in 0..{MAX_DELAY_MS}")
            return GrpcResult(delay_s=delay_ms / 1000.0, messages=iter([wire.encode_bytes_message(payload)]))
        size, name = wire.decode_download_request(request_messages[0])
    except wire.WireError as e:
        return _error(wire.INVALID_ARGUMENT, f"bad request message: {e}")
    if name:
        try:
            data = content.file_bytes(name)
        except KeyError:
            return _error(wire.NOT_FOUND, f"unknown file {name[:64]!r}")
        return GrpcResult(messages=_chunks_of(memoryview(data)))
    if size > MAX_BYTES:
        return _error(wire.INVALID_ARGUMENT, f"size must be in 0..{MAX_BYTES}")
    return GrpcResult(messages=_sized(size))


def _chunks_of(data: memoryview) -> Iterator[bytes]:
    for off in range(0, len(data), wire.CHUNK_SIZE):
        yield wire.encode_bytes_message(bytes(data[off : off + wire.CHUNK_SIZE]))


def _sized(size: int) -> Iterator[bytes]:
    # Walk the same deterministic byte stream as /bytes/{n}, 64 KiB at a time.
    pending = bytearray()
    for block in content.byte_chunks(size):
        pending += block
        while len(pending) >= wire.CHUNK_SIZE:
            yield wire.encode_bytes_message(bytes(pending[: wire.CHUNK_SIZE]))
            del pending[: wire.CHUNK_SIZE]
    if pending:
        yield wire.encode_bytes_message(bytes(pending))
