"""The engine's fast paths give exactly what the plain numpy formulation gives."""

import dataclasses

import numpy as np
import pytest

from apps.results.analysis import analyze_comparison, payload_sweep, synthetic_table
from apps.results.analysis.bootstrap import _product, _searchsorted, hierarchical_ratio_bootstrap, row_quantiles
from apps.results.analysis.grouping import dense_groups, group_by, radix_argsort, sorted_groups, stable_value_order
from apps.results.analysis.significance import mann_whitney
from apps.results.analysis.table import SampleTable


def _reference_group_by(keys, values=None):
    """Stable sort by (keys..., value): what group_by's permutation must be."""
    columns = [np.asarray(k) for k in keys]
    if values is not None:
        ranks = np.empty(len(values), dtype=np.int64)
        ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
        columns.append(ranks)
    return np.lexsort(columns[::-1])


@pytest.mark.parametrize("seed", range(40))
def test_group_by_is_a_stable_sort_by_keys_then_value(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    keys = [
        rng.integers(-3, 5, n).astype(np.int32),  # negative codes (period -1)
        rng.integers(2**40, 2**40 + 7, n),  # large values, small range
        rng.random(n) < 0.3,  # boolean key
        rng.integers(0, int(rng.choice([2, 300, 70_000])), n),  # wide enough for several radix passes
    ][: int(rng.integers(1, 5))]
    kind = seed % 4
    values = (None if kind == 0 else rng.integers(-5, 10 ** int(rng.integers(1, 12)), n) if kind == 1
              else np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 50, n) / 7.0) if kind == 2
              else rng.integers(0, 3, n))
    groups = group_by(keys, values)
    expected = _reference_group_by(keys, values)
    assert np.array_equal(groups.order, expected)
    packed = np.stack([np.asarray(k)[expected] for k in keys])
    boundary = np.flatnonzero(np.any(packed[:, 1:] != packed[:, :-1], axis=0)) + 1
    assert np.array_equal(groups.starts, np.concatenate(([0], boundary)))
    assert groups.counts.sum() == n
    if values is not None:
        shared = group_by(keys, value_order=np.argsort(values, kind="stable"))
        assert np.array_equal(shared.order, expected)


def _random_keys(rng, n):
    return [
        rng.integers(-3, 5, n).astype(np.int32),  # negative codes (period -1)
        np.full(n, 7, dtype=np.int32),  # a constant key
        rng.random(n) < 0.3,  # boolean key
        rng.integers(2**40, 2**40 + int(rng.choice([1, 9, 20_000])), n),  # large values, small range
    ][: int(rng.integers(1, 5))]


