"""Phase breakdown per arm × device × profile, as its chart draws it: the median of each phase
(DNS, connect, TLS, TTFB, download, as apps.results.storage.derive defines them) over measured,
successful requests, and how many requests had that phase at all (a reused connection
has no DNS/connect/TLS), from the durations the loader already read
(load_comparison(..., phases=True)): five medians per arm × run in numpy cost a few tens
of ms. The medians equal PostgreSQL's percentile_cont over the stored samples (the test
oracle in tests/oracles.py)."""

from typing import Any

import numpy as np

from apps.comparisons.models import Comparison

from ..storage.block_columns import PHASE_NULL
from ..storage.derive import PHASES as PHASE_NAMES
from ..storage.loader import LoadedComparison, run_device_label

PHASES = tuple(f"{name}_ms" for name in PHASE_NAMES)


def phase_breakdown_loaded(comparison: Comparison, loaded: LoadedComparison) -> list[dict[str, Any]]:
    """Rows sorted by device, profile and arm order: arm, device, profile, n, and per phase
    `<phase>_ms` (median, 3 decimals; null when no request had it) and `<phase>_n`."""
    if loaded.phase_us is None or loaded.run is None or loaded.ttfb_null is None:
        raise ValueError("load the comparison with phases=True")
    table = loaded.table
    rows = np.flatnonzero(table.measured_ok)  # phase = 'measure' AND error_class IS NULL
    if len(rows) == 0:
        # Every run failed before storing a sample, or every request failed: no phase to
        # break down (and no group boundaries for the code below to pair up).
        return []
    n_arms = max(len(table.arm_labels), 1)
    key = loaded.run[rows].astype(np.int64) * n_arms + table.arm[rows]
    narrow = key.astype(np.int16) if len(loaded.run_ids) * n_arms < 2**15 else key
    perm = np.argsort(narrow, kind="stable")  # a radix sort on int16
    order, sorted_key = rows[perm], key[perm]
    starts = np.flatnonzero(np.concatenate(([True], sorted_key[1:] != sorted_key[:-1]))) if len(order) else order
    ends = np.append(starts[1:], len(order))
    columns = {
        "dns_ms": (loaded.phase_us["dns"], None),
        "connect_ms": (loaded.phase_us["connect"], None),
        "tls_ms": (loaded.phase_us["tls"], None),
        "ttfb_ms": (table.ttfb_us, loaded.ttfb_null),
        "download_ms": (loaded.phase_us["download"], None),
    }
    arms = dict(comparison.arms.values_list("id", "label"))
    arm_id_of_label = {label: arm_id for arm_id, label in arms.items()}
    runs = {run.id: run for run in comparison.runs.select_related("device")}
    out = []
    for start, end in zip(starts, ends, strict=True):
        group = order[start:end]
        code = int(sorted_key[start])
        run = runs[loaded.run_ids[code // n_arms]]
        label = table.arm_labels[code % n_arms]
        entry: dict[str, Any] = {"arm": arms[arm_id_of_label[label]], "device": run_device_label(run),
                                 "profile": run.network_profile, "n": len(group)}
        for phase in PHASES:
            values, null = columns[phase]
            picked = values[group]
            picked = picked[~null[group]] if null is not None else picked[picked != PHASE_NULL]
            entry[phase] = round(_median_ms(picked), 3) if len(picked) else None
            entry[f"{phase[:-3]}_n"] = len(picked)
        out.append(entry)
    out.sort(key=lambda e: (e["device"], e["profile"], list(arms.values()).index(e["arm"])))
    return out


def _median_ms(values_us: np.ndarray) -> float:
    """percentile_cont(0.5) over value / 1000.0 exactly as PostgreSQL computes it: each
    middle value is converted to float8 in ms, then lo + (hi − lo) × 0.5 (its lerp)."""
    n = len(values_us)
    half = (n - 1) // 2
    if n % 2:
        return float(np.partition(values_us, half)[half]) / 1000.0
    part = np.partition(values_us, (half, half + 1))
    lo, hi = int(part[half]) / 1000.0, int(part[half + 1]) / 1000.0
    return lo + (hi - lo) * 0.5
