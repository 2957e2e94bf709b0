"""Reads a comparison's samples out of PostgreSQL into the columnar SampleTable of the
pure analysis engine. Each run's samples arrive through one binary COPY whose rows have
a fixed width, so numpy reads them in place: a million samples load in well under a
second and take tens of MB, with no Python object per sample.

The server's cost is per row and per column (a send call each), so the small columns
travel packed into two int8 words and are unpacked with shifts in numpy; the phase
durations (for the phase breakdown) come along only when asked for.

Faster still: every stored block also keeps its analysis columns as one binary value
(`BlockColumns`, written by ingestion in the block's transaction, `block_columns`), so a
comparison arrives in one query of a few large values. A run any of whose blocks lacks
them (stored before they existed) is read through the COPY; the result is the same.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection, transaction

from apps.comparisons.models import Comparison, Run

from .analysis import BlockBaselines, SampleTable
from .derive import SQL_DURATIONS_MS
from .models import BlockColumns

# Flag bits of the packed `step_block_flags` word.
_MEASURE, _OK, _FIRST, _TTFB_NULL = 1, 2, 4, 8
# Every expression is NOT NULL so each binary row has the same width; every column is
# int8. period and repetition (int4) share one word, step (int4), block (int2) and the
# flags another; the arithmetic shift of numpy restores the signs.
_COLUMNS = [
    ("arm", "arm_id"),
    ("period_repetition", "(COALESCE(period, -1)::int8 << 32) | (COALESCE(repetition, -1)::int8 & 4294967295)"),
    ("step_block_flags", f"(COALESCE(step, -1)::int8 << 32) | (block::int8 << 8)"
                         f" | ((phase = 'measure')::int4 * {_MEASURE}) | ((error_class IS NULL)::int4 * {_OK})"
                         f" | ((NOT COALESCE(conn_reused, FALSE))::int4 * {_FIRST})"
                         f" | ((ttfb_us IS NULL)::int4 * {_TTFB_NULL})"),
    ("total_us", "COALESCE(total_us, -1)"),
    ("ttfb_us", "COALESCE(ttfb_us, -1)"),
    ("resp_bytes", "COALESCE(resp_bytes, 0)"),
    ("server_delay_us", "COALESCE((server_delay_ms * 1000)::int8, -1)"),
]
# Phase durations in µs (NULL -> PHASE_NULL): derive.py's formulas without the / 1000.0.
PHASE_NULL = np.iinfo(np.int64).min
_PHASE_COLUMNS = [
    (f"{p[:-3]}_us", f"COALESCE({SQL_DURATIONS_MS[p].removesuffix(' / 1000.0')}, {PHASE_NULL})")
    for p in ("dns_ms", "connect_ms", "tls_ms", "download_ms")
]
assert all(SQL_DURATIONS_MS[p].endswith(" / 1000.0") for p in ("dns_ms", "connect_ms", "tls_ms", "download_ms"))
_PHASE_NAMES = {name for name, _ in _PHASE_COLUMNS}
_HEADER_BYTES = 19  # "PGCOPY\n\377\r\n\0" + flags (4) + header extension length (4)


# ---------------------------------------------------------------------------------------
# A block's analysis columns (BlockColumns.data, format 1): each column's `rows` values in
# this order, little-endian, with the same values (and the same substitutes for NULL) as
# the COPY below: arm is the Arm id; flags are the bits above.
BLOCK_FORMAT = 1
_BLOCK_COLUMNS = [
    ("arm", "<i8"), ("total_us", "<i8"), ("ttfb_us", "<i8"), ("resp_bytes", "<i8"), ("server_delay_us", "<i8"),
    *((name, "<i8") for name, _ in _PHASE_COLUMNS),
    ("period", "<i4"), ("repetition", "<i4"), ("step", "<i4"), ("flags", "u1"),
]
_BLOCK_ROW_BYTES = sum(np.dtype(t).itemsize for _, t in _BLOCK_COLUMNS)


def block_columns_encode(columns: dict[str, np.ndarray]) -> bytes:
    """The columns (`_BLOCK_COLUMNS` names, equal lengths) as BlockColumns.data."""
    return b"".join(np.ascontiguousarray(columns[name], dtype=dtype).tobytes() for name, dtype in _BLOCK_COLUMNS)


def block_columns_decode(data: bytes | memoryview, rows: int) -> dict[str, np.ndarray]:
    """BlockColumns.data → the columns (read-only views of `data`)."""
    if len(data) != rows * _BLOCK_ROW_BYTES:
        raise ValueError(f"block columns: {len(data)} bytes for {rows} rows")
    out, offset = {}, 0
    for name, dtype in _BLOCK_COLUMNS:
        out[name] = np.frombuffer(data, dtype=dtype, count=rows, offset=offset)
        offset += rows * out[name].itemsize
    return out


def block_columns_store(run_id: object, blocks: dict[int, dict[str, np.ndarray]]) -> None:
    """Store each block's analysis columns (inside the caller's transaction, with the
    samples). A block that already has them (its samples stored twice, which the runner
    protocol never does) is marked unusable, so the loader reads its run's samples."""
    if not blocks:
        return
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(blocks))
    params: list[Any] = []
    for block, columns in sorted(blocks.items()):
        params += [run_id, block, BLOCK_FORMAT, len(columns["arm"]), block_columns_encode(columns)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO results_blockcolumns (run_id, block, format_version, rows, data) "
                       f"VALUES {values} ON CONFLICT (run_id, block) DO UPDATE SET rows = -1, data = ''::bytea",
                       params)


