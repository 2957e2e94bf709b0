"""The samples upload as columns (README.md, "The columnar body"): one block's batch with
every sample field as one typed column, so the backend checks and stores it with whole-column
operations instead of a Python step per sample.

Standard library only (the contract's core): `encode` is what the runner sends, `decode`
the reference reader (the backend reads the same bytes with numpy,
backend/apps/results/ingest/columnar.py). The example pair examples/upload/batch.llcol and
examples/upload/batch.json is the same batch in both forms.

Layout: MAGIC, a uint32 (little-endian) header length, the header (UTF-8 JSON: the batch's
envelope fields, "rows" and "columns"), zero padding to a multiple of 8 bytes, then each
column's buffers in the header's order, each starting on a multiple of 8 bytes:

| type | buffers (n = rows, little-endian) |
|---|---|
| `int64`, `float64` | when `nulls` > 0: n bytes, 1 = value present, 0 = null; then n values (0 where null) |
| `bool` | n int8: 1 true, 0 false, -1 null |
| `str` | n int32, an index into the column's `values` (its distinct strings), -1 null |
| `null` | none: every value is null |
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from typing import Any

MEDIA_TYPE = "application/vnd.latencylab.samples+columns"
MAGIC = b"LLCOL1\n\x00"
TYPES = ("int64", "float64", "bool", "str", "null")
ENVELOPE = ("lease_token", "attempt", "batch_seq", "block", "baseline")
# sample.schema.json's numbers that may be fractional: sent as float64 even when every value is whole.
FLOAT_FIELDS = frozenset({"server_delay_ms"})
# Required by sample.schema.json: a sample without one must stay without it (a column present in
# every sample or in none), never be sent as null.
REQUIRED = ("arm", "block", "seq", "phase", "wall_time", "t0", "app_done", "error_class")
_INT64 = (-(2**63), 2**63 - 1)


class NotColumnar(ValueError):
    """This batch has no columnar form (a field of mixed types, an integer beyond 64 bits, a
    required field in some samples only): send it as JSON, which carries anything."""


def _pad(size: int) -> bytes:
    return bytes(-size % 8)


def _little(values: array) -> bytes:
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def _column(name: str, values: list[Any]) -> tuple[dict[str, Any], list[bytes]]:
    """The column's header entry and buffers."""
    present = [v for v in values if v is not None]
    nulls = len(values) - len(present)
    if not present:
        return {"name": name, "type": "null"}, []
    if all(isinstance(v, bool) for v in present):
        return {"name": name, "type": "bool"}, [_little(array("b", [-1 if v is None else int(v) for v in values]))]
    if all(isinstance(v, str) for v in present):
        codes: dict[str, int] = {}
        for v in present:
            codes.setdefault(v, len(codes))
        data = array("i", [-1 if v is None else codes[v] for v in values])
        if data.itemsize != 4:
            raise NotColumnar("this Python's C int is not 32 bits")
        return {"name": name, "type": "str", "values": list(codes)}, [_little(data)]
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in present):
        raise NotColumnar(f"{name}: values of several types")
    mask = [bytes(1 if v is not None else 0 for v in values)] if nulls else []
    if name in FLOAT_FIELDS or any(isinstance(v, float) for v in present):
        return ({"name": name, "type": "float64", "nulls": nulls},
                [*mask, _little(array("d", [0.0 if v is None else float(v) for v in values]))])
    if not all(_INT64[0] <= v <= _INT64[1] for v in present):
        raise NotColumnar(f"{name}: an integer beyond 64 bits")
    return ({"name": name, "type": "int64", "nulls": nulls},
            [*mask, _little(array("q", [0 if v is None else v for v in values]))])


def encode(batch: dict[str, Any]) -> bytes:
    """The batch (the JSON body's fields: envelope and `samples`, a list of sample objects) as
    the columnar body. A field missing from a sample is sent as null, except a required one
    (NotColumnar unless every sample or none has it)."""
    samples = batch["samples"]
    names: dict[str, None] = {}
    for sample in samples:
        if not isinstance(sample, dict):
            raise NotColumnar("a sample that is not an object")
        names.update(dict.fromkeys(sample))
    for name in REQUIRED:
        if name in names and not all(name in sample for sample in samples):
            raise NotColumnar(f"{name}: required, but missing from some samples")
    header: dict[str, Any] = {key: batch[key] for key in ENVELOPE if key in batch}
    header["rows"] = len(samples)
    header["columns"] = []
    buffers: list[bytes] = []
    for name in names:
        entry, data = _column(name, [sample.get(name) for sample in samples])
        header["columns"].append(entry)
        buffers.extend(data)
    head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    parts = [MAGIC, struct.pack("<I", len(head)), head, _pad(len(MAGIC) + 4 + len(head))]
    for buffer in buffers:
        parts += [buffer, _pad(len(buffer))]
    return b"".join(parts)


class ColumnarError(ValueError):
    """Bytes that are not a columnar body."""


def read_header(body: bytes | memoryview) -> tuple[dict[str, Any], int]:
    """The header and the offset of the first buffer."""
    if bytes(body[:len(MAGIC)]) != MAGIC:
        raise ColumnarError(f"the body does not begin with {MAGIC!r}")
    if len(body) < len(MAGIC) + 4:
        raise ColumnarError("the body ends inside the header length")
    (size,) = struct.unpack_from("<I", body, len(MAGIC))
    start = len(MAGIC) + 4
    if len(body) < start + size:
        raise ColumnarError("the body ends inside the header")
    try:
        header = json.loads(bytes(body[start:start + size]))
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than json can read
        raise ColumnarError(f"the header is not JSON: {exc}") from exc
    if not isinstance(header, dict) or not isinstance(header.get("columns"), list):
        raise ColumnarError("the header must be an object with `columns`")
    rows = header.get("rows")
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
        raise ColumnarError("rows: a non-negative integer")
    return header, start + size + -(start + size) % 8


def decode(body: bytes) -> dict[str, Any]:
    """The reference reader: the batch as its JSON body would be (envelope and `samples`; every
    column's field in every sample, null where it is null)."""
    header, offset = read_header(body)
    rows: int = header["rows"]

    def take(code: str, count: int) -> array:
        nonlocal offset
        data = array(code)
        end = offset + count * data.itemsize
        if end > len(body):
            raise ColumnarError("the body ends inside a column")
        data.frombytes(body[offset:end])
        if sys.byteorder == "big":
            data.byteswap()
        offset = end + -end % 8
        return data

    columns: dict[str, list[Any]] = {}
    for entry in header["columns"]:
        name, kind = entry["name"], entry["type"]
        if kind == "null":
            columns[name] = [None] * rows
        elif kind == "bool":
            columns[name] = [None if v < 0 else bool(v) for v in take("b", rows)]
        elif kind == "str":
            values = entry["values"]
            columns[name] = [None if v < 0 else values[v] for v in take("i", rows)]
        elif kind in ("int64", "float64"):
            mask = take("B", rows) if entry.get("nulls") else [1] * rows
            numbers = take("q" if kind == "int64" else "d", rows)
            columns[name] = [v if p else None for v, p in zip(numbers, mask, strict=True)]
        else:
            raise ColumnarError(f"{name}: unknown type {kind!r}")
    if offset < len(body):
        raise ColumnarError("bytes after the last column")
    batch = {key: header[key] for key in ENVELOPE if key in header}
    batch["samples"] = [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)] \
        if columns else [{} for _ in range(rows)]
    return batch
