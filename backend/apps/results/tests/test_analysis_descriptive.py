"""Descriptive statistics, series, first-vs-rest and sweeps on small known tables."""

import numpy as np
import pytest

from apps.results.analysis import (
    BlockBaselines,
    SampleTable,
    delay_sweep,
    describe,
    first_vs_rest,
    payload_sweep,
    series_summary,
)
from apps.results.analysis.bootstrap import median_ci_sorted


def small_table():
    # arm 0: 5, 1, 3 ms (+1 failed request); arm 1: 4, 2 ms; one warm-up that must be ignored.
    return SampleTable.from_columns(
        arm=[0, 0, 0, 0, 1, 1, 1],
        device=[0] * 7,
        profile=[0] * 7,
        total_us=[5000, 1000, 3000, 9000, 4000, 2000, 100_000],
        ok=[True, True, True, False, True, True, True],
        phase_measure=[True, True, True, True, True, True, False],
        arm_labels=["h1", "h2"], device_labels=["pixel"], profile_labels=["lte"],
    )


def test_describe_hand_computed():
    rows = {r["arm"]: r for r in describe(small_table(), n_boot=500)}
    h1, h2 = rows["h1"], rows["h2"]
    assert (h1["n"], h1["errors"], h1["median_ms"], h1["mean_ms"]) == (3, 1, 3.0, 3.0)
    assert h1["p90_ms"] == pytest.approx(4.6)  # linear: 3 + 0.8 × (5 − 3)
    assert (h1["min_ms"], h1["max_ms"], h1["stddev_ms"]) == (1.0, 5.0, pytest.approx(2.0))
    assert (h2["n"], h2["errors"], h2["median_ms"], h2["max_ms"]) == (2, 0, 3.0, 4.0)  # warm-up excluded
    assert h1["median_ci95_ms"][0] >= 1.0
    assert h1["median_ci95_ms"][1] <= 5.0
    assert h1["period"] is None
    assert h1["device"] == "pixel"
    assert h1["profile"] == "lte"


def test_describe_matches_numpy_on_random_groups():
    rng = np.random.default_rng(7)
    n = 5000
    table = SampleTable.from_columns(
        arm=rng.integers(0, 2, n), device=rng.integers(0, 3, n), profile=np.zeros(n, int),
        period=rng.choice([3, 6], n), total_us=rng.integers(1000, 90_000, n),
        arm_labels=["a", "b"], device_labels=["d0", "d1", "d2"], profile_labels=["none"])
    for row in describe(table, n_boot=200):
        a, d = table.arm_labels.index(row["arm"]), table.device_labels.index(row["device"])
        x = table.total_us[(table.arm == a) & (table.device == d) & (table.period == row["period"])] / 1000
        assert row["n"] == len(x)
        assert row["median_ms"] == pytest.approx(np.median(x))
        assert row["p99_ms"] == pytest.approx(np.percentile(x, 99))
        assert row["stddev_ms"] == pytest.approx(np.std(x, ddof=1))


def test_beta_median_bootstrap_matches_brute_force():
    rng = np.random.default_rng(11)
    for n in (15, 16):  # odd and even sample sizes
        x = np.sort(rng.lognormal(3, 0.5, n))
        lo, hi = median_ci_sorted(x, np.array([0]), np.array([n]), n_boot=20_000, rng=np.random.default_rng(1))
        brute = np.median(x[rng.integers(0, n, (20_000, n))], axis=1)
        ref_lo, ref_hi = np.quantile(brute, [0.025, 0.975])
        spread = x[-1] - x[0]
        assert abs(lo[0] - ref_lo) < 0.05 * spread
        assert abs(hi[0] - ref_hi) < 0.05 * spread


def series_table():
    # Period 2, two repetitions per arm in block 0; each request 100 B.
    # h1 series: 10+20 = 30 ms and 20+20 = 40 ms; h2: 5+5 = 10 ms and 10+10 = 20 ms.
    total_ms = [10, 20, 20, 20, 5, 5, 10, 10]
    return SampleTable.from_columns(
        arm=[0, 0, 0, 0, 1, 1, 1, 1], device=[0] * 8, profile=[0] * 8, period=[2] * 8,
        repetition=[0, 0, 1, 1, 0, 0, 1, 1], step=[0, 1] * 4,
        total_us=[ms * 1000 for ms in total_ms], resp_bytes=[100] * 8,
        arm_labels=["https-h1", "h2"], device_labels=["sim"], profile_labels=["transatlantic"])


