"""Calibration of the CI gate by simulation: A/A false-positive rate and power.

Simulated comparisons have lognormal request noise, per-device and per-block
effects (shared by both arms of a block) and a small block×arm jitter. At
α = 0.01 the gate's false-positive rate (regression or improvement called
between identical arms) should be ≤ 1.5 %. Prints figures; no pass/fail.
Run from backend/: ../.venv/bin/python benchmarks/bench_verdict_calibration.py [--quick]
"""

from __future__ import annotations

import math
import sys
import time

from apps.results.analysis import VerdictConfig, simulate_comparisons

DESIGN = dict(devices=3, blocks=12, requests_per_block=30, request_sigma=0.3, device_sigma=0.2, block_sigma=0.1,
              block_arm_sigma=0.02)
# Arms drift apart within blocks (e.g. thermal throttling hitting one arm's half of a block).
DRIFTY = {**DESIGN, "block_arm_sigma": 0.08}


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
    n_aa, n_power = (200, 100) if quick else (1000, 400)
    config = VerdictConfig(alpha=0.01, margin_pct=5.0)
    print(f"design: {DESIGN}; alpha {config.alpha}, margin {config.margin_pct} %, {config.n_boot} bootstrap replicates")

    for name, design, n in (("A/A typical", DESIGN, n_aa), ("A/A drifty blocks", DRIFTY, n_aa // 2)):
        start = time.perf_counter()
        r = simulate_comparisons(true_ratio=1.0, comparisons=n, config=config, seed=1, **design)
        print(f"\n{name}: {n} comparisons in {time.perf_counter() - start:.0f} s; outcomes {r.outcomes}")
        print(f"  gate false-positive rate (regression or improvement): {rate(r.decided_rate, n)} (target ≤ 1.5 %)")
        print(f"  block log-ratio Wilcoxon p < α: {rate(r.block_test_rejection_rate, n)} (nominal 1 %)")
        print(f"  request-level Mann-Whitney p < α (ignores blocks): {rate(r.request_test_rejection_rate, n)}")

    print(f"\npower, {n_power} comparisons each (candidate slower by the effect):")
    for effect in (0.02, 0.05, 0.20):
        start = time.perf_counter()
        r = simulate_comparisons(true_ratio=1 + effect, comparisons=n_power, config=config, seed=2, **DESIGN)
        regressions = r.outcomes.get("regression", 0) / n_power
        print(f"  +{effect:.0%}: regression verdict {rate(regressions, n_power)}; block test p < α "
              f"{r.block_test_rejection_rate:.1%}; outcomes {r.outcomes} ({time.perf_counter() - start:.0f} s)")
    print("\nA +5 % effect sits exactly on the margin, so the gate is built not to call it a regression"
          " (CI lower bound must exceed 1.05); +2 % should come out equivalent or inconclusive.")


if __name__ == "__main__":
    main()
