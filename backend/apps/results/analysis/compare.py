"""Each arm against the baseline arm, per metric × device class × profile.

The unit of inference is the block: arms are interleaved within a block on one
device and link, so a block's log-ratio of the arms' trimmed geometric means is a
paired observation; the test, the ratio and its CIs all come from those per-block
effects (docs/methodology.md, "Why a t-test on blocks"). Holm's correction runs per candidate arm and metric over every
device class × profile it is compared on: the gate asks one question per candidate
on its metric ("is it worse anywhere?"), and its answer must not depend on which
other metrics are analysed beside it (docs/methodology.md, "One Holm family").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from .effects import cliffs_delta_from_u, cliffs_label, cohens_d_log, cohens_label, percentage_gain, speedup
from .grouping import group_by, sorted_quantiles
from .significance import block_effect_estimate, holm_adjust, mann_whitney
from .table import METRIC_COLUMNS, SampleTable
from .verdict import IMPROVEMENT, INCONCLUSIVE, REGRESSION, Verdict, VerdictConfig, decide, summary_line

POOLED_SCOPE = "pooled"


@dataclass(frozen=True)
class ArmComparison:
    arm: str
    baseline_arm: str
    metric: str
    device_class: str
    profile: str
    devices: int
    blocks: int  # paired blocks (both arms measured) over all devices
    blocks_per_device: float
    n_candidate: int
    n_baseline: int
    median_candidate_ms: float
    median_baseline_ms: float
    ratio: float  # median candidate / median baseline; < 1 is faster
    ratio_ci95: tuple[float, float]
    ratio_ci90: tuple[float, float]
    change_pct: float  # (ratio − 1) × 100
    change_ci95_pct: tuple[float, float]
    gain_pct: float  # (baseline / candidate − 1) × 100, seeds/000's "percentage gain"
    speedup: float
    p_blocks: float  # t-test on per-block log-ratios of trimmed geometric means
    p_blocks_holm: float
    p_requests_mann_whitney: float  # secondary: treats requests as independent
    cliffs_delta: float
    cliffs_label: str
    cohens_d_log: float
    cohens_label: str
    verdict: Verdict
    summary: str
    scope: str = POOLED_SCOPE  # "pooled": the device class's headline; "device": one device beneath it
    device: str | None = None  # the device of a "device" row
    devices_disagree: bool = False  # pooled row: one device regresses and another improves

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _UnitStats:
    key: tuple[str, int, int, int, int]  # scope, metric index, class or device, profile, candidate arm
    fields: dict


POOLED, DEVICE = POOLED_SCOPE, "device"


def compare_arms(
    table: SampleTable,
    *,
    baseline_arm: str,
    metrics: Sequence[str] = ("total_ms",),
    config: VerdictConfig | None = None,
) -> list[ArmComparison]:
    """Pooled rows, one per device class (the devices sharing a platform and model), and, for a
    class of several devices, one row per device beneath it. A pooled row whose devices
    disagree in direction (one regresses, another improves) is inconclusive and says so: a
    mean over devices would average the disagreement away."""
    config = config or VerdictConfig()
    if baseline_arm not in table.arm_labels:
        raise ValueError(f"baseline arm {baseline_arm!r} is not one of {list(table.arm_labels)}")
    base_code = table.arm_labels.index(baseline_arm)
    class_of_device, class_labels = table.device_class_codes()
    devices_in_class = np.bincount(class_of_device, minlength=len(class_labels))
    units = _units(table, metrics, base_code, baseline_arm, config, POOLED, class_of_device, class_labels,
                   class_labels)
    shared = devices_in_class[class_of_device] > 1
    if shared.any():
        units += _units(table, metrics, base_code, baseline_arm, config, DEVICE,
                        np.where(shared, np.arange(len(class_of_device)), -1), table.device_labels,
                        tuple(class_labels[c] for c in class_of_device))

    out: list[ArmComparison] = []
    # Holm families: one arm on one metric over every class × profile (pooled rows), and
    # apart over every device × profile (the rows beneath, which do not gate).
    for scope, metric_index, arm in sorted({(u.key[0], u.key[1], u.key[4]) for u in units}):
        family = [u for u in units if (u.key[0], u.key[1], u.key[4]) == (scope, metric_index, arm)]
        adjusted = holm_adjust(np.array([u.fields["p_blocks"] for u in family]))
        for unit, p_adj in zip(family, adjusted, strict=True):
            out.append(_finish(unit.fields, float(p_adj), len(family), config))
    out = _flag_disagreement(out)
    out.sort(key=lambda c: (c.arm, c.metric, c.device_class, c.profile, c.scope != POOLED, c.device or ""))
    return out


def _units(table: SampleTable, metrics: Sequence[str], base_code: int, baseline_arm: str, config: VerdictConfig,
           scope: str, unit_of_device: np.ndarray, unit_labels: Sequence[str],
           class_of_unit: Sequence[str]) -> list[_UnitStats]:
    """Arm comparisons per (unit, profile, arm), a unit being a device class (pooled) or one
    device; devices whose unit is −1 are left out."""
    # (device, block) cell key of every row; _dense_cells numbers each unit's cells densely.
    n_blocks = int(table.block.max(initial=0)) + 1
    cell_keys = table.device.astype(np.int64) * n_blocks + table.block
    units: list[_UnitStats] = []
    for metric_index, metric in enumerate(metrics):
        values, usable = table.metric_values(metric)
        usable = usable & (unit_of_device[table.device] >= 0)
        rows = np.flatnonzero(usable)
        unit = unit_of_device[table.device[rows]]
        # Sorted by value within each (unit, profile, arm): every arm is sorted once.
        groups = group_by([unit, table.profile[rows], table.arm[rows]],
                          value_order=table.sorted_positions(METRIC_COLUMNS[metric], usable))
        # One gather per metric: each arm is then a contiguous slice, sorted by value, with the
        # (device, block) cell key of each value.
        sorted_rows = rows[groups.order]
        sorted_values = values[sorted_rows]
        sorted_cell_keys = cell_keys[sorted_rows]
        starts, ends = groups.starts, groups.starts + groups.counts
        slices = {
            tuple(int(k[g]) for k in groups.keys): slice(int(starts[g]), int(ends[g])) for g in range(len(groups))
        }
        for (u, profile, arm), cand_slice in slices.items():
            base_slice = slices.get((u, profile, base_code))
            if arm == base_code or base_slice is None:
                continue
            fields = _compare_unit(sorted_values[cand_slice], sorted_cell_keys[cand_slice], sorted_values[base_slice],
                                   sorted_cell_keys[base_slice], n_blocks, config)
            if fields is None:
                continue
            fields.update(arm=table.arm_labels[arm], baseline_arm=baseline_arm, metric=metric,
                          device_class=class_of_unit[u], profile=table.profile_labels[profile], scope=scope,
                          device=unit_labels[u] if scope == DEVICE else None, devices_disagree=False)
            units.append(_UnitStats((scope, metric_index, u, profile, arm), fields))
    return units


def _flag_disagreement(rows: list[ArmComparison]) -> list[ArmComparison]:
    beneath: dict[tuple[str, str, str, str], list[ArmComparison]] = {}
    for r in rows:
        if r.scope == DEVICE:
            beneath.setdefault((r.arm, r.metric, r.device_class, r.profile), []).append(r)
    out = []
    for r in rows:
        devices = beneath.get((r.arm, r.metric, r.device_class, r.profile), []) if r.scope == POOLED else []
        worse = [d.device for d in devices if d.verdict.outcome == REGRESSION]
        better = [d.device for d in devices if d.verdict.outcome == IMPROVEMENT]
        if worse and better:
            reason = (f"devices disagree: {', '.join(map(str, worse))} regress, {', '.join(map(str, better))} "
                      "improve; the pooled estimate would average that away")
            r = replace(r, devices_disagree=True,
                        verdict=replace(r.verdict, outcome=INCONCLUSIVE, reason=reason, blocks_needed_per_device=None,
                                        additional_blocks_per_device=None, blocks_by_outcome=None))
        out.append(r)
    return out


def _compare_unit(cand: np.ndarray, cand_key: np.ndarray, base: np.ndarray, base_key: np.ndarray, n_blocks: int,
                  config: VerdictConfig) -> dict | None:
    # Each arm arrives sorted (see compare_arms); medians, cell statistics and U all read the
    # sorted arrays. Values stay in µs (integers sort fastest).
    cand_cell, base_cell, cell_device = _dense_cells(cand_key, base_key, n_blocks)
    n_cells = len(cell_device)
    # The per-block effect: the difference of 10 %-trimmed means of log latency between the
    # arms of one block. For a multiplicative change it is the log-ratio of medians, with about
    # 1.5× the efficiency of a difference of medians and a trim against stray timeouts.
    effects = _cell_trimmed_log_means(cand, cand_cell, n_cells) - _cell_trimmed_log_means(base, base_cell, n_cells)
    paired = np.isfinite(effects)  # a block with only one arm has no pair
    blocks = int(paired.sum())
    if blocks == 0:
        return None
    devices = int(len(np.unique(cell_device[paired])))
    estimate = block_effect_estimate(effects[paired])
    ratio = estimate.ratio
    ci95, ci90 = estimate.ratio_ci(0.95), estimate.ratio_ci(0.90)
    med_c = float(sorted_quantiles(cand, np.zeros(1, np.int64), np.array([len(cand)]), 0.5)[0]) / 1000.0
    med_b = float(sorted_quantiles(base, np.zeros(1, np.int64), np.array([len(base)]), 0.5)[0]) / 1000.0
    u, p_mw = mann_whitney(cand, base)
    delta = cliffs_delta_from_u(u, len(cand), len(base))
    d = cohens_d_log(cand, base)  # scale-free: µs or ms give the same d
    return {
        "devices": devices,
        "blocks": blocks,
        "blocks_per_device": blocks / devices,
        "n_candidate": len(cand),
        "n_baseline": len(base),
        "median_candidate_ms": med_c,
        "median_baseline_ms": med_b,
        "ratio": ratio,
        "ratio_ci95": ci95,
        "ratio_ci90": ci90,
        "change_pct": (ratio - 1) * 100,
        "change_ci95_pct": ((ci95[0] - 1) * 100, (ci95[1] - 1) * 100),
        "gain_pct": percentage_gain(med_b, med_c),
        "speedup": speedup(med_b, med_c),
        "p_blocks": estimate.p,
        # Not part of ArmComparison: _finish hands them to the "blocks needed" estimate.
        "block_effect_mean": estimate.mean,
        "block_effect_sd": estimate.sd,
        "p_requests_mann_whitney": p_mw,
        "cliffs_delta": delta,
        "cliffs_label": cliffs_label(delta),
        "cohens_d_log": d,
        "cohens_label": cohens_label(d),
    }


def _dense_cells(cand_key: np.ndarray, base_key: np.ndarray, n_blocks: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense (device, block) cell of each value of both arms (keys are device * n_blocks + block),
    in (device, block) order, and each cell's device."""
    present = np.zeros(int(max(cand_key.max(), base_key.max())) + 1, dtype=bool)
    present[cand_key] = True
    present[base_key] = True
    dense = np.cumsum(present) - 1
    cell_device = np.flatnonzero(present) // n_blocks
    return dense[cand_key], dense[base_key], cell_device


