"""Reads a comparison's samples out of PostgreSQL into the columnar SampleTable of the
pure analysis engine. Each run's samples arrive through one binary COPY whose rows have
a fixed width, so numpy reads them in place: a million samples load in well under a
second and take tens of MB, with no Python object per sample."""

from dataclasses import dataclass

import numpy as np
from django.db import connection

from apps.comparisons.models import Comparison, Run

from .analysis import BlockBaselines, SampleTable

# (column, SQL expression, big-endian numpy type); every expression is NOT NULL so each
# binary row has the same width.
_COLUMNS = [
    ("arm", "arm_id", ">i8"),
    ("block", "block::int4", ">i4"),
    ("period", "COALESCE(period, -1)", ">i4"),
    ("repetition", "COALESCE(repetition, -1)", ">i4"),
    ("step", "COALESCE(step, -1)", ">i4"),
    ("phase_measure", "(phase = 'measure')::int4", ">i4"),
    ("ok", "(error_class IS NULL)::int4", ">i4"),
    ("total_us", "COALESCE(total_us, -1)", ">i8"),
    ("ttfb_us", "COALESCE(ttfb_us, -1)", ">i8"),
    ("resp_bytes", "COALESCE(resp_bytes, 0)", ">i8"),
    ("server_delay_us", "COALESCE((server_delay_ms * 1000)::int8, -1)", ">i8"),
    ("first_on_connection", "(NOT COALESCE(conn_reused, FALSE))::int4", ">i4"),
]
_ROW_DTYPE = np.dtype([("nfields", ">i2")] + [f for name, _, kind in _COLUMNS for f in ((f"len_{name}", ">i4"),
                                                                                         (name, kind))])
_HEADER_BYTES = 19  # "PGCOPY\n\377\r\n\0" + flags (4) + header extension length (4)
_BOOLS = {"phase_measure", "ok", "first_on_connection"}


@dataclass(frozen=True)
class LoadedComparison:
    table: SampleTable
    baselines: BlockBaselines


def run_device_label(run: Run) -> str:
    return run.device.serial if run.device else run.device_label or f"slot-{run.slot}"


def _copy_run(comparison_id: object, run_id: object) -> np.ndarray:
    select = ", ".join(expr for _, expr, _ in _COLUMNS)
    buffer = bytearray()
    with connection.cursor() as cursor:
        # The comparison id lets PostgreSQL use the (comparison, run, block) index.
        sql = (f"COPY (SELECT {select} FROM results_sample WHERE comparison_id = %s AND run_id = %s) "
               "TO STDOUT (FORMAT BINARY)")
        with cursor.cursor.copy(sql, [comparison_id, run_id]) as copy:
            for chunk in copy:
                buffer += chunk
    body = len(buffer) - _HEADER_BYTES - 2  # the trailer is a 2-byte -1
    return np.frombuffer(buffer, dtype=_ROW_DTYPE, count=body // _ROW_DTYPE.itemsize, offset=_HEADER_BYTES)


def load_comparison(comparison: Comparison) -> LoadedComparison:
    arm_ids, arm_labels = zip(*comparison.arms.order_by("position").values_list("id", "label")) or ((), ())
    arm_ids_sorted = np.asarray(sorted(arm_ids), dtype=np.int64)
    code_of_sorted = np.asarray([list(arm_ids).index(i) for i in arm_ids_sorted], dtype=np.int32)
    device_labels: list[str] = []
    profile_labels: list[str] = []
    parts: list[dict[str, np.ndarray]] = []
    base_rows: list[tuple[int, int, int, float, float, float]] = []
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
        rows = _copy_run(comparison.id, run.id)
        if not len(rows):
            continue
        columns = {name: rows[name].astype(kind.replace(">", "<")) for name, _, kind in _COLUMNS}
        columns["arm"] = code_of_sorted[np.searchsorted(arm_ids_sorted, rows["arm"])]
        columns["device"] = np.full(len(rows), d, dtype=np.int32)
        columns["profile"] = np.full(len(rows), p, dtype=np.int32)
        parts.append(columns)
    names = [name for name, _, _ in _COLUMNS] + ["device", "profile"]
    merged = {n: (np.concatenate([part[n] for part in parts]) if parts else np.zeros(0, np.int64)) for n in names}
    for name in _BOOLS:
        merged[name] = merged[name].astype(bool)
    for name in ("arm", "device", "profile", "block", "period", "repetition", "step"):
        merged[name] = merged[name].astype(np.int32)
    table = SampleTable(**merged, arm_labels=tuple(arm_labels), device_labels=tuple(device_labels),
                        profile_labels=tuple(profile_labels))
    b = np.asarray(base_rows, dtype=np.float64).reshape(-1, 6)
    baselines = BlockBaselines(device=b[:, 0].astype(np.int32), profile=b[:, 1].astype(np.int32),
                               block=b[:, 2].astype(np.int32), rtt_avg_us=b[:, 3], rtt_stddev_us=b[:, 4],
                               loss_pct=b[:, 5])
    return LoadedComparison(table=table, baselines=baselines)
