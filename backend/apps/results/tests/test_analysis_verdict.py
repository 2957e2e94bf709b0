"""Arm comparisons and verdicts on synthetic data with known effects."""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

from apps.results.analysis import (
    EQUIVALENT,
    IMPROVEMENT,
    INCONCLUSIVE,
    REGRESSION,
    VerdictConfig,
    aa_false_positive_rate,
    analyze_comparison,
    compare_arms,
    synthetic_table,
)
from apps.results.analysis.bootstrap import hierarchical_ratio_bootstrap
from apps.results.analysis.verdict import decide, effective_margin, summary_line

FAST = VerdictConfig(n_boot=1000)


def one(table, **kw):
    """The pooled (headline) row; devices of one class also get rows of their own beneath it."""
    (result,) = [r for r in compare_arms(table, baseline_arm="baseline", config=FAST, **kw) if r.scope == "pooled"]
    return result


def test_strong_improvement():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 0.25}, seed=1)
    c = one(table)
    assert c.verdict.outcome == IMPROVEMENT
    assert c.ratio == pytest.approx(0.25, rel=0.1)
    assert c.ratio_ci95[0] < c.ratio < c.ratio_ci95[1] < 0.95
    assert c.cliffs_delta < -0.474
    assert c.cliffs_label == "large"
    assert c.cohens_d_log < -2.0
    assert c.cohens_label == "huge"
    assert c.p_blocks_holm < 0.001
    assert c.speedup == pytest.approx(4.0, rel=0.1)
    assert (c.blocks, c.devices, c.blocks_per_device) == (36, 3, 12.0)


def test_strong_regression():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.5}, seed=2)
    c = one(table)
    assert c.verdict.outcome == REGRESSION
    assert c.ratio_ci95[0] > 1.05
    assert c.cliffs_delta >= 0.147


def test_equivalent_when_tight_and_inside_margin():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.01}, blocks=20, requests_per_block=60,
                               request_sigma=0.1, block_arm_sigma=0.005, seed=3)
    c = one(table)
    assert c.verdict.outcome == EQUIVALENT
    assert 0.95 <= c.ratio_ci90[0]
    assert c.ratio_ci90[1] <= 1.05


def test_inconclusive_says_how_many_blocks():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.0}, blocks=6, requests_per_block=10,
                               request_sigma=0.6, block_arm_sigma=0.1, seed=4)
    c = one(table)
    assert c.verdict.outcome == INCONCLUSIVE
    assert c.verdict.blocks_needed_per_device > 6
    assert c.verdict.additional_blocks_per_device >= 1
    assert "blocks per device" in c.verdict.reason


def test_significant_but_small_effect_is_not_a_regression():
    # 2 % slower with a very tight CI: inside the 5 % margin, so equivalent, never regression.
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.02}, blocks=30, requests_per_block=100,
                               request_sigma=0.05, block_arm_sigma=0.002, seed=5)
    c = one(table)
    assert c.verdict.outcome == EQUIVALENT


def test_margin_floor_of_2_ms():
    config = VerdictConfig()
    assert effective_margin(config, 100.0) == pytest.approx(0.05)
    assert effective_margin(config, 10.0) == pytest.approx(0.20)  # 2 ms of a 10 ms median
    # A 12 % slowdown of a 10 ms request is within the 2 ms floor: not a regression.
    v = decide(ratio=1.12, ci95=(1.10, 1.14), ci90=(1.105, 1.135), p_adjusted=1e-6, cliffs_delta=0.5,
               baseline_median_ms=10.0, blocks=36, devices=3, family_size=1, config=config)
    assert v.outcome == EQUIVALENT
    assert v.margin == pytest.approx(0.2)
    v = decide(ratio=1.12, ci95=(1.10, 1.14), ci90=(1.105, 1.135), p_adjusted=1e-6, cliffs_delta=0.5,
               baseline_median_ms=100.0, blocks=36, devices=3, family_size=1, config=config)
    assert v.outcome == REGRESSION


def test_regression_needs_significance_and_delta():
    kw = dict(ratio=1.3, ci95=(1.2, 1.4), ci90=(1.22, 1.38), baseline_median_ms=100.0, blocks=36, devices=3,
              family_size=1, config=VerdictConfig())
    assert decide(p_adjusted=0.02, cliffs_delta=0.5, **kw).outcome == INCONCLUSIVE
    assert decide(p_adjusted=0.001, cliffs_delta=0.1, **kw).outcome == INCONCLUSIVE
    assert decide(p_adjusted=0.001, cliffs_delta=0.1, **kw).blocks_needed_per_device is None


def test_six_blocks_on_one_device_can_be_a_regression():
    # The default spec: 6 blocks on one device. A large effect must be able to come out regression
    # (a rank test on 6 blocks could never go below p = 0.031).
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.5}, devices=1, blocks=6, seed=11)
    c = one(table)
    assert c.verdict.outcome == REGRESSION
    assert c.p_blocks_holm < 0.001
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 0.5}, devices=1, blocks=6, seed=12)
    assert one(table).verdict.outcome == IMPROVEMENT


