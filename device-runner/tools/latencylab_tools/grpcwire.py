"""gRPC wire format of latencylab.target.v1.Target, shared by the host probe and the target.

Neither side imports the other: both import this module (tests/test_import_rules.py).
Hand-rolled (length-prefixed messages + the four tiny protobuf messages of
target/target.proto) so that the probe can run gRPC over its own instrumented h2 client
and measure phases; grpcio exposes no per-request timings. Interop with real grpcio is
covered by tests/test_target_grpc.py.
"""

from __future__ import annotations

import struct

SERVICE = "latencylab.target.v1.Target"
ECHO_PATH = f"/{SERVICE}/Echo"
DOWNLOAD_PATH = f"/{SERVICE}/Download"
CHUNK_SIZE = 64 * 1024
MAX_MESSAGE = 64 * 1024 * 1024

# grpc-status codes the target answers with
OK = 0
INVALID_ARGUMENT = 3
NOT_FOUND = 5
UNIMPLEMENTED = 12


class WireError(ValueError):
    pass


def frame(message: bytes) -> bytes:
    """Length-prefixed message, uncompressed."""
    return struct.pack(">BI", 0, len(message)) + message


class Deframer:
    """Incrementally splits a byte stream into gRPC messages."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out = []
        while len(self._buf) >= 5:
            compressed, length = struct.unpack_from(">BI", self._buf)
            if compressed:
                raise WireError("compressed gRPC messages are not supported")
            if length > MAX_MESSAGE:
                raise WireError(f"gRPC message of {length} bytes exceeds {MAX_MESSAGE}")
            if len(self._buf) < 5 + length:
                break
            out.append(bytes(self._buf[5 : 5 + length]))
            del self._buf[: 5 + length]
        return out

    @property
    def pending(self) -> int:
        return len(self._buf)


# --- protobuf (proto3) minimal codec: varint and length-delimited fields only ---


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("varint too long")


def encode_fields(fields: dict[int, int | bytes]) -> bytes:
    """Encode {field_number: value}; proto3 omits default values (0, b"")."""
    out = bytearray()
    for number in sorted(fields):
        value = fields[number]
        if isinstance(value, int):
            if value:
                out += _varint(number << 3 | 0) + _varint(value)
        elif value:
            out += _varint(number << 3 | 2) + _varint(len(value)) + value
    return bytes(out)


def decode_fields(buf: bytes) -> dict[int, int | bytes]:
    """Decode varint (0) and length-delimited (2) fields; skip fixed32/64; last one wins."""
    fields: dict[int, int | bytes] = {}
    pos = 0
    while pos < len(buf):
        key, pos = _read_varint(buf, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            fields[number], pos = _read_varint(buf, pos)
        elif wire_type == 2:
            length, pos = _read_varint(buf, pos)
            if pos + length > len(buf):
                raise WireError("truncated length-delimited field")
            fields[number] = buf[pos : pos + length]
            pos += length
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        else:
            raise WireError(f"unsupported wire type {wire_type}")
    if pos != len(buf):
        raise WireError("truncated message")
    return fields


def encode_echo_request(payload: bytes, delay_ms: int = 0) -> bytes:
    return encode_fields({1: payload, 2: delay_ms})


def decode_echo_request(buf: bytes) -> tuple[bytes, int]:
    f = decode_fields(buf)
    return _bytes(f.get(1, b"")), _int(f.get(2, 0))


def encode_bytes_message(data: bytes) -> bytes:
    """EchoReply and DownloadChunk: both are {bytes field 1}."""
    return encode_fields({1: data})


def decode_bytes_message(buf: bytes) -> bytes:
    return _bytes(decode_fields(buf).get(1, b""))


def encode_download_request(size: int = 0, name: str = "") -> bytes:
    return encode_fields({1: size, 2: name.encode()})


def decode_download_request(buf: bytes) -> tuple[int, str]:
    f = decode_fields(buf)
    return _int(f.get(1, 0)), _bytes(f.get(2, b"")).decode("utf-8", "replace")


def _bytes(v: int | bytes) -> bytes:
    if not isinstance(v, bytes):
        raise WireError("expected a length-delimited field")
    return v


def _int(v: int | bytes) -> int:
    if not isinstance(v, int):
        raise WireError("expected a varint field")
    return v