def _blocks_read(run_ids: list[object]) -> dict[object, list[tuple[int, int, int, bytes]]]:
    """run id → [(block, format, rows, data)] in block order, in one query."""
    out: dict[object, list[tuple[int, int, int, bytes]]] = {}
    if not run_ids:
        return out
    with connection.cursor() as cursor:
        # A binary COPY: the values arrive as they are stored, not hex-encoded.
        with cursor.cursor.copy("COPY (SELECT run_id, block, format_version, rows, data FROM results_blockcolumns "
                                "WHERE run_id = ANY(%s) ORDER BY run_id, block) TO STDOUT (FORMAT BINARY)",
                                [run_ids]) as copy:
            copy.set_types(["uuid", "int2", "int2", "int4", "bytea"])
            for run_id, block, version, rows, data in copy.rows():
                out.setdefault(run_id, []).append((block, version, rows, data))
    return out


def _run_from_blocks(blocks: list[tuple[int, int, int, bytes]], phases: bool) -> dict[str, np.ndarray]:
    """A run's rows from its blocks' columns, as the COPY's `_row_dtype` fields (block and
    flags apart)."""
    parts = [(block, block_columns_decode(data, rows)) for block, _, rows, data in blocks]
    names = [name for name, _ in _BLOCK_COLUMNS if phases or name not in _PHASE_NAMES]
    out = {name: np.concatenate([p[name] for _, p in parts]) if parts else np.zeros(0, dtype=np.int64)
           for name in names}
    out["block"] = np.concatenate([np.full(len(p["arm"]), b, dtype=np.int32) for b, p in parts]) if parts \
        else np.zeros(0, dtype=np.int32)
    return out


def _row_dtype(names: list[str]) -> np.dtype:
    return np.dtype([("nfields", ">i2")] + [f for name in names for f in ((f"len_{name}", ">i4"), (name, ">i8"))])


@dataclass(frozen=True)
class LoadedComparison:
    table: SampleTable
    baselines: BlockBaselines
    # Only with load_comparison(..., phases=True): run code of each row (index into
    # run_ids), and each phase's duration in µs (PHASE_NULL where the phase did not happen).
    run: np.ndarray | None = None
    run_ids: tuple = ()
    phase_us: dict[str, np.ndarray] | None = None
    ttfb_null: np.ndarray | None = None


