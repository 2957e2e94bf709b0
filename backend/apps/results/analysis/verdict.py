"""The CI gate's four-outcome verdict and its one-line summary.

regression   95 % CI of the ratio entirely above 1 + m, Holm-adjusted p < α, δ ≥ 0.147
improvement  the mirror: CI entirely below 1 − m, p < α, δ ≤ −0.147
equivalent   90 % CI inside [1 − m, 1 + m] (TOST at 5 % per side)
inconclusive anything else, with an estimate of the blocks that would decide it

m is the relative margin, but never less than the 2 ms floor expressed as a
ratio of the baseline median: a 5 % margin on a 10 ms request (0.5 ms) is
below what a phone's clock and radio can resolve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from latencylab_contract.verdict_numbers import effect_with_ci, margin_pct, p_value, signed

from .distributions import t_ppf_by_df
from .significance import blocks_for_t_test

REGRESSION, IMPROVEMENT, EQUIVALENT, INCONCLUSIVE = "regression", "improvement", "equivalent", "inconclusive"
# Beyond this many times the current blocks, more blocks are not a realistic way to decide.
MAX_BLOCK_GROWTH = 64


@dataclass(frozen=True)
class VerdictConfig:
    margin_pct: float = 5.0
    margin_floor_ms: float = 2.0
    alpha: float = 0.01
    min_abs_cliffs_delta: float = 0.147
    n_boot: int = 2000  # resamples of the descriptive medians' bootstrap CIs
    seed: int = 20240601

    def __post_init__(self) -> None:
        if not 0 < self.margin_pct < 100:
            raise ValueError("margin_pct must be in (0, 100)")
        if not 0 < self.alpha < 1:
            raise ValueError("alpha must be in (0, 1)")
        if self.margin_floor_ms < 0:
            raise ValueError("margin_floor_ms must be >= 0")
        if self.n_boot < 100:
            raise ValueError("n_boot must be >= 100")


@dataclass(frozen=True)
class Verdict:
    outcome: str
    margin: float  # effective relative margin on the ratio (0.05 = 5 %)
    alpha: float
    reason: str
    blocks_needed_per_device: int | None  # for inconclusive: total blocks per device likely to decide
    additional_blocks_per_device: int | None
    # For inconclusive: per outcome, the total blocks per device at which it would be reached if
    # the per-block effects kept their observed mean and spread (None: not at that mean).
    blocks_by_outcome: dict[str, int | None] | None = None


def effective_margin(config: VerdictConfig, baseline_median_ms: float) -> float:
    if baseline_median_ms <= 0:
        return config.margin_pct / 100.0
    return max(config.margin_pct / 100.0, config.margin_floor_ms / baseline_median_ms)


def decide(
    *,
    ratio: float,
    ci95: tuple[float, float],
    ci90: tuple[float, float],
    p_adjusted: float,
    cliffs_delta: float,
    baseline_median_ms: float,
    blocks: int,
    devices: int,
    family_size: int,
    config: VerdictConfig,
    block_effect: tuple[float, float] | None = None,
) -> Verdict:
    """``block_effect`` is the mean and standard deviation of the per-block effects the test
    ran on; with it the "blocks needed" estimate includes the blocks the test needs."""
    m = effective_margin(config, baseline_median_ms)
    significant = p_adjusted < config.alpha
    if ci95[0] > 1 + m and significant and cliffs_delta >= config.min_abs_cliffs_delta:
        reason = f"95 % CI above +{margin_pct(m * 100)}, p < α, δ ≥ {config.min_abs_cliffs_delta}"
        return Verdict(REGRESSION, m, config.alpha, reason, None, None)
    if ci95[1] < 1 - m and significant and cliffs_delta <= -config.min_abs_cliffs_delta:
        reason = f"95 % CI below −{margin_pct(m * 100)}, p < α, δ ≤ −{config.min_abs_cliffs_delta}"
        return Verdict(IMPROVEMENT, m, config.alpha, reason, None, None)
    if 1 - m <= ci90[0] and ci90[1] <= 1 + m:
        return Verdict(EQUIVALENT, m, config.alpha, f"90 % CI inside ±{margin_pct(m * 100)}", None, None)
    needed, reason = _blocks_needed(ratio, ci95, ci90, significant, cliffs_delta, blocks, family_size, m, config,
                                    block_effect)
    by_outcome = None
    if block_effect is not None:
        by_outcome = {outcome: (None if n is None else math.ceil(n / max(devices, 1))) for outcome, n in
                      blocks_by_outcome(*block_effect, margin=m, alpha=config.alpha, family_size=family_size,
                                        cliffs_delta=cliffs_delta, config=config,
                                        limit=max(blocks, 2) * MAX_BLOCK_GROWTH).items()}
    if needed is None:
        return Verdict(INCONCLUSIVE, m, config.alpha, reason, None, None, by_outcome)
    per_device = math.ceil(needed / max(devices, 1))
    more = max(per_device - math.ceil(blocks / max(devices, 1)), 1)
    return Verdict(INCONCLUSIVE, m, config.alpha, f"{reason}: need ≥{per_device} blocks per device ({more} more)",
                   per_device, more, by_outcome)


def blocks_by_outcome(mean: float, sd: float, *, margin: float, alpha: float, family_size: int, cliffs_delta: float,
                      config: VerdictConfig, limit: int) -> dict[str, int | None]:
    """Total blocks at which each outcome's rule would hold if the per-block effects kept their
    mean and standard deviation: the t-intervals narrow as 1/√n and their quantiles shrink with
    the degrees of freedom. None when the rule cannot hold at that mean (e.g. regression with
    the mean inside the margin, or a negligible Cliff's δ), or needs more than ``limit`` blocks.

    regression   mean − t(0.975)·sd/√n > log(1 + m) and mean − t(1 − α/2k)·sd/√n > 0
    improvement  the mirror
    equivalent   mean ± t(0.95)·sd/√n inside [log(1 − m), log(1 + m)]
    (k, the Holm family size, bounds Holm's adjustment: p < α/k is always enough.)
    """
    out: dict[str, int | None] = {REGRESSION: None, IMPROVEMENT: None, EQUIVALENT: None}
    if not (math.isfinite(mean) and math.isfinite(sd)) or limit < 2:
        return out
    n = np.arange(2, limit + 1)
    se = sd / np.sqrt(n)
    upper, lower = math.log(1 + margin), (math.log(1 - margin) if margin < 1 else -math.inf)
    # The t quantiles of df = 1 … limit − 1, kept between calls (distributions.t_ppf_by_df).
    t95 = t_ppf_by_df(0.975, limit - 1) * se
    t_test = t_ppf_by_df(1 - alpha / (2 * max(family_size, 1)), limit - 1) * se
    t90 = t_ppf_by_df(0.95, limit - 1) * se
    conditions = {
        REGRESSION: (mean - t95 > upper) & (mean - t_test > 0) & (cliffs_delta >= config.min_abs_cliffs_delta),
        IMPROVEMENT: (mean + t95 < lower) & (mean + t_test < 0) & (cliffs_delta <= -config.min_abs_cliffs_delta),
        EQUIVALENT: (mean - t90 >= lower) & (mean + t90 <= upper),
    }
    for outcome, holds in conditions.items():
        hits = np.flatnonzero(holds)
        out[outcome] = int(n[hits[0]]) if len(hits) else None
    return out


def _blocks_needed(ratio: float, ci95: tuple[float, float], ci90: tuple[float, float], significant: bool,
                   cliffs_delta: float, blocks: int, family_size: int, m: float,
                   config: VerdictConfig, block_effect: tuple[float, float] | None = None
                   ) -> tuple[int | None, str]:
    """Blocks likely to decide, assuming the CI half-width shrinks as 1/sqrt(blocks).

    The effect estimate is taken as fixed; the nearest reachable outcome wins.
    """
    if blocks < 2 or not all(map(math.isfinite, (*ci95, *ci90, ratio))):
        return None, "too few paired blocks to estimate"
    if min(ratio, ci95[0], ci90[0]) <= 0:
        # A zero median (e.g. a TTFB below the clock's resolution) has no log-ratio.
        return None, "a median or CI bound is zero; the ratio cannot be estimated"
    c = math.log(ratio)
    # With the 2 ms floor on sub-2 ms medians m can reach 1 or more: no ratio is then
    # "faster by more than the margin", so the lower bound is -inf.
    upper, lower = math.log(1 + m), (math.log(1 - m) if m < 1 else -math.inf)
    half95 = (math.log(ci95[1]) - math.log(ci95[0])) / 2
    half90 = (math.log(ci90[1]) - math.log(ci90[0])) / 2
    if c > upper:
        outcome, gap, half = REGRESSION, c - upper, half95
    elif c < lower:
        outcome, gap, half = IMPROVEMENT, lower - c, half95
    else:
        outcome, gap, half = EQUIVALENT, min(upper - c, c - lower), half90
    if outcome != EQUIVALENT and abs(cliffs_delta) < config.min_abs_cliffs_delta:
        return None, (f"effect beyond the margin but Cliff's δ {signed(cliffs_delta)} is negligible; "
                      "more blocks will not decide")
    if gap <= 0 or half <= 0:
        return None, "estimate sits on the margin; more blocks are unlikely to decide"
    needed = math.ceil(blocks * (half / gap) ** 2)
    if outcome != EQUIVALENT:
        # The t-test at the observed per-block effect and spread; Holm's first step divides α
        # by the family size.
        if block_effect is not None and math.isfinite(block_effect[1]):
            for_test = blocks_for_t_test(block_effect[0], block_effect[1], config.alpha / max(family_size, 1))
            if for_test is None:
                return None, "the per-block effects average to about zero; more blocks are unlikely to decide"
            needed = max(needed, for_test)
        if not significant:
            needed = max(needed, blocks + 1)
    needed = max(needed, blocks + 1)
    if needed > blocks * MAX_BLOCK_GROWTH:
        return None, f"would need over {MAX_BLOCK_GROWTH}× the blocks to decide; the effect is too close to the margin"
    return needed, f"would likely be {outcome}"


def format_p(p: float) -> str:
    """`p < 0.001`, `p = 0.012`, `p n/a` (the number by the one rule, latencylab_contract.verdict_numbers)."""
    text = p_value(p)
    return f"p {text}" if text.startswith("<") or text == "n/a" else f"p = {text}"


# How a summary line names a metric other than per-request total time (which it leaves unnamed,
# as every line did before the gate judged other metrics).
METRIC_WORDS = {"ttfb_ms": "ttfb_ms", "series_ms": "series time", "page_load_ms": "page load"}


def summary_line(*, arm: str, baseline_arm: str, metric: str, device_class: str, profile: str, ratio: float,
                 ci95: tuple[float, float], cliffs_delta: float, p: float, blocks_per_device: float,
                 devices: int, period: int | None = None, margin: float | None = None,
                 configured_margin: float | None = None, baseline_median_ms: float | None = None,
                 floor_ms: float = 2.0) -> str:
    """One line for CI logs and PR comments, e.g.

    `h2 vs https-h1, host / lte: median −75 % [−78 %, −71 %], Cliff's δ −0.93, p < 0.001, 12 blocks × 3 devices`
    (the p shown is the Holm-adjusted one the verdict used). When the 2 ms floor widened the
    margin it says so and by how much, or "equivalent" would read as "within 5 %":
    `…, 8 blocks × 1 device; margin ±44 %: the 2 ms floor on a 4.5 ms baseline median`.
    """
    what = arm if metric == "total_ms" else f"{arm} ({METRIC_WORDS.get(metric, metric)})"
    where = f"{device_class} / {profile}" + (f", period {period}" if period is not None else "")
    blocks = f"{blocks_per_device:.0f}" if float(blocks_per_device).is_integer() else f"{blocks_per_device:.1f}"
    change = (ratio - 1) * 100
    lo, hi = ((c - 1) * 100 for c in ci95)
    line = (f"{what} vs {baseline_arm}, {where}: median {effect_with_ci(change, (lo, hi))}, "
            f"Cliff's δ {signed(cliffs_delta)}, {format_p(p)}, "
            f"{blocks} blocks × {devices} device{'s' if devices != 1 else ''}")
    return line + widened_margin_note(margin, configured_margin, baseline_median_ms, floor_ms)


def widened_margin_note(margin: float | None, configured_margin: float | None,
                        baseline_median_ms: float | None, floor_ms: float = 2.0) -> str:
    """`; margin ±44 %: the 2 ms floor on a 4.5 ms baseline median` when the floor widened the
    margin beyond the configured one (and by more than rounding), else ""."""
    if margin is None or configured_margin is None or margin <= configured_margin + 0.0005:
        return ""
    median = f" on a {_ms(baseline_median_ms)} baseline median" if baseline_median_ms else ""
    return f"; margin ±{margin_pct(margin * 100)}: the {floor_ms:g} ms floor{median}"


def _ms(value: float) -> str:
    return f"{value:.2f} ms" if value < 1 else f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"
