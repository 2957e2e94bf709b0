"""Effect sizes, labels, tests and Holm on small hand-computed inputs."""

import math

import numpy as np
import pytest

from apps.results.analysis import (
    cliffs_delta,
    cliffs_label,
    cohens_d_log,
    cohens_label,
    holm_adjust,
    percentage_gain,
    speedup,
)
from apps.results.analysis.significance import (
    block_t_test,
    blocks_for_t_test,
    mann_whitney,
)


def test_cliffs_delta_by_hand():
    # Pairs (cand > base) = 2, (cand < base) = 5, ties = 2, of 9: δ = (2 − 5) / 9.
    assert cliffs_delta(np.array([1, 2, 3]), np.array([2, 2, 4])) == pytest.approx(-1 / 3)


def test_cliffs_delta_extremes_and_sign():
    assert cliffs_delta(np.array([10, 11]), np.array([1, 2, 3])) == 1.0
    assert cliffs_delta(np.array([1, 2]), np.array([5, 6])) == -1.0
    assert cliffs_delta(np.array([1, 2]), np.array([1, 2])) == 0.0


@pytest.mark.parametrize("delta, label", [
    (0.0, "negligible"), (0.146, "negligible"), (-0.147, "small"), (0.329, "small"),
    (0.33, "medium"), (-0.473, "medium"), (0.474, "large"), (-1.0, "large"),
])
def test_cliffs_label_thresholds(delta, label):
    assert cliffs_label(delta) == label


def test_cohens_d_on_log_by_hand():
    # log values 0,1,2 vs 1,2,3: means differ by −1, both SDs 1 -> d = −1.
    d = cohens_d_log(np.exp([0.0, 1.0, 2.0]), np.exp([1.0, 2.0, 3.0]))
    assert d == pytest.approx(-1.0)
    assert cohens_label(d) == "large"


def test_cohens_d_is_scale_free():
    a, b = np.array([10.0, 20.0, 40.0]), np.array([15.0, 30.0, 45.0])
    assert cohens_d_log(a, b) == pytest.approx(cohens_d_log(a * 1000, b * 1000))


@pytest.mark.parametrize("d, label", [
    (0.19, "negligible"), (0.2, "small"), (-0.5, "medium"), (0.8, "large"), (1.19, "large"),
    (1.2, "very large"), (-2.0, "huge"), (5.0, "huge"),
])
def test_cohens_label_sawilowsky(d, label):
    assert cohens_label(d) == label


def test_holm_by_hand():
    adjusted = holm_adjust(np.array([0.01, 0.04, 0.03, 0.005]))
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_skips_nan():
    adjusted = holm_adjust(np.array([0.6, np.nan, 0.5]))
    assert adjusted[0] == 1.0
    assert adjusted[2] == 1.0
    assert math.isnan(adjusted[1])


def test_gain_and_speedup():
    # seeds/000: an arm at 1/5 of the baseline's time is a 400 % gain, 5×.
    assert percentage_gain(10.0, 2.0) == pytest.approx(400.0)
    assert speedup(10.0, 2.0) == pytest.approx(5.0)
    assert percentage_gain(10.0, 12.5) == pytest.approx(-20.0)


def test_block_t_test_by_hand():
    # Mean 0.2, sd 0.1 over 4 blocks: t = 0.2 / (0.1 / 2) = 4 on 3 degrees of freedom.
    x = np.array([0.1, 0.2, 0.3, 0.2])
    x = 0.2 + (x - x.mean()) * 0.1 / x.std(ddof=1)
    from scipy import stats
    assert block_t_test(x) == pytest.approx(2 * stats.t.sf(4.0, 3))
    assert block_t_test(np.zeros(5)) == 1.0
    assert block_t_test(np.full(3, 0.1)) < 1e-12  # every block the same non-zero effect
    assert block_t_test(np.array([0.5])) == 1.0  # one block cannot be tested
    assert block_t_test(np.array([0.1, np.nan, 0.2, 0.15])) == pytest.approx(block_t_test(np.array([0.1, 0.2, 0.15])))


def test_six_consistent_blocks_reach_any_alpha():
    # The rank test's floor was 2 / 2^6 = 0.031 with 6 blocks; the t-test has none.
    effects = np.log(1.2) + np.array([-0.03, 0.01, 0.02, -0.01, 0.0, 0.015])
    assert block_t_test(effects) < 1e-4


def test_blocks_for_t_test():
    # The smallest n with t(1 − α/2, n − 1) · sd / √n below the effect, checked both sides.
    from scipy import stats
    n = blocks_for_t_test(0.1, 0.2, 0.01)
    assert stats.t.ppf(0.995, n - 1) * 0.2 / math.sqrt(n) < 0.1
    assert stats.t.ppf(0.995, n - 2) * 0.2 / math.sqrt(n - 1) >= 0.1
    assert blocks_for_t_test(0.0, 0.2, 0.01) is None
    assert blocks_for_t_test(0.5, 0.0, 0.01) == 2


def test_mann_whitney_large_path_matches_scipy():
    from scipy import stats
    rng = np.random.default_rng(3)
    a = rng.integers(0, 50, 400)  # many ties
    b = rng.integers(5, 55, 300)
    u, p = mann_whitney(a, b)
    ref = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
    assert u == pytest.approx(ref.statistic)
    assert p == pytest.approx(ref.pvalue, rel=1e-9)
