"""A/A calibration: how often the gate calls a difference between identical arms.

An A/A comparison runs the same thing as both arms; any regression or
improvement verdict is a false positive. The same simulator with a true
effect gives the power of the gate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .compare import compare_arms
from .synthetic import synthetic_table
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
