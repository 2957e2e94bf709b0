"""Each arm against the baseline arm, per metric × device class × profile.

The unit of inference is the block: arms are interleaved within a block on one
device and link, so a block's log-ratio of the arms' trimmed geometric means is a
paired observation; the test, the ratio and its CIs all come from those per-block
effects (docs/methodology.md, "Why a t-test on blocks"). Holm's correction runs per candidate arm and metric over every
device class × profile it is compared on: the gate asks one question per candidate
on its metric ("is it worse anywhere?"), and its answer must not depend on which
other metrics are analysed beside it (docs/methodology.md, "One Holm family").

Series time (metrics.py) is judged per period and pooled over the periods: a block's
effect is the mean of its periods' effects (each period a stratum, weighted equally), so a
30-request series and a 3-request one are never ranked against each other; the rank
statistics are stratified the same way (docs/methodology.md, "Which metric the gate judges").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields

import numpy as np

from .effects import (
    cliffs_delta_from_u,
    cliffs_label,
    cohens_d_from_logs,
    cohens_d_log_stratified,
    cohens_label,
    percentage_gain,
    speedup,
)
from .grouping import group_by, sorted_quantiles
from .metrics import MetricSource, metric_source
from .significance import block_effect_estimate, holm_adjust, mann_whitney, stratified_mann_whitney
from .table import METRIC_COLUMNS, SampleTable
from .unit_columns import cell_log_means, sorted_arms
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
    scope: str = POOLED_SCOPE  # "pooled": the device class's headline; "device" / "period": beneath it
    device: str | None = None  # the device of a "device" row
    devices_disagree: bool = False  # pooled row: one device regresses and another improves
    period: int | None = None  # the period of a "period" row (series time of that period alone)
    periods_disagree: bool = False  # pooled series-time row: one period regresses and another improves

    def to_dict(self) -> dict:
        """dataclasses.asdict's dict, field for field, without its deep copy of every value
        (the values are immutable: numbers, strings, tuples; the verdict's one dict is copied)."""
        out = {name: getattr(self, name) for name in _FIELDS}
        verdict = {name: getattr(self.verdict, name) for name in _VERDICT_FIELDS}
        if verdict["blocks_by_outcome"] is not None:
            verdict["blocks_by_outcome"] = dict(verdict["blocks_by_outcome"])
        out["verdict"] = verdict
        return out


_FIELDS = tuple(f.name for f in dataclass_fields(ArmComparison))
_VERDICT_FIELDS = tuple(f.name for f in dataclass_fields(Verdict))


@dataclass(frozen=True)
class _UnitStats:
    key: tuple[str, int, int, int, int]  # scope, metric index, class or device, profile, candidate arm
    fields: dict


POOLED, DEVICE, PERIOD = POOLED_SCOPE, "device", "period"
SCOPE_ORDER = {POOLED: 0, DEVICE: 1, PERIOD: 2}


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
    mean over devices would average the disagreement away. Series time also gets one row per
    period beneath each pooled row (its own Holm family; they inform, the pooled row gates)."""
    config = config or VerdictConfig()
    if baseline_arm not in table.arm_labels:
        raise ValueError(f"baseline arm {baseline_arm!r} is not one of {list(table.arm_labels)}")
    base_code = table.arm_labels.index(baseline_arm)
    class_of_device, class_labels = table.device_class_codes()
    devices_in_class = np.bincount(class_of_device, minlength=len(class_labels))
    shared = devices_in_class[class_of_device] > 1
    units: list[_UnitStats] = []
    for metric_index, metric in enumerate(metrics):
        source = metric_source(table, metric)
        common = (source, metric, metric_index, base_code, baseline_arm, config)
        units += _units(*common, POOLED, class_of_device, class_labels, class_labels)
        if shared.any():
            units += _units(*common, DEVICE, np.where(shared, np.arange(len(class_of_device)), -1),
                            table.device_labels, tuple(class_labels[c] for c in class_of_device))
        periods = _periods(source) if source.stratified else []
        for period in periods if len(periods) > 1 else []:
            units += _units(*common, PERIOD, class_of_device, class_labels, class_labels, period=period)

    out: list[ArmComparison] = []
    # Holm families: one arm on one metric over every class × profile (pooled rows), and
    # apart over every device × profile and every class × profile × period (the rows
    # beneath, which do not gate).
    for scope, metric_index, arm in sorted({(u.key[0], u.key[1], u.key[4]) for u in units}):
        family = [u for u in units if (u.key[0], u.key[1], u.key[4]) == (scope, metric_index, arm)]
        adjusted = holm_adjust(np.array([u.fields["p_blocks"] for u in family]))
        for unit, p_adj in zip(family, adjusted, strict=True):
            out.append(_finish(unit.fields, float(p_adj), len(family), config))
    out = _flag_disagreement(out)
    out.sort(key=lambda c: (c.arm, c.metric, c.device_class, c.profile, SCOPE_ORDER[c.scope], c.device or "",
                            -1 if c.period is None else c.period))
    return out


def _periods(source: MetricSource) -> list[int]:
    """The periods with a usable value (a period every series of which failed has none)."""
    _, usable = source.table.metric_values(source.column_metric)
    return [int(p) for p in np.unique(source.table.period[usable]) if p >= 0]


def _units(source: MetricSource, metric: str, metric_index: int, base_code: int, baseline_arm: str,
           config: VerdictConfig, scope: str, unit_of_device: np.ndarray, unit_labels: Sequence[str],
           class_of_unit: Sequence[str], *, period: int | None = None) -> list[_UnitStats]:
    """Arm comparisons per (unit, profile, arm), a unit being a device class (pooled) or one
    device; devices whose unit is −1 are left out. `period`: that period's values alone."""
    table = source.table
    n_blocks = int(table.block.max(initial=0)) + 1
    units: list[_UnitStats] = []
    values, usable = table.metric_values(source.column_metric)
    if (unit_of_device < 0).any():
        usable = usable & (unit_of_device[table.device] >= 0)
    if period is not None:
        usable = usable & (table.period == period)
    rows = np.flatnonzero(usable)
    device = table.device[rows]
    unit = unit_of_device[device]
    # The (device, block) cell key of every row taken.
    cell_keys = device.astype(np.int64) * n_blocks + table.block[rows]
    stratified = source.stratified and period is None
    # Sorted by value within each (unit, profile, arm): every arm is sorted once, with every
    # arm's cell statistics (unit_columns.py), not once per pair of arms (a baseline arm is
    # paired with every candidate).
    arms = None if stratified else sorted_arms(unit, table.profile[rows], table.arm[rows], cell_keys, values[rows])
    strata: np.ndarray | None = None
    n_strata = 1
    keys: tuple[np.ndarray, ...]
    if arms is not None:
        keys, starts, counts, sorted_values, cell_means = arms.keys, arms.starts, arms.counts, arms.values, arms.cells
    else:
        positions = table.sorted_positions(METRIC_COLUMNS[source.column_metric], usable)
        groups = group_by([unit, table.profile[rows], table.arm[rows]], value_order=positions)
        # One gather per metric: each arm is then a contiguous slice, sorted by value, with the
        # (device, block) cell key of each value.
        sorted_rows = rows[groups.order]
        sorted_values = values[sorted_rows]
        sorted_cell_keys = cell_keys[groups.order]
        if stratified:  # series time over its periods: each value's stratum, numbered densely
            strata = np.unique(table.period[sorted_rows], return_inverse=True)[1].astype(np.int64)
            n_strata = int(strata.max(initial=0)) + 1
        keys, starts, counts = groups.keys, groups.starts, groups.counts
        cell_means = cell_log_means(sorted_values, sorted_cell_keys if strata is None
                                    else sorted_cell_keys * n_strata + strata, starts, counts)
    ends = starts + counts
    with np.errstate(divide="ignore"):  # a 0 µs value has no log: Cohen's d says so (−inf)
        logs = np.log(sorted_values.astype(np.float64))
    index = {tuple(int(k[g]) for k in keys): g for g in range(len(starts))}

    def arm_of(g: int) -> _Arm:
        part = slice(int(starts[g]), int(ends[g]))
        return _Arm(sorted_values[part], logs[part], cell_means.of_group(g),
                    None if strata is None else strata[part])

    for (u, profile, arm), g in index.items():
        base_group = index.get((u, profile, base_code))
        if arm == base_code or base_group is None:
            continue
        fields = _compare_unit(arm_of(g), arm_of(base_group), n_blocks, n_strata, config)
        if fields is None:
            continue
        fields.update(arm=table.arm_labels[arm], baseline_arm=baseline_arm, metric=metric,
                      device_class=class_of_unit[u], profile=table.profile_labels[profile], scope=scope,
                      device=unit_labels[u] if scope == DEVICE else None, devices_disagree=False, period=period)
        units.append(_UnitStats((scope, metric_index, u, profile, arm), fields))
    return units


def _flag_disagreement(rows: list[ArmComparison]) -> list[ArmComparison]:
    """Devices that disagree make their pooled row inconclusive (the class is the population
    judged, and it does not move one way). Periods that disagree are flagged only: the periods
    are the workload's own design, and their pooled effect is the question the gate asks."""
    beneath: dict[tuple[str, str, str, str, str], list[ArmComparison]] = {}
    for r in rows:
        if r.scope != POOLED:
            beneath.setdefault((r.scope, r.arm, r.metric, r.device_class, r.profile), []).append(r)
    out = []
    for r in rows:
        if r.scope == POOLED:
            r = _periods_flagged(r, beneath.get((PERIOD, r.arm, r.metric, r.device_class, r.profile), []))
            devices = beneath.get((DEVICE, r.arm, r.metric, r.device_class, r.profile), [])
            worse = [d.device for d in devices if d.verdict.outcome == REGRESSION]
            better = [d.device for d in devices if d.verdict.outcome == IMPROVEMENT]
            if worse and better:
                reason = (f"devices disagree: {', '.join(map(str, worse))} regress, "
                          f"{', '.join(map(str, better))} improve; the pooled estimate would average that away")
                r = replace(r, devices_disagree=True,
                            verdict=replace(r.verdict, outcome=INCONCLUSIVE, reason=reason,
                                            blocks_needed_per_device=None, additional_blocks_per_device=None,
                                            blocks_by_outcome=None))
        out.append(r)
    return out


def _periods_flagged(row: ArmComparison, periods: list[ArmComparison]) -> ArmComparison:
    outcomes = {p.verdict.outcome for p in periods}
    return replace(row, periods_disagree=True) if {REGRESSION, IMPROVEMENT} <= outcomes else row


@dataclass(frozen=True)
class _Arm:
    """One arm's values of a unit, sorted; their logs; its cells' keys and trimmed mean logs
    (unit_columns.cell_log_means); when stratified, each value's stratum."""

    values: np.ndarray
    logs: np.ndarray
    cells: tuple[np.ndarray, np.ndarray]
    stratum: np.ndarray | None


def _compare_unit(cand_arm: _Arm, base_arm: _Arm, n_blocks: int, n_strata: int, config: VerdictConfig) -> dict | None:
    # Each arm arrives sorted (see compare_arms); medians and the rank test read the sorted
    # arrays. Values stay in µs (integers sort fastest).
    cand, base = cand_arm.values, base_arm.values
    effects, cell_device = _block_effects(cand_arm.cells, base_arm.cells, n_blocks,
                                          n_strata if cand_arm.stratum is not None else None)
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
    if cand_arm.stratum is None or base_arm.stratum is None:
        u, p_mw = mann_whitney(cand, base, arms_sorted=True)
        delta = cliffs_delta_from_u(u, len(cand), len(base))
        d = cohens_d_from_logs(cand_arm.logs, base_arm.logs)  # scale-free: µs or ms give the same d
    else:
        # Within each stratum only: a long series against a short one says nothing of the arms.
        u, pairs, p_mw = stratified_mann_whitney(cand, cand_arm.stratum, base, base_arm.stratum)
        delta = 2.0 * u / pairs - 1.0 if pairs else float("nan")
        d = cohens_d_log_stratified(cand, cand_arm.stratum, base, base_arm.stratum)
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


def _block_effects(cand_cells: tuple[np.ndarray, np.ndarray], base_cells: tuple[np.ndarray, np.ndarray],
                   n_blocks: int, n_strata: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The per-block effect of every (device, block) cell of either arm (NaN where one arm is
    missing) and each cell's device. The effect is the difference of 10 %-trimmed means of log
    latency between the arms of one block (each arm's cells: unit_columns.cell_log_means): for
    a multiplicative change the log-ratio of medians, with about 1.5× the efficiency of a
    difference of medians and a trim against stray timeouts. Stratified (`n_strata`, the cells'
    keys being cell × n_strata + stratum): that difference within each stratum of the block,
    then their mean over the strata where both arms have values (each stratum weighs the same)."""
    (cand_keys, cand_means), (base_keys, base_means) = cand_cells, base_cells
    keys = np.union1d(cand_keys, base_keys)
    cand_at, base_at = np.full(len(keys), np.nan), np.full(len(keys), np.nan)
    cand_at[np.searchsorted(keys, cand_keys)] = cand_means
    base_at[np.searchsorted(keys, base_keys)] = base_means
    effects = cand_at - base_at
    if n_strata is None:
        return effects, keys // n_blocks
    both = np.isfinite(effects)
    block_keys, block_of_cell = np.unique(keys // n_strata, return_inverse=True)
    sums = np.bincount(block_of_cell[both], weights=effects[both], minlength=len(block_keys))
    counts = np.bincount(block_of_cell[both], minlength=len(block_keys))
    with np.errstate(invalid="ignore", divide="ignore"):
        effects = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return effects, block_keys // n_blocks


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
        blocks_per_device=fields["blocks_per_device"], devices=fields["devices"], period=fields["period"],
        margin=verdict.margin, configured_margin=config.margin_pct / 100.0,
        baseline_median_ms=fields["median_baseline_ms"], floor_ms=config.margin_floor_ms)
    return ArmComparison(**fields, p_blocks_holm=p_adjusted, verdict=verdict, summary=summary)
