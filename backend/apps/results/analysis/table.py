"""Columnar input of the statistics engine.

Samples arrive as parallel numpy arrays (one row per request) rather than
objects: a million rows must fit in tens of MB and be grouped with
lexsort/reduceat, never with a Python loop over samples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .grouping import stable_value_order

# Metric name -> column of SampleTable; outputs are reported in milliseconds.
METRIC_COLUMNS = {"total_ms": "total_us", "ttfb_ms": "ttfb_us"}

_INT_COLUMNS = ("arm", "device", "profile", "block", "period", "repetition", "step")
_BOOL_COLUMNS = ("phase_measure", "ok", "first_on_connection")
_MICROS_COLUMNS = ("total_us", "ttfb_us", "resp_bytes", "server_delay_us", "start_us", "issued_us")


@dataclass(frozen=True, eq=False)
class SampleTable:
    """One row per request.

    Codes index the label tuples (arm 2 -> arm_labels[2]). ``period``,
    ``repetition`` and ``server_delay_us`` are -1 when the workload has none;
    ``ttfb_us`` is -1 when no first byte arrived. ``start_us`` is when the
    request was issued (epoch µs, the sample's wall_time; -1 when unknown) and
    ``issued_us`` the same instant on the harness's monotonic clock (µs since
    its block began, the sample's issued_mono_us; -1 when the harness sent
    none): a concurrent series' time is its span, on the monotonic clock where
    every request of the series has it. ``device_classes`` gives
    each device code the class verdicts are pooled over (e.g. "Pixel 8");
    by default every device is its own class.
    """

    arm: np.ndarray
    device: np.ndarray
    profile: np.ndarray
    block: np.ndarray
    period: np.ndarray
    repetition: np.ndarray
    step: np.ndarray
    phase_measure: np.ndarray
    ok: np.ndarray
    total_us: np.ndarray
    ttfb_us: np.ndarray
    resp_bytes: np.ndarray
    server_delay_us: np.ndarray
    first_on_connection: np.ndarray
    arm_labels: tuple[str, ...]
    device_labels: tuple[str, ...]
    profile_labels: tuple[str, ...]
    device_classes: tuple[str, ...] = field(default=())
    start_us: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    issued_us: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # How the workload issued its requests ("sequential", "parallel 4", "all"): a concurrent
    # series is timed first request issued → last response completed (series.py).
    concurrency: str = "sequential"

    def __post_init__(self) -> None:
        n = len(self.arm)
        for name in ("start_us", "issued_us"):
            if n and not len(getattr(self, name)):  # not given: unknown for every row
                object.__setattr__(self, name, np.full(n, -1, dtype=np.int64))
        for name in _INT_COLUMNS + _BOOL_COLUMNS + _MICROS_COLUMNS:
            column = getattr(self, name)
            if not isinstance(column, np.ndarray) or column.ndim != 1 or len(column) != n:
                raise ValueError(f"column {name!r} must be a 1-D array of length {n}")
        for name in _BOOL_COLUMNS:
            if getattr(self, name).dtype != np.bool_:
                raise ValueError(f"column {name!r} must be boolean")
        for name in _INT_COLUMNS + _MICROS_COLUMNS:
            if not np.issubdtype(getattr(self, name).dtype, np.integer):
                raise ValueError(f"column {name!r} must be integer")
        if not self.device_classes:
            object.__setattr__(self, "device_classes", tuple(self.device_labels))
        if len(self.device_classes) != len(self.device_labels):
            raise ValueError("device_classes must give one class per device label")
        for codes, labels, name in (
            (self.arm, self.arm_labels, "arm"),
            (self.device, self.device_labels, "device"),
            (self.profile, self.profile_labels, "profile"),
        ):
            if n and (codes.min() < 0 or codes.max() >= len(labels)):
                raise ValueError(f"{name} codes must index {name}_labels")

    def __len__(self) -> int:
        return len(self.arm)

    @property
    def measured_ok(self) -> np.ndarray:
        """Rows that enter latency statistics: measure phase, no error."""
        return self.phase_measure & self.ok

    def metric_values(self, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(values in µs, mask of rows where the metric is usable)."""
        try:
            values = getattr(self, METRIC_COLUMNS[metric])
        except KeyError:
            raise ValueError(f"unknown metric {metric!r}; expected one of {sorted(METRIC_COLUMNS)}") from None
        return values, self.measured_ok & (values >= 0)

    def value_order(self, column: str) -> np.ndarray:
        """Stable argsort of a column over all rows, computed once per table.

        Several aggregates sort the same metric within different groupings; each
        reuses this order and pays only a radix pass over its group keys. The
        columns are treated as immutable (the engine never writes to them).
        """
        cache: dict[str, np.ndarray] = self.__dict__.setdefault("_value_orders", {})
        if column not in cache:
            cache[column] = stable_value_order(getattr(self, column))
        return cache[column]

    def sorted_positions(self, column: str, rows: np.ndarray) -> np.ndarray:
        """Positions into ``flatnonzero(rows)`` (a boolean mask) in stable order of the column's values.

        The last few masks asked for are remembered: describe, compare and
        first-vs-rest select the same usable rows of a metric.
        """
        recent: list[tuple[str, np.ndarray, np.ndarray]] = self.__dict__.setdefault("_sorted_positions", [])
        for cached_column, cached_rows, positions in recent:
            if cached_column == column and np.array_equal(cached_rows, rows):
                return positions
        order = self.value_order(column)
        picked = order[rows[order]]
        position = np.cumsum(rows, dtype=np.int64) - 1
        positions = position[picked]
        recent.append((column, rows.copy(), positions))
        del recent[:-4]
        return positions

    def device_class_codes(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Per-device class code and the class labels (first-seen order)."""
        class_labels = tuple(dict.fromkeys(self.device_classes))
        index = {label: i for i, label in enumerate(class_labels)}
        return np.array([index[c] for c in self.device_classes], dtype=np.int64), class_labels

    @classmethod
    def from_columns(cls, **columns: Any) -> SampleTable:
        """Build from lists or arrays, filling optional columns with their 'none' value."""
        n = len(columns["arm"])
        defaults: dict[str, object] = {
            "period": -1, "repetition": -1, "step": 0, "block": 0, "phase_measure": True,
            "ok": True, "ttfb_us": -1, "resp_bytes": 0, "server_delay_us": -1,
            "first_on_connection": False, "start_us": -1, "issued_us": -1,
        }
        arrays: dict[str, Any] = {}
        for name in _INT_COLUMNS + _BOOL_COLUMNS + _MICROS_COLUMNS:
            dtype = np.bool_ if name in _BOOL_COLUMNS else (np.int32 if name in _INT_COLUMNS else np.int64)
            if name in columns:
                arrays[name] = np.asarray(columns[name], dtype=dtype)
            else:
                arrays[name] = np.full(n, defaults[name], dtype=dtype)
        labels: dict[str, Any] = {
            k: tuple(v) for k, v in columns.items() if k.endswith("_labels") or k == "device_classes"
        }
        if "concurrency" in columns:
            labels["concurrency"] = str(columns["concurrency"])
        return cls(**arrays, **labels)


@dataclass(frozen=True, eq=False)
class BlockBaselines:
    """Network baseline measured before each block (ICMP/TCP-connect RTT).

    Keyed by (device, profile, block) because block numbers restart per run.
    """

    device: np.ndarray
    profile: np.ndarray
    block: np.ndarray
    rtt_avg_us: np.ndarray
    rtt_stddev_us: np.ndarray
    loss_pct: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.device)
        for name in ("profile", "block", "rtt_avg_us", "rtt_stddev_us", "loss_pct"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"baseline column {name!r} must have length {n}")

    def rtt_for(self, device: np.ndarray, profile: np.ndarray, block: np.ndarray) -> np.ndarray:
        """Baseline RTT (µs) of each row's block; NaN where no baseline was taken. Where a
        (device, profile, block) has several baselines, the first one's."""
        radix_p = int(max(self.profile.max(initial=0), profile.max(initial=0))) + 1
        radix_b = int(max(self.block.max(initial=0), block.max(initial=0))) + 1
        radix_d = int(max(self.device.max(initial=0), device.max(initial=0))) + 1

        def key(d: np.ndarray, p: np.ndarray, b: np.ndarray) -> np.ndarray:
            return (d.astype(np.int64) * radix_p + p) * radix_b + b

        base_keys = key(self.device, self.profile, self.block)
        keys, first = np.unique(base_keys, return_index=True)
        rtt = np.asarray(self.rtt_avg_us, dtype=np.float64)[first]
        wanted = key(device, profile, block)
        if radix_d * radix_p * radix_b <= max(4 * len(wanted), 1 << 16):
            # Few (device, profile, block) keys: one lookup table, one gather per row.
            table = np.full(radix_d * radix_p * radix_b, np.nan)
            table[keys] = rtt
            return table[wanted]
        out = np.full(len(wanted), np.nan)
        if len(keys):
            pos = np.clip(np.searchsorted(keys, wanted), 0, len(keys) - 1)
            found = keys[pos] == wanted
            out[found] = rtt[pos[found]]
        return out
