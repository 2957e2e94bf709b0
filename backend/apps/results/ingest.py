"""Validating and storing uploaded samples (DESIGN §5.2, device-runner/contract/).

The hot path decodes and validates a whole upload in C with msgspec (`batch_decode`,
`SampleIn` mirrors sample.schema.json with its constraints), then builds a binary COPY
column by column with numpy, in chunks written while PostgreSQL stores the previous one
(`copy_rows`, `samples_insert`). Only a batch the fast path rejects goes
through the per-sample Python checks in `sample_errors`, which name every problem as
`samples[i].field`. tests/test_ingest_contract.py checks that both validators give the
JSON Schema's verdict on every example document, so neither can drift from the contract.
"""

import operator
import re
import uuid
from collections.abc import Sequence
from itertools import chain, compress, repeat
from operator import attrgetter, is_
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from django.db import connection
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from apps.comparisons.models import Run

from .derive import total_us, total_us_column, ttfb_us, ttfb_us_column
from .loader import _BLOCK_COLUMNS, _FIRST, _MEASURE, _OK, _TTFB_NULL, PHASE_NULL, block_columns_store

_BLOCK_NAMES = [name for name, _ in _BLOCK_COLUMNS]

TIMESTAMPS = (
    "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready", "req_start", "req_end",
    "resp_first_byte", "resp_headers_end", "resp_end", "app_done",
)
OPTIONAL_INTS = ("period", "repetition", "step", "req_bytes", "resp_bytes", "status", "server_time_us", "srtt_us",
                 "retrans")
OPTIONAL_BOOLS = ("conn_reused", "tls_resumed", "early_data")
OPTIONAL_STRS = {"part": 16, "conn_id": 64, "alpn": 16, "tls_version": 16, "error_detail": 1000, "path": 512}
PHASES = {"warmup", "measure"}
OPS = {"get", "echo", "delay", "bytes", "file", "grpc_unary", "grpc_stream"}
ERROR_CLASSES = {None, "dns", "connect", "tls", "timeout", "protocol_mismatch", "http", "reset", "other"}
NON_NEGATIVE_INTS = ("period", "repetition", "req_bytes", "resp_bytes", "server_time_us", "srtt_us", "retrans")
KNOWN = set(TIMESTAMPS) | set(OPTIONAL_INTS) | set(OPTIONAL_BOOLS) | set(OPTIONAL_STRS) | {
    "arm", "block", "seq", "phase", "op", "wall_time", "t0", "server_delay_ms", "error_class",
}
REQUIRED = ("arm", "block", "seq", "phase", "wall_time", "t0", "app_done", "error_class")

COLUMNS = (
    "comparison_id", "run_id", "arm_id", "block", "period", "repetition", "step", "seq", "part", "phase", "op", "path",
    "wall_time", *TIMESTAMPS, "conn_id", "conn_reused", "alpn", "tls_version", "tls_resumed", "early_data",
    "req_bytes", "resp_bytes", "status", "server_delay_ms", "server_time_us", "srtt_us", "retrans",
    "error_class", "error_detail", "total_us", "ttfb_us",
)

# ---------------------------------------------------------------------------------------
# The fast validator: sample.schema.json as a msgspec Struct, checked in C while decoding.

NonNegInt = Annotated[int, msgspec.Meta(ge=0)]
Micros = Annotated[int, msgspec.Meta(ge=0)] | None


Text16 = Annotated[str, msgspec.Meta(max_length=16)] | None
Text64 = Annotated[str, msgspec.Meta(max_length=64)] | None
Text512 = Annotated[str, msgspec.Meta(max_length=512)] | None
Text1000 = Annotated[str, msgspec.Meta(max_length=1000)] | None


class SampleIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One sample as uploaded. Field order = the COPY column order (after the run's ids).
    gc=False: scalars only, so never part of a cycle; 5,000 of them per upload stay out
    of the cyclic garbage collector's way."""

    arm: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    block: NonNegInt
    period: NonNegInt | None = None
    repetition: NonNegInt | None = None
    step: int | None = None
    seq: NonNegInt
    part: Text16 = None
    phase: Literal["warmup", "measure"]
    # The schema has no null op/path; null is accepted and stored as "" (as before).
    op: Literal["get", "echo", "delay", "bytes", "file", "grpc_unary", "grpc_stream"] | None = None
    path: Text512 = None
    wall_time: NonNegInt
    dns_start: Micros = None
    dns_end: Micros = None
    conn_start: Micros = None
    tls_start: Micros = None
    conn_ready: Micros = None
    req_start: Micros = None
    req_end: Micros = None
    resp_first_byte: Micros = None
    resp_headers_end: Micros = None
    resp_end: Micros = None
    app_done: Micros  # required; null only on error samples (checked after decoding)
    conn_id: Text64 = None
    conn_reused: bool | None = None
    alpn: Text16 = None
    tls_version: Text16 = None
    tls_resumed: bool | None = None
    early_data: bool | None = None
    req_bytes: NonNegInt | None = None
    resp_bytes: NonNegInt | None = None
    status: int | None = None
    server_delay_ms: Annotated[float, msgspec.Meta(ge=0)] | None = None
    server_time_us: NonNegInt | None = None
    srtt_us: NonNegInt | None = None
    retrans: NonNegInt | None = None
    error_class: Literal["dns", "connect", "tls", "timeout", "protocol_mismatch", "http", "reset", "other"] | None
    error_detail: Text1000 = None
    t0: Literal[0]


SAMPLE_FIELDS = SampleIn.__struct_fields__
assert SAMPLE_FIELDS[:-1] == ("arm", "block", *COLUMNS[4:-2]) and SAMPLE_FIELDS[-1] == "t0", SAMPLE_FIELDS
assert set(SAMPLE_FIELDS) == KNOWN


class _BatchIn(msgspec.Struct):
    """An upload whose samples all satisfy the contract; the other fields are checked by
    the endpoint's serializer."""

    samples: list[SampleIn]
    lease_token: Any = msgspec.UNSET
    attempt: Any = msgspec.UNSET
    batch_seq: Any = msgspec.UNSET
    block: Any = msgspec.UNSET
    baseline: Any = msgspec.UNSET


class Batch(dict):
    """A decoded upload. `typed`: samples are SampleIn (they passed the contract check in
    C); otherwise they are plain JSON values and `contract_error` is msgspec's verdict."""

    typed: bool = False
    contract_error: dict[str, list[str]] | None = None


_HEADER = ("lease_token", "attempt", "batch_seq", "block", "baseline")
_any_decoder = msgspec.json.Decoder()
_batch_decoder = msgspec.json.Decoder(_BatchIn)
_MSGSPEC_PATH = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_FIELD_IN_MESSAGE = re.compile(r"^Object (?:missing required field|contains unknown field) `(?P<field>[^`]+)`")


def batch_decode(body: bytes) -> Any:
    """Decode an upload body. The common case (every sample valid) is decoded and
    validated in one C pass; otherwise the body is decoded as plain JSON and the
    contract violation kept for the 400."""
    try:
        typed = _batch_decoder.decode(body)
    except msgspec.ValidationError as exc:
        try:
            data = _any_decoder.decode(body)
        except msgspec.DecodeError as decode_exc:
            raise ParseError(f"JSON parse error - {decode_exc}") from decode_exc
        if not isinstance(data, dict):
            return data
        batch = Batch(data)
        batch.contract_error = _msgspec_error(exc)
        return batch
    except msgspec.DecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from exc
    batch = Batch({name: getattr(typed, name) for name in _HEADER if getattr(typed, name) is not msgspec.UNSET})
    batch["samples"] = typed.samples
    batch.typed = True
    return batch


def _msgspec_error(exc: msgspec.ValidationError) -> dict[str, list[str]]:
    """msgspec's "Expected `int` >= 0, got `-1` - at `$.samples[3].app_done`" as the
    400 field map {"samples[3].app_done": ["Expected `int` >= 0, got `-1`"]}."""
    match = _MSGSPEC_PATH.match(str(exc))
    message, path = (match["message"], match["path"] or "") if match else (str(exc), "")
    field = _FIELD_IN_MESSAGE.match(message)
    if field:
        path = f"{path}.{field['field']}"
    return {path.lstrip(".") or "non_field_errors": [message]}


class SampleBatchParser(BaseParser):
    """JSON for the runner upload endpoint, decoded and contract-checked by msgspec
    instead of DRF's JSONParser (json.loads, then a Python pass over every sample)."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read() if stream is not None else b""
        if not body:
            raise ParseError("JSON parse error - empty body")
        return batch_decode(body)


# ---------------------------------------------------------------------------------------
# The thorough validator: every problem of every sample, named `samples[i].field`.

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sample_errors(sample: Any, *, arms: set[str], block: int) -> dict[str, str]:
    """Field → message for everything wrong with one sample; empty when valid."""
    if not isinstance(sample, dict):
        return {"": "must be an object"}
    errors: dict[str, str] = {}
    for name in sorted(set(sample) - KNOWN):
        errors[name] = "unknown field"
    arm = sample.get("arm")
    if not isinstance(arm, str) or not 1 <= len(arm) <= 64 or arm not in arms:
        errors["arm"] = f"must be one of the comparison's arm labels {sorted(arms)}"
    if not _is_int(sample.get("block")) or sample["block"] != block:
        errors["block"] = f"must equal the batch's block ({block})"
    for name in ("seq", "wall_time"):
        if not _is_int(sample.get(name)) or sample[name] < 0:
            errors[name] = "required non-negative integer"
    if not _is_int(sample.get("t0")) or sample["t0"] != 0:
        errors["t0"] = "must be 0 (timestamps are µs from t0)"
    if sample.get("phase") not in PHASES:
        errors["phase"] = f"must be one of {sorted(PHASES)}"
    if sample.get("op") is not None and sample["op"] not in OPS:
        errors["op"] = f"must be one of {sorted(OPS)}"
    for name in TIMESTAMPS:
        value = sample.get(name)
        if value is not None and (not _is_int(value) or value < 0):
            errors[name] = "must be null or integer µs ≥ 0 from t0 (a missing phase is null, never 0 by convention)"
    if "app_done" not in sample:
        errors["app_done"] = "required (null only for failed requests)"
    elif sample["app_done"] is None and sample.get("error_class") is None:
        errors["app_done"] = "null is allowed only on error samples"
    for name in OPTIONAL_INTS:
        value = sample.get(name)
        if value is not None and not _is_int(value):
            errors[name] = "must be null or an integer"
        elif value is not None and name in NON_NEGATIVE_INTS and value < 0:
            errors[name] = "must be null or an integer ≥ 0"
    for name in OPTIONAL_BOOLS:
        value = sample.get(name)
        if value is not None and not isinstance(value, bool):
            errors[name] = "must be null or a boolean"
    for name, limit in OPTIONAL_STRS.items():
        value = sample.get(name)
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            errors[name] = f"must be null or a string of at most {limit} characters"
    delay = sample.get("server_delay_ms")
    if delay is not None and (not isinstance(delay, (int, float)) or isinstance(delay, bool) or delay < 0):
        errors["server_delay_ms"] = "must be null or a number ≥ 0"
    if "error_class" not in sample:
        errors["error_class"] = "required (null for a successful request)"
    elif sample["error_class"] not in ERROR_CLASSES:
        errors["error_class"] = f"must be null or one of {sorted(c for c in ERROR_CLASSES if c)}"
    return errors


def samples_validate(samples: list[Any], *, arms: set[str], block: int,
                     contract_error: dict[str, list[str]] | None = None) -> None:
    """Raise a 400 naming `samples[i].field` for the first 50 problems; nothing is stored.

    SampleIn samples passed the contract check while decoding; only what needs the run's
    context (arm labels, the batch's block, a null app_done only on error samples) is
    left, checked here over four columns, in C. Plain dicts get the thorough check."""
    if samples and isinstance(samples[0], SampleIn):
        column = _GETTERS
        app_done = tuple(map(column["app_done"], samples))
        if (set(map(column["arm"], samples)) <= arms and set(map(column["block"], samples)) == {block}
                # a null app_done only on error samples: no null error_class among the rows
                # whose app_done is null (compress picks those rows)
                and (None not in app_done or None not in compress(map(column["error_class"], samples),
                                                                  map(is_, app_done, repeat(None))))):
            return
        samples = [msgspec.structs.asdict(s) for s in samples]
    problems: dict[str, list[str]] = {}
    for index, sample in enumerate(samples):
        for field, message in sample_errors(sample, arms=arms, block=block).items():
            problems[f"samples[{index}].{field}".rstrip(".")] = [message]
            if len(problems) >= 50:
                raise serializers.ValidationError(problems)
    if problems:
        raise serializers.ValidationError(problems)
    if contract_error:
        # msgspec refused what the per-sample checks let through (e.g. a non-integral
        # JSON number where an integer is due): still a 400, in the same shape.
        raise serializers.ValidationError(contract_error)


# ---------------------------------------------------------------------------------------
# Storing: one COPY in PostgreSQL's binary format, built column by column with numpy.
#
# Binary COPY: a signature, then per row an int16 field count and per field an int32
# length (-1 = NULL) and the value in network byte order; an int16 -1 ends the data.
# Columns whose width is the same on every row of a chunk (the ids, every column never or
# always null, texts of one length) are laid out as numpy records, one per row; the
# others (a timestamp null on some rows only, texts of several lengths) as one byte
# string per row. COPY takes the columns in the order we name them: uniform ones first,
# as the first chunk has them. The batch goes in chunks so that PostgreSQL stores one
# while the next is being built.

_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_TRAILER = b"\xff\xff"
_NULL = b"\xff\xff\xff\xff"
_BOOL_CHUNKS = {True: b"\x00\x00\x00\x01\x01", False: b"\x00\x00\x00\x01\x00", None: _NULL}
_INT_TYPES = {  # column → (big-endian numpy type, smallest, largest) of its PostgreSQL type
    **dict.fromkeys(("wall_time", *TIMESTAMPS, "req_bytes", "resp_bytes", "server_time_us", "srtt_us",
                     "total_us", "ttfb_us"), (">i8", -(2**63), 2**63 - 1)),
    **dict.fromkeys(("period", "repetition", "step", "seq", "status", "retrans"), (">i4", -(2**31), 2**31 - 1)),
    "block": (">i2", -(2**15), 2**15 - 1),
}
_NOT_NULL_TEXT = ("op", "path")  # null is stored as ""
_RANGE_MESSAGE = "out of range for the database column ({} … {})"
_FIELD_COUNT = "#fields"
COPY_CHUNK = 1000  # samples per piece of the COPY (the first goes out after ~1/5 of the work)


class _Rows:
    """The binary COPY rows of one chunk of samples, assembled column by column."""

    def __init__(self, n: int) -> None:
        self.n = n
        # column → its fields in the row record [(field, numpy type, value)], or one byte string per row
        self.parts: dict[str, list[tuple[str, str, Any]] | list[bytes]] = {}

    def uniform(self, column: str) -> bool:
        return isinstance(self.parts[column][0], tuple)

    def constant(self, column: str, chunk: bytes) -> None:
        """The same length-prefixed value (or _NULL) on every row."""
        self.parts[column] = [(column, f"V{len(chunk)}", np.frombuffer(chunk, f"V{len(chunk)}")[0])]

    def lookup(self, column: str, values: Sequence[Any], encode: dict[Any, bytes]) -> None:
        """A column of few distinct values (text, booleans, ids), through their encodings."""
        widths = {len(chunk) for chunk in encode.values()}
        if len(encode) == 1:
            self.constant(column, next(iter(encode.values())))
        elif len(widths) == 1:
            width = widths.pop()
            data = b"".join(map(encode.__getitem__, values))
            self.parts[column] = [(column, f"V{width}", np.frombuffer(data, f"V{width}"))]
        else:
            self.parts[column] = list(map(encode.__getitem__, values))

    def numbers(self, column: str, dtype: str, values: np.ndarray, present: np.ndarray) -> None:
        """Numbers (0 where null) with their present mask."""
        size = np.dtype(dtype).itemsize
        if present.all():
            self.parts[column] = [(f"{column}#", ">i4", size), (column, dtype, values)]
        elif not present.any():
            self.constant(column, _NULL)
        else:  # null on some rows only: one byte string per row
            where = np.flatnonzero(present)
            records = np.empty(len(where), dtype=[("size", ">i4"), ("value", dtype)])
            records["size"] = size
            records["value"] = values[where]
            chunks = [_NULL] * self.n
            for row, chunk in zip(where.tolist(), records.view(f"V{records.itemsize}").tolist(), strict=True):
                chunks[row] = chunk
            self.parts[column] = chunks

    def build(self, order: list[str] | None) -> tuple[list[str], bytes]:
        """(the COPY column order, the rows in it). Without an order: the uniform columns
        first, then the others, each in COLUMNS order."""
        if order is None:
            order = sorted(self.parts, key=lambda column: not self.uniform(column))
        pieces: list[Sequence[bytes]] = []  # per-row byte strings, one list per piece of the row
        fields: list[tuple[str, str, Any]] = [(_FIELD_COUNT, ">i2", len(COLUMNS))]
        for column in order:
            part = self.parts[column]
            if isinstance(part[0], tuple):
                fields.extend(part)
                continue
            if fields:
                pieces.append(self._records(fields))
                fields = []
            pieces.append(part)
        if fields:
            pieces.append(self._records(fields))
        if len(pieces) == 1:
            return order, b"".join(pieces[0])
        return order, b"".join(chain.from_iterable(zip(*pieces, strict=True)))

    def _records(self, fields: list[tuple[str, str, Any]]) -> list[bytes]:
        record = np.empty(self.n, dtype=[(name, dtype) for name, dtype, _ in fields])
        for name, _, value in fields:
            record[name] = value
        return record.view(f"V{record.itemsize}").tolist()


def _text(value: str) -> bytes:
    data = value.encode()
    return len(data).to_bytes(4, "big") + data


def _id(value: Any) -> bytes:
    """A primary key as its foreign key column's value: uuid, or bigint (BigAutoField)."""
    if isinstance(value, uuid.UUID):
        return b"\x00\x00\x00\x10" + value.bytes
    return b"\x00\x00\x00\x08" + int(value).to_bytes(8, "big", signed=True)


def _numbers(name: str, values: Sequence[Any], dtype: type = np.int64, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A column of numbers and nulls as (values with 0 for null, present mask), converted
    in C; a 400 naming the first sample whose value doesn't fit a 64-bit column (`first`:
    the index of values[0] in the batch)."""
    n = len(values)
    try:
        nulls = None
        if dtype is np.int64:
            try:
                return np.fromiter(values, dtype, n), np.ones(n, bool)
            except TypeError:  # nulls (fromiter would make them NaN in a float column)
                pass
        else:
            nulls = values.count(None)
            if not nulls:
                return np.fromiter(values, dtype, n), np.ones(n, bool)
        if (values.count(None) if nulls is None else nulls) == n:
            return np.zeros(n, dtype), np.zeros(n, bool)
        column = np.array(values, dtype=object)
        present = column != None  # noqa: E711 (elementwise)
        numbers: np.ndarray = np.zeros(n, dtype)
        numbers[present] = column[present].astype(dtype)
        return numbers, present
    except OverflowError:
        high = 2**63 - 1 if dtype is np.int64 else int(np.finfo(np.float64).max)
        _out_of_range(name, values, -high - 1, high, first)
        raise


def _out_of_range(name: str, values: Sequence[Any], low: int, high: int, first: int = 0) -> None:
    index = next(i for i, v in enumerate(values) if v is not None and not low <= v <= high)
    raise serializers.ValidationError({f"samples[{first + index}].{name}": [_RANGE_MESSAGE.format(low, high)]})


_GETTERS = {name: attrgetter(name) for name in SAMPLE_FIELDS}


def samples_columns(samples: list[Any]) -> dict[str, tuple]:
    """The samples (SampleIn or dicts) as columns: field name → tuple of values."""
    if samples and isinstance(samples[0], SampleIn):
        # A tuple per column straight from the structs: no per-sample tuples (astuple)
        # for the cyclic garbage collector to chase (that cost 3×).
        return {name: tuple(map(getter, samples)) for name, getter in _GETTERS.items()}
    return {name: tuple(s.get(name) for s in samples) for name in SAMPLE_FIELDS}


def copy_rows(samples: list[Any], *, comparison_id: Any, run_id: Any, arm_ids: dict[str, Any],
              order: list[str] | None = None, first: int = 0) -> tuple[list[str], bytes]:
    """Binary COPY rows of results_sample for the samples (SampleIn or dicts; `first`: the
    index of samples[0] in the batch) in the column `order` (None: the best one for
    these samples), and that order; a 400 for a value that doesn't fit its column."""
    order, data, _ = _copy_chunk(samples, comparison_id=comparison_id, run_id=run_id, arm_ids=arm_ids, order=order,
                                 first=first)
    return order, data


def _present(values: tuple, value: Any) -> np.ndarray:
    """values[i] is value (None, True), as a bool array."""
    return np.fromiter(map(is_, values, repeat(value)), bool, len(values))


def _analysis_columns(columns: dict[str, tuple], ints: dict[str, tuple[np.ndarray, np.ndarray]],
                      total: tuple[np.ndarray, np.ndarray], ttfb: tuple[np.ndarray, np.ndarray],
                      delay: tuple[np.ndarray, np.ndarray], arm_ids: dict[str, Any]) -> dict[str, np.ndarray]:
    """The loader's columns of these samples (apps.results.loader, BlockColumns): the same
    values the loader's COPY computes in SQL from the stored row, plus `block`."""
    arm_of = {label: int(arm_ids[label]) for label in set(columns["arm"])}

    def null_as(column: tuple[np.ndarray, np.ndarray], value: int) -> np.ndarray:
        return np.where(column[1], column[0], value)

    def phase(end: tuple[np.ndarray, np.ndarray], start: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        return np.where(end[1] & start[1], end[0] - start[0], PHASE_NULL)

    tls_start, conn_ready = ints["tls_start"], ints["conn_ready"]
    connected = (np.where(tls_start[1], tls_start[0], conn_ready[0]), tls_start[1] | conn_ready[1])
    flags = (np.fromiter(map(operator.eq, columns["phase"], repeat("measure")), bool, len(columns["phase"]))
             * _MEASURE
             | _present(columns["error_class"], None) * _OK
             | ~_present(columns["conn_reused"], True) * _FIRST
             | ~ttfb[1] * _TTFB_NULL).astype(np.uint8)
    return {
        "arm": np.fromiter(map(arm_of.__getitem__, columns["arm"]), np.int64, len(columns["arm"])),
        "block": ints["block"][0],
        "period": null_as(ints["period"], -1), "repetition": null_as(ints["repetition"], -1),
        "step": null_as(ints["step"], -1), "flags": flags,
        "total_us": null_as(total, -1), "ttfb_us": null_as(ttfb, -1), "resp_bytes": null_as(ints["resp_bytes"], 0),
        # PostgreSQL's float8 → int8 rounds half to even, as rint does.
        "server_delay_us": np.where(delay[1], np.rint(delay[0] * 1000), -1).astype(np.int64),
        "dns_us": phase(ints["dns_end"], ints["dns_start"]),
        "connect_us": phase(connected, ints["conn_start"]),
        "tls_us": phase(conn_ready, tls_start),
        "download_us": phase(ints["resp_end"], ints["resp_first_byte"]),
    }


def _copy_chunk(samples: list[Any], *, comparison_id: Any, run_id: Any, arm_ids: dict[str, Any],
                order: list[str] | None = None, first: int = 0) -> tuple[list[str], bytes, dict[str, np.ndarray]]:
    """copy_rows, and the loader's columns of the samples (`_analysis_columns`)."""
    columns = samples_columns(samples)
    rows = _Rows(len(samples))
    rows.constant("comparison_id", _id(comparison_id))
    rows.constant("run_id", _id(run_id))
    rows.lookup("arm_id", columns["arm"], {label: _id(arm_ids[label]) for label in set(columns["arm"])})
    ints: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in COLUMNS[3:-2]:
        values = columns[name]
        if name in _INT_TYPES:
            ints[name] = _numbers(name, values, first=first)
            dtype, low, high = _INT_TYPES[name]
            if low > -(2**63) and (ints[name][0].min() < low or ints[name][0].max() > high):
                _out_of_range(name, values, low, high, first)
            rows.numbers(name, dtype, *ints[name])
        elif name in OPTIONAL_BOOLS:
            rows.lookup(name, values, {v: _BOOL_CHUNKS[v] for v in set(values)})
        elif name == "server_delay_ms":
            delay = _numbers(name, values, np.float64, first)
            rows.numbers(name, ">f8", *delay)
        else:
            empty = "" if name in _NOT_NULL_TEXT else None
            rows.lookup(name, values, {v: _NULL if v is None and empty is None else _text(v or "")
                                       for v in set(values)})
    t0 = _numbers("t0", columns["t0"], first=first)
    total = total_us_column(t0, ints["app_done"])
    ttfb = ttfb_us_column(ints["req_start"], ints["resp_first_byte"])
    rows.numbers("total_us", ">i8", *total)
    rows.numbers("ttfb_us", ">i8", *ttfb)
    order, data = rows.build(order)
    return order, data, _analysis_columns(columns, ints, total, ttfb, delay, arm_ids)


def samples_insert(*, run: Run, samples: list[Any], arm_ids: dict[str, Any] | None = None,
                   block: int | None = None) -> int:
    """COPY the samples (SampleIn or dicts) into PostgreSQL inside the caller's transaction,
    and each of their blocks' analysis columns (BlockColumns). `arm_ids`: label → Arm id,
    when the caller has it; `block`: the block being stored, given its columns even when
    it has no samples."""
    if not samples:
        if block is not None:
            block_columns_store(run.id, {block: {name: np.zeros(0, np.int64) for name in _BLOCK_NAMES}})
        return 0
    if arm_ids is None:
        arm_ids = dict(run.comparison.arms.values_list("label", "id"))
    ids: dict[str, Any] = {"comparison_id": run.comparison_id, "run_id": run.id, "arm_ids": arm_ids}
    order, data, analysis = _copy_chunk(samples[:COPY_CHUNK], **ids)
    parts = [analysis]
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY results_sample ({', '.join(order)}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(_SIGNATURE + data)
            for first in range(COPY_CHUNK, len(samples), COPY_CHUNK):
                _, data, analysis = _copy_chunk(samples[first:first + COPY_CHUNK], **ids, order=order, first=first)
                copy.write(data)
                parts.append(analysis)
            copy.write(_TRAILER)
    merged = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    blocks = merged.pop("block")
    values = np.unique(blocks)
    if len(values) == 1:
        per_block = {int(values[0]): merged}
    else:  # an import: several blocks in one call
        per_block = {int(b): {name: column[blocks == b] for name, column in merged.items()} for b in values}
    if block is not None:
        per_block.setdefault(block, {name: np.zeros(0, np.int64) for name in _BLOCK_NAMES})
    block_columns_store(run.id, per_block)
    return len(samples)


__all__ = ["COLUMNS", "SampleBatchParser", "SampleIn", "batch_decode", "copy_rows", "sample_errors",
           "samples_columns", "samples_insert", "samples_validate", "total_us", "ttfb_us"]