@pytest.mark.parametrize("seed", range(30))
def test_sorted_groups_are_group_by_groups_with_their_values_sorted(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    keys = _random_keys(rng, n)
    values = rng.integers(-5, 10 ** int(rng.integers(1, 9)), n)
    found = sorted_groups(keys, values)
    groups = group_by(keys, values)
    assert found is not None
    assert np.array_equal(found.values, values[groups.order])
    assert found.values.dtype == values.dtype
    assert np.array_equal(found.starts, groups.starts)
    assert np.array_equal(found.counts, groups.counts)
    for mine, theirs in zip(found.keys, groups.keys, strict=True):
        assert np.array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype
    # Each row's group number: its position among the groups in key order.
    expected_codes = np.empty(n, dtype=np.int64)
    expected_codes[groups.order] = groups.group_of_sorted_row()
    assert np.array_equal(found.codes, expected_codes)


def test_sorted_groups_leave_what_does_not_fit_to_group_by():
    rng = np.random.default_rng(1)
    keys = [rng.integers(0, 2**30, 100)]
    assert sorted_groups(keys, rng.integers(0, 2**40, 100)) is None  # 30 + 40 bits
    assert sorted_groups(keys, rng.random(100)) is None  # not integers
    assert sorted_groups(keys, np.zeros(0, dtype=np.int64)) is None


@pytest.mark.parametrize("seed", range(30))
def test_dense_groups_are_group_by_groups(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    keys = _random_keys(rng, n)
    found = dense_groups(keys)
    groups = group_by(keys)
    if found is None:  # keys that could take more than 4 values per row and 2**16
        assert np.prod([int(k.max()) - int(k.min()) + 1 for k in keys], dtype=object) > max(4 * n, 2**16)
        return
    assert np.array_equal(found.counts, groups.counts)
    for mine, theirs in zip(found.keys, groups.keys, strict=True):
        assert np.array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype
    whole = rng.integers(-10**6, 10**6, n)
    assert np.array_equal(found.integer_sums(whole), groups.sums(whole))
    assert np.array_equal(found.integer_sums(whole > 0), groups.sums(whole > 0))
    assert np.array_equal(found.mins(whole), groups.mins(whole))
    assert np.array_equal(found.maxs(whole), groups.maxs(whole))


@pytest.mark.parametrize("capacity", [1, 2, 255, 256, 65_536, 65_537, 2**24 + 3, 2**40])
def test_radix_argsort_matches_stable_argsort(capacity):
    keys = np.random.default_rng(capacity % 97).integers(0, capacity, 5000)
    assert np.array_equal(radix_argsort(keys, capacity), np.argsort(keys, kind="stable"))
    assert np.array_equal(stable_value_order(keys - 7), np.argsort(keys, kind="stable"))


def test_sorted_positions_follow_the_mask():
    table, _ = synthetic_table(arm_ratios={"a": 1.0, "b": 0.9}, error_rate=0.2, seed=4)
    for mask in (table.measured_ok, np.ones(len(table), dtype=bool), table.arm == 1, table.measured_ok):
        rows = np.flatnonzero(mask)
        expected = np.argsort(table.total_us[rows], kind="stable")
        assert np.array_equal(table.sorted_positions("total_us", mask), expected)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_sorted_values(side):
    rng = np.random.default_rng(5)
    for _ in range(50):
        values = np.sort(rng.integers(0, int(rng.integers(1, 60)), int(rng.integers(1, 400))))
        edges = np.unique(rng.integers(-3, 70, int(rng.integers(1, 30))).astype(float))
        assert np.array_equal(_searchsorted(edges, values, side, True), np.searchsorted(edges, values, side=side))


def test_bootstrap_does_not_need_sorted_arms():
    # Unsorted arms take the plain searchsorted path; the histograms, hence every draw, are the same.
    rng = np.random.default_rng(2)
    cells = np.repeat(np.arange(12), 400)
    for high in (60, 100_000):  # exact bins, then interpolated bins
        cand, base = rng.integers(1, high, len(cells)), rng.integers(1, high, len(cells))
        sorted_c, sorted_b = np.argsort(cand, kind="stable"), np.argsort(base, kind="stable")
        args = dict(cell_device=np.repeat(np.arange(3), 4), n_boot=300)
        shuffled = hierarchical_ratio_bootstrap(cand, cells, base, cells, rng=np.random.default_rng(9), **args)
        in_order = hierarchical_ratio_bootstrap(cand[sorted_c], cells[sorted_c], base[sorted_b], cells[sorted_b],
                                                rng=np.random.default_rng(9), **args)
        assert np.array_equal(shuffled.log_ratios, in_order.log_ratios)


def test_chunked_product_is_exact():
    rng = np.random.default_rng(1)
    weights = rng.multinomial(48, np.full(48, 1 / 48), size=2000).astype(np.float64)
    cum_hist = np.cumsum(rng.integers(0, 3000, (48, 256)), axis=1).astype(np.float64)
    assert np.array_equal(_product(weights, cum_hist), weights @ cum_hist)


def test_mann_whitney_merge_counts_ties_exactly():
    rng = np.random.default_rng(8)
    for _ in range(30):
        a, b = rng.integers(0, 40, int(rng.integers(100, 900))), rng.integers(0, 40, int(rng.integers(100, 900)))
        u, _ = mann_whitney(a, b)
        pairs = (a[:, None] > b[None, :]).sum() + 0.5 * (a[:, None] == b[None, :]).sum()
        assert u == pairs


def test_payload_ratio_medians_skip_rows_without_rtt():
    table, baselines = synthetic_table(arm_ratios={"a": 1.0, "b": 0.8}, blocks=4, seed=3)
    sizes = np.where(np.arange(len(table)) % 3 == 0, 10_000, 64_000)
    table = dataclasses.replace(table, resp_bytes=sizes)
    # No baseline for block 0: its rows have no RTT multiple.
    keep = baselines.block != 0
    baselines = dataclasses.replace(baselines, **{f.name: getattr(baselines, f.name)[keep]
                                                  for f in dataclasses.fields(baselines)})
    rows = payload_sweep(table, baselines)
    for row in rows:
        arm, size = table.arm_labels.index(row["arm"]), row["resp_bytes"]
        device, profile = table.device_labels.index(row["device"]), table.profile_labels.index(row["profile"])
        sel = ((table.arm == arm) & (table.resp_bytes == size) & (table.device == device)
               & (table.profile == profile) & (table.block != 0))
        expected = np.median(table.total_us[sel] / 50_000.0)
        assert row["median_rtt_multiple"] == pytest.approx(expected, rel=1e-12)


def test_analysis_does_not_depend_on_the_cached_orders():
    table, baselines = synthetic_table(arm_ratios={"a": 1.0, "b": 0.9}, periods=[3, 6], repetitions=2,
                                       first_request_factor=2.0, error_rate=0.01, seed=6)
    first = analyze_comparison(table, baseline_arm="a", baselines=baselines)
    again = analyze_comparison(table, baseline_arm="a", baselines=baselines)  # orders cached on the table
    fresh = analyze_comparison(SampleTable(**{f.name: getattr(table, f.name) for f in dataclasses.fields(table)}),
                               baseline_arm="a", baselines=baselines)
    assert first == again == fresh


@pytest.mark.parametrize("seed", range(20))
def test_row_quantiles_are_numpys_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 60))
    columns = int(rng.choice([1, 2, 3, 7, 2000]))
    values = rng.integers(0, int(rng.choice([3, 1000, 10**9])), (rows, columns)) / 7.0
    for level in (0.95, 0.9, 0.5, 0.99, 1.0):
        alpha = (1.0 - level) / 2.0
        quantiles = (alpha, 1.0 - alpha, 0.5)
        expected = np.quantile(values, quantiles, axis=1)
        for mine, theirs in zip(row_quantiles(values, quantiles), expected, strict=True):
            assert np.array_equal(mine, theirs)
