"""Reads a comparison's samples out of PostgreSQL into the columnar SampleTable of the
pure analysis engine. Each run's samples arrive through one binary COPY whose rows have
a fixed width, so numpy reads them in place: a million samples load in well under a
second and take tens of MB, with no Python object per sample.

The server's cost is per row and per column (a send call each), so the small columns
travel packed into two int8 words and are unpacked with shifts in numpy; the phase
durations (for the phase breakdown) come along only when asked for."""

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection

from apps.comparisons.models import Comparison, Run

from .analysis import BlockBaselines, SampleTable
from .derive import SQL_DURATIONS_MS

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
_HEADER_BYTES = 19  # "PGCOPY\n\377\r\n\0" + flags (4) + header extension length (4)


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
    runs = comparison.runs.select_related("device").prefetch_related("blocks").order_by("slot", "network_profile")
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
        rows = _copy_run(comparison.id, run.id, columns)
        run_code = len(run_ids)
        run_ids.append(run.id)
        if not len(rows):
            continue
        parts.append(_unpack(rows, code_of_sorted[np.searchsorted(arm_ids_sorted, rows["arm"])], d, p, run_code,
                             [name for name, _ in _PHASE_COLUMNS] if phases else []))
        del rows
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


def _unpack(rows: np.ndarray, arm: np.ndarray, d: int, p: int, run_code: int,
            phase_names: list[str]) -> dict[str, np.ndarray]:
    n = len(rows)
    pr = rows["period_repetition"].astype(np.int64)
    sbf = rows["step_block_flags"].astype(np.int64)
    flags = (sbf & 0xFF).astype(np.uint8)
    out = {
        "arm": arm.astype(np.int32, copy=False),
        "device": np.full(n, d, dtype=np.int32),
        "profile": np.full(n, p, dtype=np.int32),
        "period": (pr >> 32).astype(np.int32),
        "repetition": pr.astype(np.int32),  # the low 32 bits, as a signed int4
        "step": (sbf >> 32).astype(np.int32),
        "block": ((sbf >> 8) & 0xFFFF).astype(np.int32),
        "phase_measure": (flags & _MEASURE) != 0,
        "ok": (flags & _OK) != 0,
        "first_on_connection": (flags & _FIRST) != 0,
    }
    for name in ("total_us", "ttfb_us", "resp_bytes", "server_delay_us", *phase_names):
        out[name] = rows[name].astype(np.int64)
    if phase_names:
        out["run"] = np.full(n, run_code, dtype=np.int32)
        out["ttfb_null"] = (flags & _TTFB_NULL) != 0
    return out
