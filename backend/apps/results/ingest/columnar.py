"""The columnar upload body (device-runner/contract/README.md, "The columnar body";
latencylab_contract.columnar is its layout and reference reader): read with numpy, checked
against the contract one whole column at a time, never a Python step per sample.

`columnar_decode` reads the body's buffers as numpy views (a malformed body is a ParseError);
`columnar_validate` checks the contract's rules (types, required fields, ranges, enums,
string lengths; then the run's arm labels and block) column by column. A batch it rejects is
turned into sample objects and given the JSON path's per-sample checks (decode.sample_errors),
so the 400 names `samples[i].field` in the same words; apps.results.ingest.store builds the
COPY rows from the columns.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from latencylab_contract.columnar import MAGIC, MEDIA_TYPE, REQUIRED, TYPES, ColumnarError, read_header
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from .decode import (
    ERROR_CLASSES,
    KNOWN,
    MAX_IN_FLIGHT,
    NON_NEGATIVE_INTS,
    OPS,
    OPTIONAL_BOOLS,
    OPTIONAL_INTS,
    OPTIONAL_STRS,
    PHASES,
    SAMPLE_FIELDS,
    TIMESTAMPS,
    Batch,
    samples_validate,
)

INTS = frozenset({"block", "seq", "wall_time", "t0", *TIMESTAMPS, *OPTIONAL_INTS})
NOT_NULL = frozenset({"arm", "block", "seq", "phase", "wall_time", "t0"})  # required and never null
NON_NEGATIVE = frozenset({"block", "seq", "wall_time", *TIMESTAMPS, *NON_NEGATIVE_INTS})
STR_LIMITS = {"arm": 64, "phase": 16, "op": 16, "error_class": 32, **OPTIONAL_STRS}
ENUMS = {"phase": PHASES, "op": OPS, "error_class": {c for c in ERROR_CLASSES if c}}
# The database column's range (apps.results.ingest.store._INT_TYPES), checked here so a value
# that doesn't fit is a 400 before anything is written.
DB_RANGE = {"block": (0, 2**15 - 1), **dict.fromkeys(("period", "repetition", "step", "seq", "in_flight", "status",
                                                        "retrans"), (-(2**31), 2**31 - 1))}
_DTYPES = {"int64": "<i8", "float64": "<f8"}
_ACCEPTED = {**dict.fromkeys(INTS, ("int64",)), "server_delay_ms": ("float64", "int64"),
             **dict.fromkeys(OPTIONAL_BOOLS, ("bool",)), **dict.fromkeys(STR_LIMITS, ("str",))}
if set(_ACCEPTED) != KNOWN:
    raise RuntimeError(f"the columnar checks' fields differ from the contract's: {set(_ACCEPTED) ^ KNOWN}")


@dataclass(frozen=True)
class Column:
    kind: str  # one of latencylab_contract.columnar.TYPES
    data: np.ndarray | None  # int64/float64 values (0 where null), int8 booleans (-1 null), int32 codes (-1 null)
    present: np.ndarray | None = None  # int64/float64 with nulls: the rows that have a value
    values: tuple[str, ...] = ()  # str: the distinct strings the codes point at


class ColumnarSamples:
    """A batch's samples as columns (name → Column), as decoded from the body."""

    def __init__(self, rows: int, columns: dict[str, Column], cache: dict[Any, Any] | None = None):
        self.rows = rows
        self.columns = columns
        # what is worked out once per batch, not per slice (a string column's COPY encodings)
        self.cache: dict[Any, Any] = {} if cache is None else cache

    def __len__(self) -> int:
        return self.rows

    def slice(self, start: int, stop: int) -> "ColumnarSamples":
        """Rows start…stop-1, as views."""
        stop = min(stop, self.rows)
        return ColumnarSamples(max(0, stop - start), {
            name: Column(c.kind, None if c.data is None else c.data[start:stop],
                         None if c.present is None else c.present[start:stop], c.values)
            for name, c in self.columns.items()}, self.cache)

    def numbers(self, name: str, dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray]:
        """(values with 0 where null, present mask), as `dtype`."""
        column = self.columns.get(name)
        if column is None or column.data is None:
            return np.zeros(self.rows, dtype), np.zeros(self.rows, bool)
        present = np.ones(self.rows, bool) if column.present is None else column.present
        return column.data.astype(dtype, copy=False), present

    def strings(self, name: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """(int32 codes, -1 = null; the strings they point at)."""
        column = self.columns.get(name)
        if column is None or column.data is None:
            return np.full(self.rows, -1, np.int32), ()
        return column.data, column.values

    def booleans(self, name: str) -> np.ndarray:
        """int8: 1 true, 0 false, -1 null."""
        column = self.columns.get(name)
        if column is None or column.data is None:
            return np.full(self.rows, -1, np.int8)
        return column.data

    def values(self, name: str) -> list[Any]:
        """The column as Python values (None where null or absent): for the slow paths only
        (a rejected batch, a repeat compared with what is stored)."""
        column = self.columns.get(name)
        if column is None or column.data is None:
            return [None] * self.rows
        if column.kind == "str":
            table = np.array([*column.values, None], dtype=object)
            return table[column.data].tolist()  # -1 picks the trailing None
        if column.kind == "bool":
            return np.array([False, True, None], dtype=object)[column.data].tolist()
        out = column.data.astype(object)
        if column.present is not None:
            out[~column.present] = None
        return out.tolist()

    def as_tuples(self) -> dict[str, tuple]:
        """Field name → tuple of values, as apps.results.ingest.store.samples_columns gives."""
        return {name: tuple(self.values(name)) for name in SAMPLE_FIELDS}

    def as_dicts(self) -> list[dict[str, Any]]:
        """The samples as the JSON body would carry them: each column's field in every sample."""
        names = list(self.columns)
        columns = [self.values(name) for name in names]
        return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)] if names else \
            [{} for _ in range(self.rows)]


