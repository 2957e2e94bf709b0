"""Storing validated samples: results_sample rows by one binary COPY, and each block's
analysis columns (apps.results.storage.block_columns), inside the caller's transaction.

The batch goes in chunks so that PostgreSQL stores one while the next is being built.
Durations are derived here, once, by apps.results.storage.derive.
"""

import gc
import operator
from collections.abc import Sequence
from itertools import repeat
from operator import is_
from typing import Any

import numpy as np
from django.db import connection
from msgspec.structs import astuple
from rest_framework import serializers

from apps.comparisons.models import Run

from ..storage.block_columns import (
    FLAG_FIRST_ON_CONNECTION,
    FLAG_MEASURE,
    FLAG_OK,
    FLAG_TTFB_NULL,
    PHASE_NULL,
    block_columns_empty,
    block_columns_store,
)
from ..storage.derive import Column, durations_numpy
from .columnar import ColumnarSamples
from .copy_codec import BOOLEANS, NULL, SIGNATURE, TRAILER, ColumnRows, CopyRows, encode_id, encode_text
from .decode import OPTIONAL_BOOLS, SAMPLE_FIELDS, TIMESTAMPS, SampleIn

# results_sample's columns in SampleIn's field order, after the run's ids, with the stored
# durations last.
COLUMNS = (
    "comparison_id", "run_id", "arm_id", "block", "period", "repetition", "step", "seq", "part", "phase", "op", "path",
    "wall_time", "issued_mono_us", *TIMESTAMPS, "conn_id", "conn_reused", "in_flight", "alpn", "tls_version",
    "tls_resumed", "early_data", "req_bytes", "resp_bytes", "status", "server_delay_ms", "server_time_us", "srtt_us",
    "retrans", "error_class", "error_detail", "total_us", "ttfb_us",
)
# Checked at import: the COPY codec writes SAMPLE_FIELDS in COLUMNS' order.
if SAMPLE_FIELDS[:-1] != ("arm", "block", *COLUMNS[4:-2]) or SAMPLE_FIELDS[-1] != "t0":
    raise RuntimeError(f"SAMPLE_FIELDS no longer line up with the sample table's COLUMNS: {SAMPLE_FIELDS!r}")

_INT_TYPES = {  # column → (big-endian numpy type, smallest, largest) of its PostgreSQL type
    **dict.fromkeys(("wall_time", "issued_mono_us", *TIMESTAMPS, "req_bytes", "resp_bytes", "server_time_us",
                     "srtt_us", "total_us", "ttfb_us"), (">i8", -(2**63), 2**63 - 1)),
    **dict.fromkeys(("period", "repetition", "step", "seq", "in_flight", "status", "retrans"),
                    (">i4", -(2**31), 2**31 - 1)),
    "block": (">i2", -(2**15), 2**15 - 1),
}
_NOT_NULL_TEXT = ("op", "path")  # null is stored as ""
_RANGE_MESSAGE = "out of range for the database column ({} … {})"
COPY_CHUNK = 1000  # samples per piece of the COPY (the first goes out after ~1/5 of the work)
# A columnar upload's rows are built ~10× faster, so PostgreSQL has less to overlap with and each
# piece's own cost shows: 2,500 measured 3-4 ms a 5,000-sample batch faster than 1,000 or 500.
COLUMNAR_COPY_CHUNK = 2500


def _numbers(name: str, values: Sequence[Any], dtype: type = np.int64, first: int = 0) -> Column:
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


def samples_columns(samples: list[Any] | ColumnarSamples) -> dict[str, tuple]:
    """The samples (SampleIn, dicts or a columnar upload's) as columns: field name → tuple of values."""
    if isinstance(samples, ColumnarSamples):
        return samples.as_tuples()
    if samples and isinstance(samples[0], SampleIn):
        # A tuple per sample (msgspec's astuple, in C) turned into columns by zip: 5-10×
        # faster than a getter per column, with the cyclic garbage collector paused, which
        # otherwise chases every new tuple (3× slower). Paused only if it was running, so
        # overlapping uploads in other threads never leave it off.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return dict(zip(SAMPLE_FIELDS, zip(*map(astuple, samples), strict=True), strict=True))
        finally:
            if collecting:
                gc.enable()
    return {name: tuple(s.get(name) for s in samples) for name in SAMPLE_FIELDS}


