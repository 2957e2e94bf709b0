"""A stored block's analysis columns (`BlockColumns`): the format, written by ingestion in
the block's transaction (apps.results.ingest.store) and read by the loader
(apps.results.storage.loader), so a comparison arrives in one query of a few large values
instead of one COPY row per sample.

Format 3 (BlockColumns.data): each column's `rows` values in `COLUMNS` order,
little-endian. Format 2 lacked `issued_us`: it is read as unknown (-1) for every row, which
is what its samples hold (they were stored before harnesses sent an issue time); format 1
lacked `start_us` too: its runs are read through the loader's COPY.
The values are those the loader's COPY of the stored samples computes, with the same
substitutes for NULL: -1 for a missing total, TTFB, server delay, period, repetition,
step or issue time, 0 for missing bytes, PHASE_NULL for a phase that did not happen; arm
is the Arm id; flags are the FLAG_* bits; start_us is the sample's wall_time (epoch µs at
t0) and issued_us its issued_mono_us (µs since its block began, on the harness's monotonic
clock), which a concurrent series' time (first request issued → last response completed)
needs: the monotonic one where the harness sent it, the wall clock otherwise.
"""

from typing import Any

import numpy as np
import psycopg
from django.db import connection

from .derive import PHASES

FORMAT = 3
# Formats the loader reads from the stored values (older ones go through its COPY).
READABLE_FORMATS = (2, 3)
FLAG_MEASURE, FLAG_OK, FLAG_FIRST_ON_CONNECTION, FLAG_TTFB_NULL = 1, 2, 4, 8
PHASE_NULL = np.iinfo(np.int64).min
# The phases beside TTFB, which has its own column (ttfb_us).
PHASE_COLUMNS = tuple(f"{name}_us" for name in PHASES if name != "ttfb")
COLUMNS = [
    ("arm", "<i8"), ("total_us", "<i8"), ("ttfb_us", "<i8"), ("resp_bytes", "<i8"), ("server_delay_us", "<i8"),
    ("start_us", "<i8"), ("issued_us", "<i8"),
    *((name, "<i8") for name in PHASE_COLUMNS),
    ("period", "<i4"), ("repetition", "<i4"), ("step", "<i4"), ("flags", "u1"),
]
NAMES = [name for name, _ in COLUMNS]
# Each readable format's columns: format 2 is format 3 without issued_us.
_FORMAT_COLUMNS = {3: COLUMNS, 2: [column for column in COLUMNS if column[0] != "issued_us"]}
_ROW_BYTES = {version: sum(np.dtype(t).itemsize for _, t in columns) for version, columns in _FORMAT_COLUMNS.items()}


def block_columns_encode(columns: dict[str, np.ndarray]) -> bytes:
    """The columns (`COLUMNS` names, equal lengths) as BlockColumns.data."""
    return b"".join(np.ascontiguousarray(columns[name], dtype=dtype).tobytes() for name, dtype in COLUMNS)


def block_columns_decode(data: bytes | memoryview, rows: int, version: int = FORMAT) -> dict[str, np.ndarray]:
    """BlockColumns.data of that format version → the columns (read-only views of `data`);
    a format 2 block's issued_us is -1 (unknown) for every row."""
    if version not in _FORMAT_COLUMNS:
        raise ValueError(f"block columns: format {version} is not one of {sorted(_FORMAT_COLUMNS)}")
    if len(data) != rows * _ROW_BYTES[version]:
        raise ValueError(f"block columns: {len(data)} bytes for {rows} rows of format {version}")
    out, offset = {}, 0
    for name, dtype in _FORMAT_COLUMNS[version]:
        out[name] = np.frombuffer(data, dtype=dtype, count=rows, offset=offset)
        offset += rows * out[name].itemsize
    if "issued_us" not in out:
        out["issued_us"] = np.full(rows, -1, dtype="<i8")
    return out


def block_columns_empty() -> dict[str, np.ndarray]:
    """The columns of a block without samples."""
    return {name: np.zeros(0, np.int64) for name in NAMES}


def block_columns_store(run_id: object, blocks: dict[int, dict[str, np.ndarray]]) -> None:
    """Store each block's analysis columns (inside the caller's transaction, with the
    samples). A block that already has them (its samples stored twice, which the runner
    protocol never does) is marked unusable, so the loader reads its run's samples."""
    if not blocks:
        return
    values = ", ".join(["(%s, %s, %s, %s, %b)"] * len(blocks))
    params: list[Any] = []
    for block, columns in sorted(blocks.items()):
        params += [run_id, block, FORMAT, len(columns["arm"]), block_columns_encode(columns)]
    # Bound by the server, the blob sent as binary (%b): Django's cursor binds on the client,
    # writing the ~0.5 MB of a 5,000-sample block into the query as escaped text (10 ms a block
    # against 2.5 ms this way). Django's own connection, so the caller's transaction.
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(f"INSERT INTO results_blockcolumns (run_id, block, format_version, rows, data) "  # noqa: S608  VALUES placeholders only; data goes in params
                       f"VALUES {values} ON CONFLICT (run_id, block) DO UPDATE SET rows = -1, data = ''::bytea",
                       params)
