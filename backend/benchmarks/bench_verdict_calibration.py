"""Calibration of the CI gate by simulation: A/A false-positive and equivalence rates, and power.

Simulated comparisons have lognormal request noise, per-device and per-block
effects (shared by both arms of a block) and a small block×arm jitter. At
α = 0.01 the gate's false-positive rate (regression or improvement called
between identical arms) should be ≤ 1 %; with the default 8 blocks on one device
a +20 % slowdown should come out regression in ≥ 90 % of comparisons; and
identical arms should come out equivalent in ≥ 80 % of comparisons of the
calibration design. Prints figures (the table in docs/methodology.md); no pass/fail.
Run: python backend/benchmarks/bench_verdict_calibration.py [--quick]
"""

from __future__ import annotations

import math
import sys
import time

from apps.comparisons.spec import DEFAULT_BLOCKS
from apps.results.analysis import VerdictConfig, compare_arms, simulate_comparisons, synthetic_table
from apps.results.analysis.calibration import simulate_sequential
from apps.results.analysis.sequential import look_points

CALIBRATION = dict(devices=3, blocks=12, requests_per_block=30, request_sigma=0.3, device_sigma=0.2, block_sigma=0.1,
              block_arm_sigma=0.02)
# Arms drift apart within blocks (e.g. thermal throttling hitting one arm's half of a block).
DRIFTY = {**CALIBRATION, "block_arm_sigma": 0.08}
# The default spec's blocks on one device, with the calibration design's 30 requests per arm and
# block; the 6 blocks the default was before (too few at 30 requests, enough at 200: the default
# series workload makes 1,980 per arm and block).
ONE_DEVICE = {**CALIBRATION, "devices": 1, "blocks": DEFAULT_BLOCKS}
ONE_DEVICE_6 = {**ONE_DEVICE, "blocks": 6}
ONE_DEVICE_6_200 = {**ONE_DEVICE_6, "requests_per_block": 200}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(r: float, n: int) -> str:
    lo, hi = wilson(round(r * n), n)
    return f"{r:6.2%} [95% CI {lo:.2%}, {hi:.2%}]"