def test_series_summary_gain_and_throughput():
    rows = {r["arm"]: r for r in series_summary(series_table(), baseline_arm="https-h1")}
    h1, h2 = rows["https-h1"], rows["h2"]
    assert (h1["average_ms"], h1["median_ms"], h1["times_ms"]) == (35.0, 35.0, [30.0, 40.0])
    assert h2["average_ms"] == 15.0
    assert h1["throughput_bytes_per_s"] == pytest.approx(400 / 0.070)  # ratio of sums
    assert h2["gain_pct"] == pytest.approx((35 / 15 - 1) * 100)
    assert h2["speedup"] == pytest.approx(35 / 15)
    assert h1["gain_pct"] == 0.0


def test_series_with_a_failed_request_is_incomplete():
    t = series_table()
    ok = t.ok.copy()
    ok[0] = False
    broken = SampleTable(**{**{f: getattr(t, f) for f in t.__dataclass_fields__}, "ok": ok})
    h1 = next(r for r in series_summary(broken) if r["arm"] == "https-h1")
    assert (h1["series"], h1["incomplete_series"], h1["times_ms"]) == (1, 1, [40.0])


def test_first_vs_rest():
    table = SampleTable.from_columns(
        arm=[0] * 6, device=[0] * 6, profile=[0] * 6,
        total_us=[300_000, 50_000, 70_000, 500_000, 60_000, 40_000], resp_bytes=[0, 1000, 1000, 0, 1000, 1000],
        first_on_connection=[True, False, False, True, False, False],
        arm_labels=["grpc"], device_labels=["android"], profile_labels=["lte"])
    (row,) = first_vs_rest(table)
    assert row["first"]["mean_ms"] == 400.0
    assert row["rest"]["mean_ms"] == 55.0
    assert row["rest"]["median_ms"] == 55.0
    assert row["first_minus_rest_median_ms"] == 345.0
    assert row["rest"]["throughput_bytes_per_s"] == pytest.approx(4000 / 0.22)


def test_delay_sweep_subtracts_known_delay():
    table = SampleTable.from_columns(
        arm=[0] * 4, device=[0] * 4, profile=[0] * 4,
        server_delay_us=[0, 0, 25_000, 25_000], total_us=[5_000, 7_000, 231_000, 233_000],
        arm_labels=["h1"], device_labels=["android"], profile_labels=["none"])
    rows = delay_sweep(table)
    assert [r["known_delay_ms"] for r in rows] == [0.0, 25.0]
    assert [r["added_median_ms"] for r in rows] == [6.0, 207.0]  # the +200 ms step is visible


def test_payload_sweep_rtt_multiples_and_flags():
    sizes = [1000, 35_000, 64_000]
    total_ms = [25, 230, 60]  # 35,000 B is slower than 64 KB: the Nagle / delayed-ACK signature
    table = SampleTable.from_columns(
        arm=[0] * 3, device=[0] * 3, profile=[0] * 3, block=[0, 0, 1],
        resp_bytes=sizes, total_us=[ms * 1000 for ms in total_ms],
        arm_labels=["2.2"], device_labels=["pixel"], profile_labels=["lte"])
    baselines = BlockBaselines(device=np.array([0, 0]), profile=np.array([0, 0]), block=np.array([0, 1]),
                               rtt_avg_us=np.array([20_000.0, 30_000.0]), rtt_stddev_us=np.zeros(2),
                               loss_pct=np.zeros(2))
    rows = payload_sweep(table, baselines)
    assert [r["median_rtt_multiple"] for r in rows] == [1.25, 11.5, 2.0]
    assert [r["slow"] for r in rows] == [False, True, False]
    assert [r["slower_than_next_size"] for r in rows] == [False, True, False]
    assert rows[2]["baseline_rtt_ms"] == 30.0


def test_payload_sweep_without_baseline():
    table = SampleTable.from_columns(arm=[0], device=[0], profile=[0], resp_bytes=[10], total_us=[1000],
                                     arm_labels=["a"], device_labels=["d"], profile_labels=["p"])
    (row,) = payload_sweep(table, None)
    assert row["median_rtt_multiple"] is None
    assert row["slow"] is None


def test_table_validation():
    with pytest.raises(ValueError, match="arm codes must index arm_labels"):
        SampleTable.from_columns(arm=[0, 2], device=[0, 0], profile=[0, 0], total_us=[1, 2],
                                 arm_labels=["a"], device_labels=["d"], profile_labels=["p"])