def _present(values: tuple, value: Any) -> np.ndarray:
    """values[i] is value (None, True), as a bool array."""
    return np.fromiter(map(is_, values, repeat(value)), bool, len(values))


def _block_columns(*, arm: np.ndarray, measure: np.ndarray, ok: np.ndarray, reused: np.ndarray,
                   ints: dict[str, Column], durations: dict[str, Column], delay: Column) -> dict[str, np.ndarray]:
    """The block columns of these samples (apps.results.storage.block_columns): the values the
    loader's COPY computes in SQL from the stored rows, plus `block`. `arm`: each row's Arm id;
    `measure`, `ok`, `reused`: phase is measure, error_class is null, conn_reused is true."""

    def null_as(column: Column, value: int) -> np.ndarray:
        return np.where(column[1], column[0], value)

    flags = (measure * FLAG_MEASURE | ok * FLAG_OK | ~reused * FLAG_FIRST_ON_CONNECTION
             | ~durations["ttfb"][1] * FLAG_TTFB_NULL).astype(np.uint8)
    return {
        "arm": arm,
        "block": ints["block"][0],
        "period": null_as(ints["period"], -1), "repetition": null_as(ints["repetition"], -1),
        "step": null_as(ints["step"], -1), "flags": flags,
        "total_us": null_as(durations["total"], -1), "ttfb_us": null_as(durations["ttfb"], -1),
        "resp_bytes": null_as(ints["resp_bytes"], 0),
        "start_us": ints["wall_time"][0],
        "issued_us": null_as(ints["issued_mono_us"], -1),
        # PostgreSQL's float8 → int8 rounds half to even, as rint does.
        "server_delay_us": np.where(delay[1], np.rint(delay[0] * 1000), -1).astype(np.int64),
        **{f"{name}_us": null_as(durations[name], PHASE_NULL) for name in ("dns", "connect", "tls", "download")},
    }


def _copy_chunk(samples: list[Any], *, comparison_id: Any, run_id: Any, arm_ids: dict[str, Any],
                order: list[str] | None = None, first: int = 0) -> tuple[list[str], bytes, dict[str, np.ndarray]]:
    """The binary COPY rows of results_sample for the samples (SampleIn or dicts; `first`:
    the index of samples[0] in the batch) in the column `order` (None: the best one for
    these samples), that order, and their block columns; a 400 for a value that doesn't
    fit its column."""
    columns = samples_columns(samples)
    rows = CopyRows(len(samples))
    rows.constant("comparison_id", encode_id(comparison_id))
    rows.constant("run_id", encode_id(run_id))
    rows.lookup("arm_id", columns["arm"], {label: encode_id(arm_ids[label]) for label in set(columns["arm"])})
    ints: dict[str, Column] = {}
    for name in COLUMNS[3:-2]:
        values = columns[name]
        if name in _INT_TYPES:
            ints[name] = _numbers(name, values, first=first)
            dtype, low, high = _INT_TYPES[name]
            if low > -(2**63) and (ints[name][0].min() < low or ints[name][0].max() > high):
                _out_of_range(name, values, low, high, first)
            rows.numbers(name, dtype, *ints[name])
        elif name in OPTIONAL_BOOLS:
            rows.lookup(name, values, {v: BOOLEANS[v] for v in set(values)})
        elif name == "server_delay_ms":
            delay = _numbers(name, values, np.float64, first)
            rows.numbers(name, ">f8", *delay)
        else:
            empty = "" if name in _NOT_NULL_TEXT else None
            rows.lookup(name, values, {v: NULL if v is None and empty is None else encode_text(v or "")
                                       for v in set(values)})
    durations = durations_numpy({**ints, "t0": _numbers("t0", columns["t0"], first=first)})
    rows.numbers("total_us", ">i8", *durations["total"])
    rows.numbers("ttfb_us", ">i8", *durations["ttfb"])
    order, data = rows.build(order)
    n = len(samples)
    arm_of = {label: int(arm_ids[label]) for label in set(columns["arm"])}
    return order, data, _block_columns(
        arm=np.fromiter(map(arm_of.__getitem__, columns["arm"]), np.int64, n),
        measure=np.fromiter(map(operator.eq, columns["phase"], repeat("measure")), bool, n),
        ok=_present(columns["error_class"], None), reused=_present(columns["conn_reused"], True),
        ints=ints, durations=durations, delay=delay)


