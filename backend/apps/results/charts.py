"""Shapes the loaded samples into the per-group chart payload of /results (DESIGN §9).
The browser never sees raw samples: it gets per-period aggregates and per-repetition
series times only."""

from typing import Any

import numpy as np

from .loader import ComparisonSamples


def _ms(values: np.ndarray) -> float:
    return round(float(values) / 1000.0, 3)


def series_times(s: ComparisonSamples, mask: np.ndarray) -> dict[tuple[int, int, int, int, int], tuple[int, int]]:
    """(group, arm, period, run, block, repetition) → (series µs, series bytes): the sum of
    the series' request times. A series with any failed request is left out (its errors
    are counted in the request table)."""
    series: dict[tuple, list[int]] = {}
    failed: set[tuple] = set()
    idx = np.flatnonzero(mask & s.measure & (s.period >= 0))
    for i in idx:
        key = (int(s.group[i]), int(s.arm[i]), int(s.period[i]), int(s.run[i]), int(s.block[i]), int(s.repetition[i]))
        if not s.ok[i] or s.total_us[i] < 0:
            failed.add(key)
            continue
        acc = series.setdefault(key, [0, 0])
        acc[0] += int(s.total_us[i])
        acc[1] += int(s.resp_bytes[i])
    return {k: (v[0], v[1]) for k, v in series.items() if k not in failed}


def group_payload(s: ComparisonSamples, group: int, baseline_arm: str) -> dict[str, Any]:
    device, profile = s.group_labels[group]
    in_group = s.group == group
    payload: dict[str, Any] = {"device": device, "network_profile": profile, "periods": [], "arms": {}, "requests": {}}
    times = series_times(s, in_group)
    periods = sorted({key[2] for key in times})
    payload["periods"] = periods
    per_arm_time: dict[int, list[float | None]] = {}
    for a, label in enumerate(s.arm_labels):
        avg, med, thr, n, reps = [], [], [], [], []
        for p in periods:
            values = [(t, b) for key, (t, b) in times.items() if key[1] == a and key[2] == p]
            if not values:
                avg.append(None), med.append(None), thr.append(None), n.append(0), reps.append([])
                continue
            t = np.asarray([v[0] for v in values], dtype=float)
            b = np.asarray([v[1] for v in values], dtype=float)
            avg.append(_ms(t.mean()))
            med.append(_ms(np.median(t)))
            thr.append(round(float(b.sum() / (t.sum() / 1e6)), 1) if t.sum() > 0 else None)
            n.append(int(t.size))
            reps.append([_ms(x) for x in t])
        per_arm_time[a] = avg
        payload["arms"][label] = {"avg_ms": avg, "median_ms": med, "throughput_bps": thr, "n": n, "series_ms": reps}
    base = s.arm_labels.index(baseline_arm) if baseline_arm in s.arm_labels else 0
    for a, label in enumerate(s.arm_labels):
        gains: list[float | None] = []
        for i in range(len(periods)):
            arm_t, base_t = per_arm_time[a][i], per_arm_time[base][i]
            gains.append(None if a == base or not arm_t or not base_t else round((base_t / arm_t - 1) * 100, 2))
        payload["arms"][label]["gain_pct"] = gains
    for a, label in enumerate(s.arm_labels):
        sel = in_group & s.measure & (s.arm == a)
        good = s.total_us[sel & s.ok]
        payload["requests"][label] = {
            "n": int(sel.sum()),
            "errors": int((sel & ~s.ok).sum()),
            "median_ms": _ms(np.median(good)) if good.size else None,
            "p90_ms": _ms(np.percentile(good, 90)) if good.size else None,
            "p95_ms": _ms(np.percentile(good, 95)) if good.size else None,
        }
    return payload
