"""The group metrics the gate judges by default (analysis/metrics.py) and their pooling over
periods, on constructed data: series time judged per period and pooled, page load of a request
list, and the per-request time beside them, which can point the other way."""

import math

import numpy as np
import pytest
from scipy import stats

from apps.results.analysis import (
    EQUIVALENT,
    IMPROVEMENT,
    REGRESSION,
    SampleTable,
    VerdictConfig,
    analyze_comparison,
    compare_arms,
)
from apps.results.analysis.effects import cohens_d_log, cohens_d_log_stratified
from apps.results.analysis.metrics import group_table
from apps.results.analysis.significance import mann_whitney, stratified_mann_whitney

FAST = VerdictConfig(n_boot=200)
T = 1_700_000_000_000_000  # epoch µs


def concurrent_series(*, periods=(8, 12), blocks=6, repetitions=2, h1_request_ms=20.0, h2_request_ms=30.0,
                      parallel=4, sigma=0.03, seed=1) -> SampleTable:
    """A series workload issued concurrently (parallel 4): h1 spreads each series over 4
    connections, a connection taking the next request when its previous one completes, so a
    series of 8 takes two request times; h2 issues every request at once on one connection,
    each waiting behind its siblings (slower per request) while the series completes once."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in ("arm", "block", "period", "repetition", "step", "total_us", "start_us")}
    clock = T
    for block in range(blocks):
        for period in periods:
            for rep in range(repetitions):
                for arm, request_ms in ((0, h1_request_ms), (1, h2_request_ms)):
                    free_at = [clock] * (parallel if arm == 0 else period)
                    for step in range(period):
                        slot = int(np.argmin(free_at))
                        start = free_at[slot]
                        took = int(request_ms * 1000 * math.exp(rng.normal(0, sigma)))
                        free_at[slot] = start + took
                        for key, value in (("arm", arm), ("block", block), ("period", period),
                                           ("repetition", rep), ("step", step), ("total_us", took),
                                           ("start_us", start)):
                            rows[key].append(value)
                    clock = max(free_at) + 1_000
    return SampleTable.from_columns(**rows, device=[0] * len(rows["arm"]), profile=[0] * len(rows["arm"]),
                                    arm_labels=("h1", "h2"), device_labels=("host",), profile_labels=("none",),
                                    concurrency="parallel 4")


def rows(table, metric, scope="pooled"):
    return [r for r in compare_arms(table, baseline_arm="h1", metrics=(metric,), config=FAST) if r.scope == scope]


def test_series_time_is_an_improvement_where_per_request_time_is_a_regression():
    table = concurrent_series(sigma=0.005)
    (per_request,) = rows(table, "total_ms")
    (series,) = rows(table, "series_ms")
    assert per_request.verdict.outcome == REGRESSION  # each h2 request waits behind its siblings: 30 vs 20 ms
    assert per_request.ratio == pytest.approx(1.5, rel=0.03)
    assert series.verdict.outcome == IMPROVEMENT  # the series completes sooner: 30 ms vs 40 and 60 ms
    # Pooled over the periods: the geometric mean of the per-period ratios 30/40 and 30/60.
    assert series.ratio == pytest.approx(math.sqrt(0.75 * 0.5), rel=0.03)
    assert (series.median_baseline_ms, series.n_candidate) == (pytest.approx(50, rel=0.1), 24)
    assert series.summary.startswith("h2 (series time) vs h1, host / none: median −3")
    assert series.cliffs_delta == -1.0  # within each period every h2 series beats every h1 one


def test_each_period_is_judged_beneath_the_pooled_row_in_a_family_of_its_own():
    table = concurrent_series(periods=(8, 12, 16), sigma=0.005)
    result = compare_arms(table, baseline_arm="h1", metrics=("series_ms",), config=FAST)
    pooled = [r for r in result if r.scope == "pooled"]
    periods = [r for r in result if r.scope == "period"]
    assert [r.period for r in periods] == [8, 12, 16]
    assert [r.ratio for r in periods] == pytest.approx([30 / 40, 30 / 60, 30 / 80], rel=0.03)
    assert {r.verdict.outcome for r in periods} == {IMPROVEMENT}
    assert periods[1].summary.startswith("h2 (series time) vs h1, host / none, period 12:")
    # The per-period rows are one Holm family (3 tests); the pooled row's is its own (1 test).
    assert pooled[0].p_blocks_holm == pooled[0].p_blocks
    assert min(r.p_blocks_holm for r in periods) == pytest.approx(min(1.0, 3 * min(r.p_blocks for r in periods)))
    assert not pooled[0].periods_disagree
    # The rows beneath never gate: their order follows the pooled row.
    assert [r.scope for r in result] == ["pooled", "period", "period", "period"]


def test_the_pooled_effect_is_the_mean_of_each_blocks_per_period_log_ratios():
    """Per block, the mean over periods of the difference of mean log series times (1 series per
    arm, period and block: the trimmed mean is the value); the t-interval over blocks."""
    table = concurrent_series(periods=(8, 12), repetitions=1, blocks=5, sigma=0.1, seed=7)
    (series,) = rows(table, "series_ms")
    groups = group_table(table, passes=False)
    log_time = {(int(a), int(b), int(p)): math.log(t) for a, b, p, t in
                zip(groups.arm, groups.block, groups.period, groups.total_us, strict=True)}
    effects = np.array([np.mean([log_time[1, b, p] - log_time[0, b, p] for p in (8, 12)]) for b in range(5)])
    assert series.ratio == pytest.approx(math.exp(effects.mean()), rel=1e-12)
    half = stats.t.ppf(0.975, 4) * effects.std(ddof=1) / math.sqrt(5)
    assert series.ratio_ci95 == pytest.approx((math.exp(effects.mean() - half), math.exp(effects.mean() + half)))
    assert series.p_blocks == pytest.approx(stats.ttest_1samp(effects, 0).pvalue)


def test_a_block_missing_a_period_averages_the_periods_it_has():
    table = concurrent_series(periods=(8, 12), repetitions=1, blocks=4, sigma=0.0)
    ok = table.ok.copy()
    ok[(table.block == 2) & (table.period == 12) & (table.arm == 0) & (table.step == 3)] = False
    failed = SampleTable(**{**{f: getattr(table, f) for f in table.__dataclass_fields__}, "ok": ok})
    (series,) = rows(failed, "series_ms")
    # Block 2 keeps period 8 alone (30/40); the others average 30/40 and 30/60.
    expected = np.array([math.log(0.75 * 0.5) / 2] * 3 + [math.log(0.75)])
    assert math.log(series.ratio) == pytest.approx(expected.mean(), abs=1e-3)
    assert series.blocks == 4


def test_periods_that_disagree_are_flagged_and_the_pooled_verdict_stands():
    # h1 over 4 connections: a period-4 series is one wave (20 ms) and h2's 30 ms is slower;
    # periods 12 and 16 are three and four waves (60, 80 ms) and h2 is faster.
    table = concurrent_series(periods=(4, 12, 16), sigma=0.005)
    result = compare_arms(table, baseline_arm="h1", metrics=("series_ms",), config=FAST)
    (pooled,) = [r for r in result if r.scope == "pooled"]
    by_period = {r.period: r.verdict.outcome for r in result if r.scope == "period"}
    assert by_period == {4: REGRESSION, 12: IMPROVEMENT, 16: IMPROVEMENT}
    assert pooled.periods_disagree
    assert pooled.ratio == pytest.approx((1.5 * 30 / 60 * 30 / 80) ** (1 / 3), rel=0.03)
    assert pooled.cliffs_delta == pytest.approx(-1 / 3)  # each period's δ weighs its pairs: 1 − 1 − 1
    assert pooled.verdict.outcome == IMPROVEMENT


def test_periods_that_cancel_out_leave_the_pooled_row_undecided():
    """One period much slower, one much faster: the pooled δ is about 0, negligible, so the
    pooled row cannot be a regression or an improvement whatever its ratio."""
    table = concurrent_series(periods=(4, 16), sigma=0.005)
    (pooled,) = rows(table, "series_ms")
    assert pooled.periods_disagree
    assert pooled.cliffs_delta == pytest.approx(0)
    assert pooled.verdict.outcome not in (REGRESSION, IMPROVEMENT)


def test_rank_statistics_compare_series_within_their_period():
    """A 10 % faster candidate in every period: within periods every pair agrees (δ = −1);
    ranked across periods, series of 3 and of 30 requests would mostly compare lengths."""
    cand = np.array([27.0, 27.5, 28.0, 270.0, 275.0, 280.0])
    base = np.array([30.0, 30.5, 31.0, 300.0, 305.0, 310.0])
    strata = np.array([0, 0, 0, 1, 1, 1])
    u, pairs, p = stratified_mann_whitney(cand, strata, base, strata)
    assert (u, pairs) == (0.0, 18)
    assert p < 0.01
    u_pooled, _ = mann_whitney(cand, base)
    assert 2 * u_pooled / 36 - 1 == pytest.approx(-0.5)  # what mixing the periods would have said
    # One stratum: the ordinary statistics.
    one = np.zeros(3, dtype=np.int64)
    assert stratified_mann_whitney(cand[:3], one, base[:3], one)[:2] == (mann_whitney(cand[:3], base[:3])[0], 9)
    assert cohens_d_log_stratified(cand[:3], one, base[:3], one) == pytest.approx(cohens_d_log(cand[:3], base[:3]))
    assert cohens_d_log_stratified(cand, strata, base, strata) < -2  # the spread between periods is no noise


def request_list_passes(*, concurrent: bool, blocks=6, passes=2, seed=3) -> SampleTable:
    """A request list of 6 requests per pass (no period; repetition = the pass): h1 issues them
    two at a time, h2 all at once, slower each."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in ("arm", "block", "repetition", "step", "total_us", "start_us")}
    clock = T
    for block in range(blocks):
        for rep in range(passes):
            for arm, request_ms, lanes in ((0, 10.0, 2), (1, 14.0, 6)):
                free_at = [clock] * (lanes if concurrent else 1)
                for step in range(6):
                    slot = int(np.argmin(free_at))
                    took = int(request_ms * 1000 * math.exp(rng.normal(0, 0.005)))
                    for key, value in (("arm", arm), ("block", block), ("repetition", rep), ("step", step),
                                       ("total_us", took), ("start_us", free_at[slot])):
                        rows[key].append(value)
                    free_at[slot] += took
                clock = max(free_at) + 1_000
    n = len(rows["arm"])
    return SampleTable.from_columns(**rows, device=[0] * n, profile=[0] * n, arm_labels=("h1", "h2"),
                                    device_labels=("host",), profile_labels=("none",),
                                    concurrency="parallel 2" if concurrent else "sequential")


