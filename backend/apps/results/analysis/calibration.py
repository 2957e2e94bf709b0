"""A/A calibration: how often the gate calls a difference between identical arms.

An A/A comparison runs the same thing as both arms; any regression or
improvement verdict is a false positive. The same simulator with a true
effect gives the power of the gate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields, replace

import numpy as np

from .compare import compare_arms
from .sequential import look_points, run_until_decided
from .synthetic import synthetic_table
from .table import SampleTable
from .verdict import IMPROVEMENT, REGRESSION, VerdictConfig


@dataclass(frozen=True)
class SimulationResult:
    comparisons: int
    true_ratio: float
    outcomes: dict[str, int]
    decided_rate: float  # regression or improvement: the false-positive rate when true_ratio == 1
    block_test_rejection_rate: float  # t-test on the per-block effects, p < α
    request_test_rejection_rate: float  # Mann-Whitney on requests, p < α (ignores clustering)
    settings: dict = field(default_factory=dict)


def simulate_comparisons(
    *,
    true_ratio: float = 1.0,
    comparisons: int = 1000,
    config: VerdictConfig | None = None,
    seed: int = 0,
    **design: object,
) -> SimulationResult:
    """Run ``comparisons`` independent candidate-vs-baseline comparisons.

    ``design`` is passed to :func:`synthetic_table` (devices, blocks,
    requests_per_block, the noise sigmas ...).
    """
    config = config or VerdictConfig()
    outcomes: Counter[str] = Counter()
    block_rejections = request_rejections = 0
    for i in range(comparisons):
        table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": true_ratio}, seed=seed * 1_000_003 + i,
                                   **design)  # type: ignore[arg-type]
        (result,) = [r for r in compare_arms(table, baseline_arm="baseline", config=config) if r.scope == "pooled"]
        outcomes[result.verdict.outcome] += 1
        block_rejections += result.p_blocks < config.alpha
        request_rejections += result.p_requests_mann_whitney < config.alpha
    decided = outcomes[REGRESSION] + outcomes[IMPROVEMENT]
    return SimulationResult(
        comparisons=comparisons, true_ratio=true_ratio, outcomes=dict(outcomes),
        decided_rate=decided / comparisons,
        block_test_rejection_rate=block_rejections / comparisons,
        request_test_rejection_rate=request_rejections / comparisons,
        settings={"alpha": config.alpha, "margin_pct": config.margin_pct, **design},
    )


def aa_false_positive_rate(*, comparisons: int = 1000, config: VerdictConfig | None = None, seed: int = 0,
                           **design: object) -> SimulationResult:
    """A/A: identical arms; ``decided_rate`` is the gate's false-positive rate."""
    return simulate_comparisons(true_ratio=1.0, comparisons=comparisons, config=config, seed=seed, **design)


@dataclass(frozen=True)
class SequentialSimulation:
    comparisons: int
    true_ratio: float
    outcomes: dict[str, int]
    decided_rate: float  # regression or improvement: the false-positive rate when true_ratio == 1
    mean_blocks_per_device: float
    looks: tuple[int, ...]


def first_blocks(table: SampleTable, blocks: int) -> SampleTable:
    """The table as it stood after each device's first ``blocks`` blocks."""
    keep = table.block < blocks
    return replace(table, **{f.name: getattr(table, f.name)[keep] for f in fields(table)
                             if isinstance(getattr(table, f.name), np.ndarray)})


def simulate_sequential(*, true_ratio: float = 1.0, comparisons: int = 1000, min_blocks: int = 6,
                        max_blocks: int = 40, config: VerdictConfig | None = None, seed: int = 0,
                        **design: object) -> SequentialSimulation:
    """Run-until-decided comparisons: each simulated with ``max_blocks`` blocks per device and
    judged at the looks of :func:`run_until_decided` on its first blocks."""
    config = config or VerdictConfig()
    outcomes: Counter[str] = Counter()
    used = 0
    for i in range(comparisons):
        table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": true_ratio}, blocks=max_blocks,
                                   seed=seed * 1_000_003 + i, **design)  # type: ignore[arg-type]

        def judge(n: int, look_config: VerdictConfig, table: SampleTable = table) -> str:
            rows = compare_arms(first_blocks(table, n), baseline_arm="baseline", config=look_config)
            (pooled,) = [r for r in rows if r.scope == "pooled"]
            return pooled.verdict.outcome

        result = run_until_decided(judge, min_blocks=min_blocks, max_blocks=max_blocks, config=config)
        outcomes[result.outcome] += 1
        used += result.blocks_per_device
    return SequentialSimulation(
        comparisons=comparisons, true_ratio=true_ratio, outcomes=dict(outcomes),
        decided_rate=(outcomes[REGRESSION] + outcomes[IMPROVEMENT]) / comparisons,
        mean_blocks_per_device=used / comparisons, looks=tuple(look_points(min_blocks, max_blocks)))
