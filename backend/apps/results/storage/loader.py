"""Reads a comparison's samples out of PostgreSQL into the columnar SampleTable of the
pure analysis engine. Each run's samples arrive through one binary COPY whose rows have
a fixed width, so numpy reads them in place: a million samples load in well under a
second and take tens of MB, with no Python object per sample.

The server's cost is per row and per column (a send call each), so the small columns
travel packed into two int8 words and are unpacked with shifts in numpy; the phase
durations (for the phase breakdown) come along only when asked for.

Faster still: every stored block also keeps its analysis columns as one binary value
(`BlockColumns`, apps.results.storage.block_columns, written by ingestion in the block's
transaction), so a comparison arrives in one query of a few large values. A run any of
whose blocks lacks usable ones (stored before they existed, or a block stored twice) is
read through the COPY; the result is the same (tests/test_loader_block_columns.py).

Either way each column of the table is allocated once, at the comparison's length, and
each block's values are converted straight into their place in it (views of the stored
value, no per-run or per-block concatenation): one copy of the samples beside the values
read, not three.
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection, transaction

from apps.comparisons.models import Comparison, Run
from apps.comparisons.spec import concurrency_label, concurrency_of

from ..analysis import BlockBaselines, SampleTable
from ..models import BlockColumns
from .block_columns import (
    FLAG_FIRST_ON_CONNECTION,
    FLAG_MEASURE,
    FLAG_OK,
    FLAG_TTFB_NULL,
    NAMES,
    PHASE_COLUMNS,
    PHASE_NULL,
    READABLE_FORMATS,
    block_columns_decode,
    block_columns_store,
)
from .derive import duration_sql
from .retention import samples_available_check

# Every expression is NOT NULL so each binary row has the same width; every column is
# int8. period and repetition (int4) share one word, step (int4), block (int2) and the
# flags (apps.results.storage.block_columns) another; the arithmetic shift of numpy restores the signs.
_COLUMNS = [
    ("arm", "arm_id"),
    ("period_repetition", "(COALESCE(period, -1)::int8 << 32) | (COALESCE(repetition, -1)::int8 & 4294967295)"),
    ("step_block_flags", f"(COALESCE(step, -1)::int8 << 32) | (block::int8 << 8)"
                         f" | ((phase = 'measure')::int4 * {FLAG_MEASURE}) | ((error_class IS NULL)::int4 * {FLAG_OK})"
                         f" | ((NOT COALESCE(conn_reused, FALSE))::int4 * {FLAG_FIRST_ON_CONNECTION})"
                         f" | (({duration_sql('ttfb')} IS NULL)::int4 * {FLAG_TTFB_NULL})"),
    ("total_us", f"COALESCE({duration_sql('total')}, -1)"),
    ("ttfb_us", f"COALESCE({duration_sql('ttfb')}, -1)"),
    ("resp_bytes", "COALESCE(resp_bytes, 0)"),
    ("server_delay_us", "COALESCE((server_delay_ms * 1000)::int8, -1)"),
    ("start_us", "wall_time"),
    ("issued_us", "COALESCE(issued_mono_us, -1)"),
]
# The other phases' durations in µs (NULL -> PHASE_NULL), as apps.results.storage.derive defines them.
_PHASE_COLUMNS = [(name, f"COALESCE({duration_sql(name.removesuffix('_us'))}, {PHASE_NULL})")
                  for name in PHASE_COLUMNS]
_HEADER_BYTES = 19  # "PGCOPY\n\377\r\n\0" + flags (4) + header extension length (4)


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


def _block_parts(blocks: list[tuple[int, int, int, bytes]]) -> list[tuple[int | None, dict[str, np.ndarray]]]:
    """A run's blocks as (block, its columns): views of each stored value, nothing copied."""
    return [(block, block_columns_decode(data, rows, version)) for block, version, rows, data in blocks]


def _row_dtype(names: list[str]) -> np.dtype:
    return np.dtype([("nfields", ">i2")] + [f for name in names for f in ((f"len_{name}", ">i4"), (name, ">i8"))])


@dataclass(frozen=True)
class LoadedComparison:
    table: SampleTable
    baselines: BlockBaselines
    # The emulated link's measured downstream goodput (kbit/s) per (device, profile) label,
    # where a run measured one: the payload sweep's stall model falls back on it.
    link_rates: dict[tuple[str, str], float] = field(default_factory=dict)
    # Only with load_comparison(..., phases=True): run code of each row (index into
    # run_ids), and each phase's duration in µs (PHASE_NULL where the phase did not happen).
    run: np.ndarray | None = None
    run_ids: tuple = ()
    phase_us: dict[str, np.ndarray] | None = None
    ttfb_null: np.ndarray | None = None