def test_page_load_is_the_span_of_a_concurrent_pass_and_the_sum_of_a_sequential_one():
    (concurrent,) = rows(request_list_passes(concurrent=True), "page_load_ms")
    assert concurrent.verdict.outcome == IMPROVEMENT  # 14 ms once against 3 × 10 ms
    assert concurrent.ratio == pytest.approx(14 / 30, rel=0.03)
    assert concurrent.summary.startswith("h2 (page load) vs h1, host / none:")
    (sequential,) = rows(request_list_passes(concurrent=False), "page_load_ms")
    assert sequential.verdict.outcome == REGRESSION  # 6 × 14 against 6 × 10 ms
    assert sequential.ratio == pytest.approx(1.4, rel=0.03)
    assert not [r for r in compare_arms(request_list_passes(concurrent=True), baseline_arm="h1",
                                        metrics=("page_load_ms",), config=FAST) if r.scope == "period"]


def test_the_analysis_carries_each_metric_and_the_group_times_trends_follow():
    table = concurrent_series()
    analysis = analyze_comparison(table, baseline_arm="h1", metrics=("total_ms", "ttfb_ms", "series_ms"),
                                  config=FAST)
    assert analysis["version"] == 2
    outcomes = {(c["metric"], c["scope"], c["period"]): c["verdict"]["outcome"] for c in analysis["comparisons"]}
    assert outcomes[("series_ms", "pooled", None)] == IMPROVEMENT
    assert outcomes[("total_ms", "pooled", None)] == REGRESSION
    assert {c["metric"] for c in analysis["descriptive"]} == {"total_ms"}  # no ttfb in this table
    (h1, h2) = sorted(analysis["group_times"], key=lambda r: r["arm"])
    assert (h1["metric"], h1["period"], h1["n"], h2["n"]) == ("series_ms", None, 24, 24)
    assert h2["median_ms"] == pytest.approx(30, rel=0.05)


def test_summary_lines_state_a_margin_the_floor_widened():
    """4.5 ms medians: the 2 ms floor makes the 5 % margin ±44 %, and the line says so."""
    rng = np.random.default_rng(5)
    n_blocks, per_block = 8, 30
    arm = np.tile(np.repeat([0, 1], per_block), n_blocks)
    block = np.repeat(np.arange(n_blocks), 2 * per_block)
    total = np.where(arm == 0, 4500, 4500 * 1.13) * np.exp(rng.normal(0, 0.05, len(arm)))
    table = SampleTable.from_columns(arm=arm, block=block, device=np.zeros(len(arm)), profile=np.zeros(len(arm)),
                                     total_us=total.astype(np.int64), arm_labels=("h1", "h2"),
                                     device_labels=("host",), profile_labels=("none",))
    (row,) = rows(table, "total_ms")
    assert row.verdict.outcome == EQUIVALENT
    assert row.verdict.margin == pytest.approx(2 / 4.5, rel=0.02)
    assert row.summary.endswith("; margin ±44 %: the 2 ms floor on a 4.5 ms baseline median")
    # Above the floor the margin is the configured one and the line says nothing of it.
    (wide,) = rows(concurrent_series(), "series_ms")
    assert "margin" not in wide.summary