def _columnar_chunk(samples: ColumnarSamples, *, comparison_id: Any, run_id: Any, arm_ids: dict[str, Any],
                    order: list[str] | None = None) -> tuple[list[str], bytes, dict[str, np.ndarray]]:
    """As _copy_chunk, for columns checked by columnar_validate: every step a whole column."""
    rows = ColumnRows(len(samples))
    rows.constant("comparison_id", encode_id(comparison_id))
    rows.constant("run_id", encode_id(run_id))
    arm_codes, labels = samples.strings("arm")
    rows.table("arm_id", arm_codes, [encode_id(arm_ids[label]) for label in labels])
    ints: dict[str, Column] = {}
    for name in COLUMNS[3:-2]:
        if name in _INT_TYPES:
            ints[name] = samples.numbers(name)
            rows.numbers(name, _INT_TYPES[name][0], *ints[name])
        elif name in OPTIONAL_BOOLS:  # -1 (null) picks the last
            rows.table(name, samples.booleans(name), [BOOLEANS[False], BOOLEANS[True], NULL])
        elif name == "server_delay_ms":
            delay = samples.numbers(name, np.float64)
            rows.numbers(name, ">f8", *delay)
        else:  # -1 (null) picks the last
            codes, values = samples.strings(name)
            if name not in samples.cache:  # once per batch: each distinct string's encoding
                samples.cache[name] = [*map(encode_text, values), encode_text("") if name in _NOT_NULL_TEXT else NULL]
            rows.table(name, codes, samples.cache[name])
    durations = durations_numpy({**ints, "t0": samples.numbers("t0")})
    rows.numbers("total_us", ">i8", *durations["total"])
    rows.numbers("ttfb_us", ">i8", *durations["ttfb"])
    order, data = rows.build(order)
    phase_codes, phases = samples.strings("phase")
    error_codes, _ = samples.strings("error_class")
    return order, data, _block_columns(
        arm=np.array([int(arm_ids[label]) for label in labels], np.int64)[arm_codes] if labels
        else np.zeros(0, np.int64),
        measure=phase_codes == (phases.index("measure") if "measure" in phases else -2),
        ok=error_codes < 0, reused=samples.booleans("conn_reused") == 1,
        ints=ints, durations=durations, delay=delay)


def samples_insert(*, run: Run, samples: list[Any] | ColumnarSamples, arm_ids: dict[str, Any] | None = None,
                   block: int | None = None) -> int:
    """COPY the samples (SampleIn, dicts or a columnar upload's columns) into PostgreSQL inside
    the caller's transaction, and each of their blocks' analysis columns (BlockColumns).
    `arm_ids`: label → Arm id, when the caller has it; `block`: the block being stored, given its columns even when
    it has no samples."""
    if not samples:
        if block is not None:
            block_columns_store(run.id, {block: block_columns_empty()})
        return 0
    if arm_ids is None:
        arm_ids = dict(run.comparison.arms.values_list("label", "id"))
    ids: dict[str, Any] = {"comparison_id": run.comparison_id, "run_id": run.id, "arm_ids": arm_ids}
    size = COLUMNAR_COPY_CHUNK if isinstance(samples, ColumnarSamples) else COPY_CHUNK

    def chunk(first: int, order: list[str] | None = None) -> tuple[list[str], bytes, dict[str, np.ndarray]]:
        if isinstance(samples, ColumnarSamples):
            return _columnar_chunk(samples.slice(first, first + size), **ids, order=order)
        return _copy_chunk(samples[first:first + size], **ids, order=order, first=first)

    order, data, analysis = chunk(0)
    parts = [analysis]
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY results_sample ({', '.join(order)}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(SIGNATURE + data)
            for first in range(size, len(samples), size):
                _, data, analysis = chunk(first, order)
                copy.write(data)
                parts.append(analysis)
            copy.write(TRAILER)
    merged = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    blocks = merged.pop("block")
    values = np.unique(blocks)
    if len(values) == 1:
        per_block = {int(values[0]): merged}
    else:  # an import: several blocks in one call
        per_block = {int(b): {name: column[blocks == b] for name, column in merged.items()} for b in values}
    if block is not None:
        per_block.setdefault(block, block_columns_empty())
    block_columns_store(run.id, per_block)
    return len(samples)