def device_classes(device_labels: list[str], model_of: dict[str, tuple[str, str]]) -> tuple[str, ...]:
    """Devices sharing a platform and model are one class, labelled "platform / model", and
    their verdict is pooled; a device alone in its model (or of no known model) is its own
    class under its own label, as before pooling existed."""
    shared = Counter(model_of.values())
    return tuple(f"{model_of[d][0]} / {model_of[d][1]}" if d in model_of and shared[model_of[d]] > 1 else d
                 for d in device_labels)


def run_device_label(run: Run) -> str:
    return run.device.serial if run.device else run.device_label or f"slot-{run.slot}"


def _copy_run(comparison_id: object, run_id: object, columns: list[tuple[str, str]]) -> np.ndarray:
    select = ", ".join(expr for _, expr in columns)
    dtype = _row_dtype([name for name, _ in columns])
    buffer = bytearray()
    with connection.cursor() as cursor:
        # The comparison id lets PostgreSQL use the (comparison, run, block) index.
        sql = (f"COPY (SELECT {select} FROM results_sample WHERE comparison_id = %s AND run_id = %s) "  # noqa: S608  select list from our column table; ids go in params
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
    blocks = {int(b): {name: fields[name][fields["block"] == b] for name in NAMES}
              for b in np.unique(fields["block"])}
    with transaction.atomic():
        BlockColumns.objects.filter(run=run).delete()
        block_columns_store(run.id, blocks)
    return len(blocks)


def load_comparison(comparison: Comparison, *, phases: bool = False) -> LoadedComparison:
    """SamplesRemoved when retention dropped any of its samples: half a comparison is never analysed."""
    samples_available_check(comparison=comparison)
    arm_ids, arm_labels = zip(*comparison.arms.order_by("position").values_list("id", "label"), strict=True) or ((), ())
    arm_ids_sorted = np.asarray(sorted(arm_ids), dtype=np.int64)
    code_of_sorted = np.asarray([list(arm_ids).index(i) for i in arm_ids_sorted], dtype=np.int32)
    columns = _COLUMNS + (_PHASE_COLUMNS if phases else [])
    device_labels: list[str] = []
    profile_labels: list[str] = []
    base_rows: list[tuple[int, int, int, float, float, float]] = []
    run_ids: list[object] = []
    link_rates: dict[tuple[str, str], float] = {}
    runs = list(comparison.runs.select_related("device").prefetch_related("blocks").order_by("slot", "network_profile"))
    stored = _blocks_read([run.id for run in runs])
    phase_names = [name for name, _ in _PHASE_COLUMNS] if phases else []
    model_of: dict[str, tuple[str, str]] = {}
    # First what each run holds (its blocks' stored columns, or its samples read through the
    # COPY), then every column allocated once at its final length and filled part by part:
    # no per-run or per-block concatenation, no second copy of a million rows.
    run_parts: list[tuple[int, int, int, list[tuple[int | None, dict[str, np.ndarray]]]]] = []
    total = 0
    for run in runs:
        device, profile = run_device_label(run), run.network_profile
        if device not in device_labels:
            device_labels.append(device)
            if run.device is not None and run.device.model:
                model_of[device] = (run.device.platform, run.device.model)
        if profile not in profile_labels:
            profile_labels.append(profile)
        d, p = device_labels.index(device), profile_labels.index(profile)
        if (rate := _measured_down_kbit(run.link)) is not None:
            link_rates[(device, profile)] = rate
        for block in run.blocks.all():
            tcp = (block.baseline or {}).get("tcp") or {}
            if tcp.get("avg_ms") is not None:
                base_rows.append((d, p, block.block, tcp["avg_ms"] * 1000, (tcp.get("stddev_ms") or 0) * 1000,
                                  tcp.get("loss_pct") or 0))
        blocks = stored.pop(run.id, [])
        usable = {block for block, version, rows, _ in blocks if version in READABLE_FORMATS and rows >= 0}
        recorded = {block.block for block in run.blocks.all()}
        if recorded and recorded <= usable and len(usable) == len(blocks):
            parts = _block_parts(blocks)
        else:  # stored before blocks kept their columns
            parts = [(None, _fields(_copy_run(comparison.id, run.id, columns), phase_names))]
        run_code = len(run_ids)
        run_ids.append(run.id)
        total += sum(len(part["arm"]) for _, part in parts)
        run_parts.append((d, p, run_code, parts))
    names = ["arm", "device", "profile", "block", "period", "repetition", "step", "phase_measure", "ok",
             "first_on_connection", "total_us", "ttfb_us", "resp_bytes", "server_delay_us", "start_us", "issued_us"]
    extra = (["run", "ttfb_null"] + phase_names) if phases else []
    merged = {n: np.empty(total, dtype=_empty(n).dtype) for n in names + extra}
    at = 0
    for i, (d, p, run_code, parts) in enumerate(run_parts):
        for block_number, part in parts:
            at += _fill(merged, at, part, block_number, code_of_sorted[np.searchsorted(arm_ids_sorted, part["arm"])],
                        d, p, run_code, phase_names)
        run_parts[i] = (d, p, run_code, [])  # its stored values can go
    table_columns: dict[str, Any] = {n: merged[n] for n in names}
    table = SampleTable(**table_columns, arm_labels=tuple(arm_labels), device_labels=tuple(device_labels),
                        profile_labels=tuple(profile_labels), device_classes=device_classes(device_labels, model_of),
                        concurrency=concurrency_label(concurrency_of(comparison.spec.get("workload") or {})))
    b = np.asarray(base_rows, dtype=np.float64).reshape(-1, 6)
    baselines = BlockBaselines(device=b[:, 0].astype(np.int32), profile=b[:, 1].astype(np.int32),
                               block=b[:, 2].astype(np.int32), rtt_avg_us=b[:, 3], rtt_stddev_us=b[:, 4],
                               loss_pct=b[:, 5])
    if not phases:
        return LoadedComparison(table=table, baselines=baselines, link_rates=link_rates)
    return LoadedComparison(table=table, baselines=baselines, link_rates=link_rates, run=merged["run"],
                            run_ids=tuple(run_ids),
                            phase_us={name[:-3]: merged[name] for name, _ in _PHASE_COLUMNS},
                            ttfb_null=merged["ttfb_null"])


def _measured_down_kbit(link: dict[str, Any] | None) -> float | None:
    """A run's link report: measured.goodput_kbit.down (netlab's measure), when present."""
    measured = (link or {}).get("measured") or {}
    down = (measured.get("goodput_kbit") or {}).get("down") if isinstance(measured, dict) else None
    return float(down) if isinstance(down, (int, float)) and down > 0 else None


def _empty(name: str) -> np.ndarray:
    if name in ("phase_measure", "ok", "first_on_connection", "ttfb_null"):
        return np.zeros(0, dtype=bool)
    if name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us") or name.endswith("_us"):
        return np.zeros(0, dtype=np.int64)
    return np.zeros(0, dtype=np.int32)


def _fields(rows: np.ndarray, phase_names: list[str]) -> dict[str, np.ndarray]:
    """COPY rows (`_row_dtype`) as the block columns (apps.results.storage.block_columns) plus block."""
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
    for name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us", "start_us", "issued_us", *phase_names):
        out[name] = rows[name].astype(np.int64)
    return out


def _fill(out: dict[str, np.ndarray], at: int, part: dict[str, np.ndarray], block: int | None, arm: np.ndarray,
          d: int, p: int, run_code: int, phase_names: list[str]) -> int:
    """Write one part of a run (a stored block's columns, `block` its number; or the COPY's
    `_fields`, with their own block column) into the table's columns from row `at`, converting
    as it goes; returns its rows."""
    n = len(arm)
    rows = slice(at, at + n)
    flags = part["flags"]
    out["arm"][rows] = arm
    out["device"][rows] = d
    out["profile"][rows] = p
    out["block"][rows] = part["block"] if block is None else block
    for name in ("period", "repetition", "step", "total_us", "ttfb_us", "resp_bytes", "server_delay_us", "start_us",
                 "issued_us", *phase_names):
        out[name][rows] = part[name]
    for name, flag in (("phase_measure", FLAG_MEASURE), ("ok", FLAG_OK),
                       ("first_on_connection", FLAG_FIRST_ON_CONNECTION)):
        np.not_equal(flags & flag, 0, out=out[name][rows])
    if phase_names:
        out["run"][rows] = run_code
        np.not_equal(flags & FLAG_TTFB_NULL, 0, out=out["ttfb_null"][rows])
    return n