def test_blocks_needed_follows_the_t_test():
    # CI already beyond the margin but p = 0.02: the blocks the t-test needs at the observed
    # per-block mean 0.1 and spread 0.12 decide the estimate.
    v = decide(ratio=1.1, ci95=(1.06, 1.14), ci90=(1.065, 1.135), p_adjusted=0.02, cliffs_delta=0.3,
               baseline_median_ms=100.0, blocks=6, devices=1, family_size=1, config=VerdictConfig(),
               block_effect=(0.1, 0.12))
    from apps.results.analysis.significance import blocks_for_t_test
    assert v.outcome == INCONCLUSIVE
    assert v.blocks_needed_per_device == blocks_for_t_test(0.1, 0.12, 0.01)
    assert v.blocks_needed_per_device > 6


def test_inconclusive_says_how_far_from_each_outcome():
    # Per-block mean +8 % (beyond the 5 % margin), spread 0.1, 6 blocks on 2 devices: regression is
    # reachable, equivalence and improvement are not at that mean.
    config = VerdictConfig()
    v = decide(ratio=1.08, ci95=(0.98, 1.19), ci90=(1.0, 1.17), p_adjusted=0.1, cliffs_delta=0.3,
               baseline_median_ms=100.0, blocks=6, devices=2, family_size=1, config=config,
               block_effect=(math.log(1.08), 0.1))
    assert v.outcome == INCONCLUSIVE
    regression = v.blocks_by_outcome["regression"]
    assert v.blocks_by_outcome["improvement"] is None
    assert v.blocks_by_outcome["equivalent"] is None
    # The rule holds at that many blocks (per device × 2) and not at one block fewer overall.
    from scipy import stats
    def holds(n):
        se = 0.1 / math.sqrt(n)
        return (math.log(1.08) - stats.t.ppf(0.975, n - 1) * se > math.log(1.05)
                and math.log(1.08) - stats.t.ppf(0.995, n - 1) * se > 0)
    total = next(n for n in range(2, 1000) if holds(n))
    assert regression == math.ceil(total / 2)
    assert not holds(total - 1)
    # Inside the margin: only equivalence is reachable; a negligible δ rules regression out.
    v = decide(ratio=1.01, ci95=(0.94, 1.08), ci90=(0.95, 1.07), p_adjusted=0.6, cliffs_delta=0.02,
               baseline_median_ms=100.0, blocks=6, devices=1, family_size=1, config=config,
               block_effect=(math.log(1.01), 0.08))
    assert v.outcome == INCONCLUSIVE
    assert v.blocks_by_outcome["equivalent"] > 6
    assert v.blocks_by_outcome["regression"] is None
    assert v.blocks_by_outcome["improvement"] is None


def test_summary_line_format():
    line = summary_line(arm="h2", baseline_arm="https-h1", metric="total_ms", device_class="host", profile="lte",
                        ratio=0.25, ci95=(0.22, 0.29), cliffs_delta=-0.93, p=0.0001, blocks_per_device=12, devices=3)
    assert line == ("h2 vs https-h1, host / lte: median −75 % [−78 %, −71 %], Cliff's δ −0.93, p < 0.001, "
                    "12 blocks × 3 devices")


def test_holm_family_is_one_arm_on_one_metric_over_device_classes_and_profiles():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.3}, devices=2, device_class=None,
                               profiles=("none", "lte"), seed=6)
    both = compare_arms(table, baseline_arm="baseline", metrics=("total_ms", "ttfb_ms"), config=FAST)
    assert len(both) == 8
    for metric in ("total_ms", "ttfb_ms"):
        family = [r for r in both if r.metric == metric]
        raw = sorted(r.p_blocks for r in family)
        assert min(r.p_blocks_holm for r in family) == pytest.approx(min(1.0, 4 * raw[0]))
    # The gate metric's adjusted p does not depend on which other metrics are analysed.
    alone = compare_arms(table, baseline_arm="baseline", metrics=("total_ms",), config=FAST)
    assert [(r.device_class, r.profile, r.p_blocks_holm, r.verdict) for r in alone] == \
        [(r.device_class, r.profile, r.p_blocks_holm, r.verdict) for r in both if r.metric == "total_ms"]


def test_device_classes_pool_devices():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 0.5}, devices=4, device_class=None, seed=7)
    results = compare_arms(table, baseline_arm="baseline", config=FAST)
    assert len(results) == 4
    assert all(r.devices == 1 for r in results)