def _cell_trimmed_log_means(sorted_values: np.ndarray, cell: np.ndarray, n_cells: int,
                            trim: float = 0.1) -> np.ndarray:
    """Mean of log value per cell after dropping ``trim`` of each cell's values at each end.
    A stable sort by cell keeps each cell's values sorted, so trimming is by position."""
    means = np.full(n_cells, np.nan)
    order = np.argsort(cell.astype(np.int16) if n_cells < 2**15 else cell, kind="stable")
    sorted_cells = cell[order]
    logs = np.log(np.maximum(sorted_values[order].astype(np.float64), 1e-9))
    starts = np.flatnonzero(np.concatenate(([True], sorted_cells[1:] != sorted_cells[:-1])))
    if len(starts):
        counts = np.diff(np.append(starts, len(order)))
        cut = np.floor(trim * counts).astype(np.int64)
        cumulative = np.concatenate(([0.0], np.cumsum(logs)))
        lo, hi = starts + cut, starts + counts - cut
        means[sorted_cells[starts]] = (cumulative[hi] - cumulative[lo]) / (hi - lo)
    return means


def _finish(fields: dict, p_adjusted: float, family_size: int, config: VerdictConfig) -> ArmComparison:
    block_mean, block_sd = fields.pop("block_effect_mean"), fields.pop("block_effect_sd")
    verdict = decide(
        ratio=fields["ratio"], ci95=fields["ratio_ci95"], ci90=fields["ratio_ci90"], p_adjusted=p_adjusted,
        cliffs_delta=fields["cliffs_delta"], baseline_median_ms=fields["median_baseline_ms"],
        blocks=fields["blocks"], devices=fields["devices"], family_size=family_size, config=config,
        block_effect=(block_mean, block_sd))
    summary = summary_line(
        arm=fields["arm"], baseline_arm=fields["baseline_arm"], metric=fields["metric"],
        device_class=fields["device"] or fields["device_class"], profile=fields["profile"], ratio=fields["ratio"],
        ci95=fields["ratio_ci95"], cliffs_delta=fields["cliffs_delta"], p=p_adjusted,
        blocks_per_device=fields["blocks_per_device"], devices=fields["devices"])
    return ArmComparison(**fields, p_blocks_holm=p_adjusted, verdict=verdict, summary=summary)
