"""Delay sweep (seeds/002) and payload sweep (seeds/004)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .grouping import group_by, sorted_quantiles
from .stalls import StallRule, series_stalls
from .table import BlockBaselines, SampleTable

SLOW_BAND_RTT_MULTIPLE = 2.0


def delay_sweep(table: SampleTable) -> list[dict]:
    """Per profile × device × arm × known server delay: measured − known delay.

    What remains after subtracting the injected delay is what the client, OS
    and network add; its sawtooth over the delay steps is the point of the chart.
    """
    rows = np.flatnonzero(table.measured_ok & (table.server_delay_us >= 0))
    added = (table.total_us[rows] - table.server_delay_us[rows]).astype(np.float64) / 1000.0
    groups = group_by(
        [table.profile[rows], table.device[rows], table.arm[rows], table.server_delay_us[rows]], added)
    x = added[groups.order]
    medians = sorted_quantiles(x, groups.starts, groups.counts, 0.5)
    p90 = sorted_quantiles(x, groups.starts, groups.counts, 0.9)
    means = groups.sums(added) / groups.counts if len(groups) else np.zeros(0)
    out = []
    for g in range(len(groups)):
        profile, device, arm, delay_us = (int(k[g]) for k in groups.keys)
        out.append({
            "profile": table.profile_labels[profile],
            "device": table.device_labels[device],
            "arm": table.arm_labels[arm],
            "known_delay_ms": delay_us / 1000.0,
            "n": int(groups.counts[g]),
            "added_median_ms": float(medians[g]),
            "added_mean_ms": float(means[g]),
            "added_p90_ms": float(p90[g]),
            "measured_median_ms": float(medians[g] + delay_us / 1000.0),
        })
    return out


def payload_sweep(
    table: SampleTable,
    baselines: BlockBaselines | None,
    *,
    link_rates: Mapping[tuple[str, str], float] | None = None,
    stall_rule: StallRule = StallRule(),
    slow_multiple: float = SLOW_BAND_RTT_MULTIPLE,
) -> list[dict]:
    """Per profile × device × arm × response size: latency ÷ the block's baseline RTT, and
    whether the band stalls (stalls.py).

    ``stall`` flags bands slower than the network explains (``expected_ms``, from the
    RTT, handshakes, slow start and the rate; ``stall_reasons`` says which test fired).
    ``link_rates``: the link's measured downstream rate (kbit/s) per (device, profile)
    label, where the run measured one: the model's rate when the sweep shows none.
    ``slow`` is the older rule, kept with its meaning (median above ``slow_multiple`` × RTT):
    on a fast path every size has it, so it is no stall verdict. ``slower_than_next_size`` flags a band slower than the
    next larger one.
    """
    selected = table.measured_ok & (table.resp_bytes > 0)
    rows = np.flatnonzero(selected)
    if baselines is not None and len(baselines.device):
        rtt = baselines.rtt_for(table.device[rows], table.profile[rows], table.block[rows])
    else:
        rtt = np.full(len(rows), np.nan)
    total_us = table.total_us[rows]
    ratio = total_us / rtt
    keys = [table.profile[rows], table.device[rows], table.arm[rows], table.resp_bytes[rows]]
    by_latency = group_by(keys, total_us)
    starts, counts = by_latency.starts, by_latency.counts
    median_latency = sorted_quantiles(total_us[by_latency.order], starts, counts, 0.5) / 1000.0
    # Rows without a baseline (NaN) are excluded from the ratio.
    grouped_ratio = ratio[by_latency.order]
    finite = np.isfinite(grouped_ratio)
    with_rtt = np.add.reduceat(finite.astype(np.int64), starts) if len(by_latency) else np.zeros(0, np.int64)
    safe_counts = np.maximum(with_rtt, 1)
    median_ratio = np.where(with_rtt > 0, _group_medians(grouped_ratio, finite, starts, counts, safe_counts), np.nan)
    mean_rtt_ms = by_latency.sums(np.where(np.isfinite(rtt), rtt, 0.0)) / safe_counts / 1000.0
    fresh_share = by_latency.sums(table.first_on_connection[rows]) / np.maximum(by_latency.counts, 1)

    out: list[dict[str, Any]] = []
    for g in range(len(by_latency)):
        profile, device, arm, size = (int(k[g]) for k in by_latency.keys)
        r = median_ratio[g]
        out.append({
            "profile": table.profile_labels[profile],
            "device": table.device_labels[device],
            "arm": table.arm_labels[arm],
            "resp_bytes": size,
            "n": int(by_latency.counts[g]),
            "median_ms": float(median_latency[g]),
            "median_rtt_multiple": None if np.isnan(r) else float(r),
            "baseline_rtt_ms": None if np.isnan(r) else float(mean_rtt_ms[g]),
            "slow": bool(r > slow_multiple) if not np.isnan(r) else None,
        })
    for i, row in enumerate(out):
        nxt = out[i + 1] if i + 1 < len(out) else None
        same_series = nxt is not None and all(nxt[k] == row[k] for k in ("profile", "device", "arm"))
        row["slower_than_next_size"] = bool(
            same_series and nxt is not None and float(row["median_ms"]) > float(nxt["median_ms"]))
    _judge_stalls(out, median_latency, by_latency.counts, fresh_share,
                  np.where(with_rtt > 0, mean_rtt_ms, np.nan), link_rates or {}, stall_rule)
    return out


def _judge_stalls(out: list[dict[str, Any]], median_ms: np.ndarray, counts: np.ndarray, fresh_share: np.ndarray,
                  rtt_ms: np.ndarray, link_rates: Mapping[tuple[str, str], float], rule: StallRule) -> None:
    """Add the stall detector's fields to each row, one series (profile × device × arm,
    rows adjacent and ascending by size) at a time."""
    start = 0
    while start < len(out):
        first = out[start]
        end = start + 1
        while end < len(out) and all(out[end][k] == first[k] for k in ("profile", "device", "arm")):
            end += 1
        part = slice(start, end)
        judged = series_stalls(
            np.array([row["resp_bytes"] for row in out[part]]), median_ms[part], counts[part], fresh_share[part],
            rtt_ms[part], link_rate_kbit=link_rates.get((first["device"], first["profile"])), rule=rule)
        for i, row in enumerate(out[part]):
            expected = judged.expected_ms[i]
            known = judged.stall[i] is not None and np.isfinite(expected)
            row.update({
                "expected_ms": float(expected) if known else None,
                "excess_ms": float(row["median_ms"] - expected) if known else None,
                "stall": judged.stall[i],
                "stall_reasons": judged.reasons[i],
                "expected_rate_kbit": judged.rate_kbit if known else None,
                "expected_rate_source": judged.rate_source if known else None,
                "expected_slow_start": bool(judged.slow_start[i]) if known else None,
            })
        start = end


def _group_medians(grouped: np.ndarray, usable: np.ndarray, starts: np.ndarray, counts: np.ndarray,
                   n_usable: np.ndarray) -> np.ndarray:
    """Median (numpy's 'linear' quantile) of the usable values of each group of
    ``grouped``, equal to sorting each group: the two middle order statistics
    come from a partition, linear time, instead of a sort of every value."""
    pos = 0.5 * (n_usable - 1).astype(np.float64)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n_usable - 1)
    a = np.zeros(len(starts))
    b = np.zeros(len(starts))
    for g in range(len(starts)):  # a loop over groups, never over samples
        segment = slice(starts[g], starts[g] + counts[g])
        values = grouped[segment][usable[segment]]
        if not len(values):
            continue
        kth = np.unique([lo[g], hi[g]])
        part = np.partition(values, kth)
        a[g], b[g] = part[lo[g]], part[hi[g]]
    return a + (pos - lo) * (b - a)