def run_device_label(run: Run) -> str:
    return run.device.serial if run.device else run.device_label or f"slot-{run.slot}"


def _copy_run(comparison_id: object, run_id: object, columns: list[tuple[str, str]]) -> np.ndarray:
    select = ", ".join(expr for _, expr in columns)
    dtype = _row_dtype([name for name, _ in columns])
    buffer = bytearray()
    with connection.cursor() as cursor:
        # The comparison id lets PostgreSQL use the (comparison, run, block) index.
        sql = (f"COPY (SELECT {select} FROM results_sample WHERE comparison_id = %s AND run_id = %s) "
               "TO STDOUT (FORMAT BINARY)")
        with cursor.cursor.copy(sql, [comparison_id, run_id]) as copy:
            for chunk in copy:
                buffer += chunk
    body = len(buffer) - _HEADER_BYTES - 2  # the trailer is a 2-byte -1
    return np.frombuffer(buffer, dtype=dtype, count=body // dtype.itemsize, offset=_HEADER_BYTES)


def block_columns_backfill(run: Run) -> int:
    """Write the per-block analysis columns of a run stored before blocks kept them (from
    its samples, through the same SQL the fallback reads); returns the blocks written."""
    fields = _fields(_copy_run(run.comparison_id, run.id, _COLUMNS + _PHASE_COLUMNS),
                     [name for name, _ in _PHASE_COLUMNS])
    blocks = {int(b): {name: fields[name][fields["block"] == b] for name, _ in _BLOCK_COLUMNS}
              for b in np.unique(fields["block"])}
    with transaction.atomic():
        BlockColumns.objects.filter(run=run).delete()
        block_columns_store(run.id, blocks)
    return len(blocks)


def load_comparison(comparison: Comparison, *, phases: bool = False) -> LoadedComparison:
    arm_ids, arm_labels = zip(*comparison.arms.order_by("position").values_list("id", "label"), strict=True) or ((), ())
    arm_ids_sorted = np.asarray(sorted(arm_ids), dtype=np.int64)
    code_of_sorted = np.asarray([list(arm_ids).index(i) for i in arm_ids_sorted], dtype=np.int32)
    columns = _COLUMNS + (_PHASE_COLUMNS if phases else [])
    device_labels: list[str] = []
    profile_labels: list[str] = []
    parts: list[dict[str, np.ndarray]] = []
    base_rows: list[tuple[int, int, int, float, float, float]] = []
    run_ids: list[object] = []
    runs = list(comparison.runs.select_related("device").prefetch_related("blocks").order_by("slot", "network_profile"))
    stored = _blocks_read([run.id for run in runs])
    phase_names = [name for name, _ in _PHASE_COLUMNS] if phases else []
    for run in runs:
        device, profile = run_device_label(run), run.network_profile
        if device not in device_labels:
            device_labels.append(device)
        if profile not in profile_labels:
            profile_labels.append(profile)
        d, p = device_labels.index(device), profile_labels.index(profile)
        for block in run.blocks.all():
            tcp = (block.baseline or {}).get("tcp") or {}
            if tcp.get("avg_ms") is not None:
                base_rows.append((d, p, block.block, tcp["avg_ms"] * 1000, (tcp.get("stddev_ms") or 0) * 1000,
                                  tcp.get("loss_pct") or 0))
        blocks = stored.get(run.id, [])
        usable = {block for block, version, rows, _ in blocks if version == BLOCK_FORMAT and rows >= 0}
        recorded = {block.block for block in run.blocks.all()}
        if recorded and recorded <= usable and len(usable) == len(blocks):
            fields = _run_from_blocks(blocks, phases)
        else:  # stored before blocks kept their columns
            fields = _fields(_copy_run(comparison.id, run.id, columns), phase_names)
        run_code = len(run_ids)
        run_ids.append(run.id)
        if not len(fields["arm"]):
            continue
        parts.append(_unpack(fields, code_of_sorted[np.searchsorted(arm_ids_sorted, fields["arm"])], d, p, run_code,
                             phase_names))
        del fields
    names = ["arm", "device", "profile", "block", "period", "repetition", "step", "phase_measure", "ok",
             "first_on_connection", "total_us", "ttfb_us", "resp_bytes", "server_delay_us"]
    extra = (["run", "ttfb_null"] + [name for name, _ in _PHASE_COLUMNS]) if phases else []
    merged = {n: (np.concatenate([part[n] for part in parts]) if parts else _empty(n)) for n in names + extra}
    table_columns: dict[str, Any] = {n: merged[n] for n in names}
    table = SampleTable(**table_columns, arm_labels=tuple(arm_labels), device_labels=tuple(device_labels),
                        profile_labels=tuple(profile_labels))
    b = np.asarray(base_rows, dtype=np.float64).reshape(-1, 6)
    baselines = BlockBaselines(device=b[:, 0].astype(np.int32), profile=b[:, 1].astype(np.int32),
                               block=b[:, 2].astype(np.int32), rtt_avg_us=b[:, 3], rtt_stddev_us=b[:, 4],
                               loss_pct=b[:, 5])
    if not phases:
        return LoadedComparison(table=table, baselines=baselines)
    return LoadedComparison(table=table, baselines=baselines, run=merged["run"], run_ids=tuple(run_ids),
                            phase_us={name[:-3]: merged[name] for name, _ in _PHASE_COLUMNS},
                            ttfb_null=merged["ttfb_null"])


def _empty(name: str) -> np.ndarray:
    if name in ("phase_measure", "ok", "first_on_connection", "ttfb_null"):
        return np.zeros(0, dtype=bool)
    if name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us") or name.endswith("_us"):
        return np.zeros(0, dtype=np.int64)
    return np.zeros(0, dtype=np.int32)


def _fields(rows: np.ndarray, phase_names: list[str]) -> dict[str, np.ndarray]:
    """COPY rows (`_row_dtype`) as the columns of `_BLOCK_COLUMNS` plus block."""
    pr = rows["period_repetition"].astype(np.int64)
    sbf = rows["step_block_flags"].astype(np.int64)
    out: dict[str, np.ndarray] = {
        "arm": rows["arm"].astype(np.int64),
        "period": (pr >> 32).astype(np.int32),
        "repetition": pr.astype(np.int32),  # the low 32 bits, as a signed int4
        "step": (sbf >> 32).astype(np.int32),
        "block": ((sbf >> 8) & 0xFFFF).astype(np.int32),
        "flags": (sbf & 0xFF).astype(np.uint8),
    }
    for name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us", *phase_names):
        out[name] = rows[name].astype(np.int64)
    return out


def _unpack(fields: dict[str, np.ndarray], arm: np.ndarray, d: int, p: int, run_code: int,
            phase_names: list[str]) -> dict[str, np.ndarray]:
    n = len(arm)
    flags = fields["flags"]
    out = {
        "arm": arm.astype(np.int32, copy=False),
        "device": np.full(n, d, dtype=np.int32),
        "profile": np.full(n, p, dtype=np.int32),
        "period": fields["period"].astype(np.int32, copy=False),
        "repetition": fields["repetition"].astype(np.int32, copy=False),
        "step": fields["step"].astype(np.int32, copy=False),
        "block": fields["block"].astype(np.int32, copy=False),
        "phase_measure": (flags & _MEASURE) != 0,
        "ok": (flags & _OK) != 0,
        "first_on_connection": (flags & _FIRST) != 0,
    }
    for name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us", *phase_names):
        out[name] = fields[name].astype(np.int64, copy=False)
    if phase_names:
        out["run"] = np.full(n, run_code, dtype=np.int32)
        out["ttfb_null"] = (flags & _TTFB_NULL) != 0
    return out