def main() -> None:
    quick = "--quick" in sys.argv
    n_aa, n_power = (400, 200) if quick else (4000, 1000)
    config = VerdictConfig(alpha=0.01, margin_pct=5.0)
    print(f"calibration design: {CALIBRATION}; alpha {config.alpha}, margin {config.margin_pct} %")

    for name, design, n in (("A/A calibration design (3 devices × 12 blocks × 30 requests)", CALIBRATION, n_aa),
                            ("A/A drifty blocks (block×arm σ 0.08)", DRIFTY, n_aa // 2),
                            (f"A/A default blocks, one device ({DEFAULT_BLOCKS} blocks × 30 requests)", ONE_DEVICE,
                             n_aa),
                            ("A/A 6 blocks, one device (6 blocks × 30 requests)", ONE_DEVICE_6, n_aa)):
        start = time.perf_counter()
        r = simulate_comparisons(true_ratio=1.0, comparisons=n, config=config, seed=1, **design)
        print(f"\n{name}: {n} comparisons in {time.perf_counter() - start:.0f} s; outcomes {r.outcomes}")
        print(f"  gate false-positive rate (regression or improvement): {rate(r.decided_rate, n)} (target ≤ 1 %)")
        print(f"  equivalent: {rate(r.outcomes.get('equivalent', 0) / n, n)}")
        print(f"  block t-test p < α: {rate(r.block_test_rejection_rate, n)} (nominal 1 %)")
        print(f"  request-level Mann-Whitney p < α (ignores blocks): {rate(r.request_test_rejection_rate, n)}")

    print(f"\npower, {n_power} comparisons each (candidate slower by the effect):")
    for label, design, effects in ((f"default {DEFAULT_BLOCKS} blocks, one device, 30 requests/block", ONE_DEVICE,
                                    (0.10, 0.20, 0.50)),
                                   ("6 blocks, one device, 30 requests/block", ONE_DEVICE_6, (0.10, 0.20, 0.50)),
                                   ("6 blocks, one device, 200 requests/block", ONE_DEVICE_6_200,
                                    (0.10, 0.20, 0.50)),
                                   ("calibration design", CALIBRATION, (0.02, 0.05, 0.10, 0.20))):
        print(f"  {label}:")
        for effect in effects:
            start = time.perf_counter()
            r = simulate_comparisons(true_ratio=1 + effect, comparisons=n_power, config=config, seed=2, **design)
            regressions = r.outcomes.get("regression", 0) / n_power
            print(f"    +{effect:.0%}: regression verdict {rate(regressions, n_power)}; block test p < α "
                  f"{r.block_test_rejection_rate:.1%}; outcomes {r.outcomes} ({time.perf_counter() - start:.0f} s)")
    sequential(config, quick)
    series_time(config, quick)
    print("\nA +5 % effect sits exactly on the margin, so the gate is built not to call it a regression"
          " (CI lower bound must exceed 1.05); +2 % should come out equivalent or inconclusive.")


# `blocks: auto` (apps.comparisons.spec.AUTO_BLOCKS) and the wider schedule the engine was first calibrated on.
SCHEDULES = ((6, 24), (6, 40))


def sequential(config: VerdictConfig, quick: bool) -> None:
    """Run until decided, α spent over the looks: A/A false positives, power at +20 % on one
    device, and the mean blocks used at 0 %, +10 %, +20 %, +50 % and 100×."""
    n_aa, n_effect, n_power = (100, 50, 100) if quick else (4000, 300, 1000)
    for low, high in SCHEDULES:
        looks = ", ".join(str(n) for n in look_points(low, high))
        print(f"\nrun until decided (blocks {low} … {high} per device, looks at {looks}):")
        for label, design in (("calibration design devices", CALIBRATION), ("one device", ONE_DEVICE)):
            design = {k: v for k, v in design.items() if k != "blocks"}
            for effect, n in ((1.0, n_aa), (1.1, n_effect), (1.2, n_power), (1.5, n_effect), (100.0, n_effect)):
                start = time.perf_counter()
                r = simulate_sequential(true_ratio=effect, comparisons=n, config=config, seed=3, min_blocks=low,
                                        max_blocks=high, **design)
                what = "A/A false positives" if effect == 1.0 else "regression verdicts"
                share = r.decided_rate if effect == 1.0 else r.outcomes.get("regression", 0) / n
                print(f"  {label}, ×{effect:g}: {what} {rate(share, n)}; mean blocks per device "
                      f"{r.mean_blocks_per_device:.1f}; outcomes {r.outcomes} ({time.perf_counter() - start:.0f} s)")


# The MID series' periods, one series per period, arm and block, on one device with the default blocks.
SERIES = dict(devices=1, blocks=DEFAULT_BLOCKS, periods=list(range(3, 31, 3)), repetitions=1)


def series_time(config: VerdictConfig, quick: bool) -> None:
    """Series time pooled over periods (docs/methodology.md §8.1): A/A false positives and
    equivalence, and power at +10 % and +20 %, on the gate's pooled row."""
    n_aa, n_power = (200, 100) if quick else (4000, 1000)
    print(f"\nseries time, periods 3…30, one device, {DEFAULT_BLOCKS} blocks, one series per period and block:")
    for effect, n, first_seed in ((1.0, n_aa, 1_000), (1.1, n_power, 50_000), (1.2, n_power, 60_000)):
        start = time.perf_counter()
        outcomes: dict[str, int] = {}
        for i in range(n):
            table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": effect}, seed=first_seed + i,
                                       **SERIES)
            (row,) = [c for c in compare_arms(table, baseline_arm="baseline", metrics=("series_ms",), config=config)
                      if c.scope == "pooled"]
            outcomes[row.verdict.outcome] = outcomes.get(row.verdict.outcome, 0) + 1
        decided = outcomes.get("regression", 0) + outcomes.get("improvement", 0)
        what = (f"A/A false positives {rate(decided / n, n)}, equivalent {rate(outcomes.get('equivalent', 0) / n, n)}"
                if effect == 1.0 else f"regression verdicts {rate(outcomes.get('regression', 0) / n, n)}")
        print(f"  ×{effect:g}: {what}; outcomes {outcomes} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