def columnar_decode(body: bytes) -> Batch:
    """The envelope fields and `samples` (ColumnarSamples) of a columnar body; a ParseError
    naming what is malformed."""
    try:
        header, offset = read_header(body)
    except ColumnarError as exc:
        raise ParseError(f"columnar body: {exc}") from exc
    rows: int = header["rows"]
    columns: dict[str, Column] = {}

    def take(dtype: str) -> np.ndarray:
        nonlocal offset
        size = np.dtype(dtype).itemsize * rows
        if offset + size > len(body):
            raise ParseError("columnar body: it ends inside a column")
        data = np.frombuffer(body, dtype, rows, offset)
        offset += size + -size % 8
        return data

    for entry in header["columns"]:
        name, kind = (entry.get("name"), entry.get("type")) if isinstance(entry, dict) else (None, None)
        if not isinstance(name, str) or kind not in TYPES:
            raise ParseError(f"columnar body: a column needs a name and a type of {list(TYPES)}: {entry!r}"[:300])
        if name in columns:
            raise ParseError(f"columnar body: column {name} twice")
        columns[name] = _column_read(name, str(kind), entry, rows, take)
    if offset < len(body):
        raise ParseError("columnar body: bytes after the last column")
    batch = Batch({key: header[key] for key in ("lease_token", "attempt", "batch_seq", "block", "baseline")
                   if key in header})
    batch["samples"] = ColumnarSamples(rows, columns)
    batch.typed = True
    return batch


def _column_read(name: str, kind: str, entry: dict[str, Any], rows: int, take: Any) -> Column:
    """One column from its header entry and buffers (`take(dtype)`: the next buffer)."""
    if kind == "null":
        return Column(kind, None)
    if kind == "bool":
        data = take("i1")
        if rows and (data.min() < -1 or data.max() > 1):
            raise ParseError(f"columnar body: {name}: a bool column holds -1, 0 or 1")
        return Column(kind, data)
    if kind == "str":
        values = entry.get("values")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ParseError(f"columnar body: {name}: `values` must be a list of strings")
        data = take("<i4")
        if rows and (data.min() < -1 or data.max() >= len(values)):
            raise ParseError(f"columnar body: {name}: a code outside -1…{len(values) - 1}")
        return Column(kind, data.astype(np.int32, copy=False), values=tuple(values))
    nulls = entry.get("nulls", 0)
    if not isinstance(nulls, int) or isinstance(nulls, bool) or not 0 <= nulls <= rows:
        raise ParseError(f"columnar body: {name}: `nulls` must be an integer 0…{rows}")
    present = take("u1").astype(bool) if nulls else None
    if present is not None and rows - int(present.sum()) != nulls:
        raise ParseError(f"columnar body: {name}: its mask has not `nulls` ({nulls}) nulls")
    native = np.int64 if kind == "int64" else np.float64
    return Column(kind, take(_DTYPES[kind]).astype(native, copy=False), present)