def test_hierarchical_bootstrap_window_matches_full_histogram():
    # Few distinct values: exact bins; the windowed draw must give the law of the full draw.
    rng = np.random.default_rng(0)
    cand, base = rng.integers(90, 130, 600).astype(float), rng.integers(100, 140, 600).astype(float)
    cells = np.repeat(np.arange(12), 50)
    boot = hierarchical_ratio_bootstrap(np.sort(cand), cells, np.sort(base), cells, np.repeat(np.arange(3), 4),
                                        n_boot=4000, rng=np.random.default_rng(1))
    lo, hi = boot.ci(0.95)
    assert lo < np.median(cand) / np.median(base) < hi
    assert 0.8 < lo < hi < 1.05


def test_analysis_is_json_serializable_and_complete():
    table, baselines = synthetic_table(arm_ratios={"baseline": 1.0, "h2": 0.7}, periods=[3, 6], repetitions=2,
                                       first_request_factor=2.0, error_rate=0.01, seed=8)
    result = analyze_comparison(table, baseline_arm="baseline", baselines=baselines, config=FAST)
    text = json.dumps(result, allow_nan=False)
    assert json.loads(text)["comparisons"][0]["verdict"]["outcome"] == IMPROVEMENT
    assert {"descriptive", "series", "first_vs_rest", "payload_sweep", "comparisons"} <= set(result)
    assert result["series"]
    assert result["first_vs_rest"][0]["first_minus_rest_median_ms"] > 0


def test_same_seed_same_answer():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.1}, seed=9)
    assert one(table).ratio_ci95 == one(table).ratio_ci95


def test_aa_helper_reports_false_positive_rate():
    result = aa_false_positive_rate(comparisons=20, config=FAST, blocks=8, requests_per_block=10)
    assert result.comparisons == 20
    assert sum(result.outcomes.values()) == 20
    assert result.decided_rate <= 0.1


def test_engine_never_imports_django():
    package = Path(__file__).resolve().parents[1] / "analysis"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] in {"django", "rest_framework", "celery"} for n in names), path


def test_inconclusive_with_a_zero_ci_bound_does_not_crash():
    from apps.results.analysis.verdict import INCONCLUSIVE, VerdictConfig, decide

    verdict = decide(ratio=0.5, ci95=(0.0, 2.0), ci90=(0.0, 1.5), p_adjusted=0.5, cliffs_delta=-0.1,
                     baseline_median_ms=10.0, blocks=4, devices=1, family_size=2, config=VerdictConfig())
    assert verdict.outcome == INCONCLUSIVE
    assert "zero" in verdict.reason


def test_margin_floor_above_the_median_does_not_crash():
    from apps.results.analysis.verdict import VerdictConfig, decide

    # 2 ms floor on a 0.8 ms median: the effective margin is 250 %.
    verdict = decide(ratio=1.8, ci95=(1.2, 2.6), ci90=(1.3, 2.4), p_adjusted=0.2, cliffs_delta=0.5,
                     baseline_median_ms=0.8, blocks=2, devices=1, family_size=2, config=VerdictConfig())
    assert verdict.outcome in ("inconclusive", "equivalent")
    assert verdict.margin == 2.5


def _per_device_effects(effects, seed):
    """Two devices of one class (host); the candidate is `effects[d]` × the baseline on device d."""
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.0}, devices=len(effects), seed=seed)
    candidate = table.arm == table.arm_labels.index("candidate")
    factor = np.asarray(effects)[table.device]
    table.total_us[candidate] = np.rint(table.total_us[candidate] * factor[candidate]).astype(np.int64)
    return compare_arms(table, baseline_arm="baseline", config=FAST)


def test_devices_of_one_class_are_pooled_with_their_own_rows_beneath():
    rows = _per_device_effects([1.5, 1.5], seed=21)
    pooled = [r for r in rows if r.scope == "pooled"]
    beneath = [r for r in rows if r.scope == "device"]
    assert [(r.device_class, r.devices, r.blocks, r.device) for r in pooled] == [("host", 2, 24, None)]
    assert sorted(r.device for r in beneath) == ["device-0", "device-1"]
    assert all(r.devices == 1 and r.blocks == 12 and r.device_class == "host" for r in beneath)
    assert pooled[0].verdict.outcome == REGRESSION
    assert not pooled[0].devices_disagree
    assert all(r.verdict.outcome == REGRESSION for r in beneath)
    assert "device-0" in next(r.summary for r in beneath if r.device == "device-0")


def test_devices_that_disagree_are_never_averaged_away():
    # One device 50 % slower, the other 40 % faster: the pooled mean is near 1, but the pooled row
    # must not say "equivalent".
    rows = _per_device_effects([1.5, 0.6], seed=22)
    (pooled,) = [r for r in rows if r.scope == "pooled"]
    outcomes = {r.device: r.verdict.outcome for r in rows if r.scope == "device"}
    assert outcomes == {"device-0": REGRESSION, "device-1": IMPROVEMENT}
    assert pooled.devices_disagree
    assert pooled.verdict.outcome == INCONCLUSIVE
    assert "devices disagree: device-0 regress, device-1 improve" in pooled.verdict.reason