class ColumnarBatchParser(BaseParser):
    """The runner upload endpoint's columnar body (Content-Type MEDIA_TYPE)."""

    media_type = MEDIA_TYPE

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read() if stream is not None else b""
        if not body.startswith(MAGIC):
            raise ParseError(f"columnar body: it must begin with {MAGIC!r}")
        return columnar_decode(body)


# ---------------------------------------------------------------------------------------
# The contract's rules over whole columns.

def _first(name: str, bad: np.ndarray, message: str) -> tuple[int, str, str] | None:
    """The first row where `bad` holds, as (row, field, message); None if none."""
    rows = np.flatnonzero(bad)
    return (int(rows[0]), name, message) if len(rows) else None


def _column_problem(name: str, column: Column, arms: set[str], block: int) -> tuple[int, str, str] | None:  # noqa: C901  one rule per kind of field
    n = len(column.data) if column.data is not None else 0
    if column.kind not in _ACCEPTED[name] and column.kind != "null":
        return 0, name, f"a {column.kind} column; expected {' or '.join(_ACCEPTED[name])}"
    if column.data is None:  # every value null
        return (0, name, "required, never null") if name in NOT_NULL else None
    if column.kind in ("int64", "float64"):
        present = np.ones(n, bool) if column.present is None else column.present
        values = column.data
        if name in NOT_NULL:
            problem = _first(name, ~present, "required, never null")
            if problem:
                return problem
        if column.kind == "float64":
            problem = _first(name, present & ~np.isfinite(values), "must be a finite number")
            if problem:
                return problem
        low = 1 if name == "in_flight" else 0 if (name in NON_NEGATIVE or name == "server_delay_ms") else None
        high = MAX_IN_FLIGHT if name == "in_flight" else None
        if name == "t0":
            return _first(name, values != 0, "must be 0 (timestamps are µs from t0)")
        if name == "block":
            return _first(name, values != block, f"must equal the batch's block ({block})")
        if name in DB_RANGE:
            low = DB_RANGE[name][0] if low is None else max(low, DB_RANGE[name][0])
            high = DB_RANGE[name][1] if high is None else min(high, DB_RANGE[name][1])
        if low is not None and (problem := _first(name, present & (values < low), f"must be ≥ {low}")):
            return problem
        if high is not None and (problem := _first(name, present & (values > high), f"must be ≤ {high}")):
            return problem
        return None
    if column.kind == "str":
        codes = column.data
        if name in NOT_NULL and (problem := _first(name, codes < 0, "required, never null")):
            return problem
        limit = STR_LIMITS[name]
        allowed = arms if name == "arm" else ENUMS.get(name)
        bad = [i for i, v in enumerate(column.values)
               if len(v) > limit or (name == "arm" and not v) or (allowed is not None and v not in allowed)]
        if bad:
            return _first(name, np.isin(codes, bad), f"must be one of {sorted(allowed)}" if allowed is not None
                          else f"must be null or a string of at most {limit} characters")
        return None
    return None  # bool: any of -1/0/1, checked while decoding


def columnar_problem(samples: ColumnarSamples, *, arms: set[str], block: int) -> tuple[int, str, str] | None:
    """The first violation of the contract (and of the run's arms and block) as
    (row, field, message), or None. Every rule is a whole-column operation."""
    for name in samples.columns:
        if name not in KNOWN:
            return 0, name, "unknown field"
    for name in REQUIRED:
        if name not in samples.columns and samples.rows:
            return 0, name, "required"
    for name, column in samples.columns.items():
        if problem := _column_problem(name, column, arms, block):
            return problem
    if not samples.rows:
        return None
    # a null app_done only on error samples
    return _first("app_done", ~samples.numbers("app_done")[1] & (samples.strings("error_class")[0] < 0),
                  "null is allowed only on error samples")


def columnar_validate(samples: ColumnarSamples, *, arms: set[str], block: int) -> None:
    """Return when every sample satisfies the contract and belongs to this run's arms and
    block; otherwise a 400 naming `samples[i].field` (the JSON path's per-sample checks over
    the rejected batch; where those find nothing, e.g. a value beyond its database column,
    the column check's own finding)."""
    problem = columnar_problem(samples, arms=arms, block=block)
    if problem is None:
        return
    samples_validate(samples.as_dicts(), arms=arms, block=block)
    row, field, message = problem
    raise serializers.ValidationError({f"samples[{row}].{field}": [message]})
