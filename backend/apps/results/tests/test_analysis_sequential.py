"""Run until decided: the looks, the α spent at each, and stopping at the first decided look."""

import pytest

from apps.results.analysis import VerdictConfig, synthetic_table
from apps.results.analysis.calibration import first_blocks, simulate_sequential
from apps.results.analysis.sequential import look_points, run_until_decided, spending_schedule


def test_looks_double_from_min_to_max():
    assert look_points(6, 40) == [6, 12, 24, 40]
    assert look_points(6, 48) == [6, 12, 24, 48]
    assert look_points(6, 6) == [6]
    with pytest.raises(ValueError, match="min_blocks <= max_blocks"):
        spending_schedule(10, 6, 0.01)


def test_alpha_is_spent_once_over_the_looks_mostly_at_the_end():
    schedule = spending_schedule(6, 40, 0.01)
    alphas = [a for _, a in schedule]
    assert sum(alphas) == pytest.approx(0.01)
    assert all(a > 0 for a in alphas)
    assert alphas == sorted(alphas)
    # α·t²: the first look (6 of 40 blocks) gets 0.01 · 0.15², the last what is left.
    assert alphas[0] == pytest.approx(0.01 * (6 / 40) ** 2)
    assert alphas[-1] == pytest.approx(0.01 * (1 - 0.6**2))
    assert spending_schedule(6, 6, 0.01) == [(6, 0.01)]


def test_stops_at_the_first_decided_look_and_keeps_the_history():
    seen = []

    def judge(n, config):
        seen.append((n, config.alpha))
        return "regression" if n >= 24 else "inconclusive"

    result = run_until_decided(judge, min_blocks=6, max_blocks=40, config=VerdictConfig())
    assert (result.outcome, result.blocks_per_device) == ("regression", 24)
    assert [(look.blocks_per_device, look.outcome) for look in result.history] == [
        (6, "inconclusive"), (12, "inconclusive"), (24, "regression")]
    assert seen == [(n, a) for n, a in spending_schedule(6, 40, 0.01)[:3]]


def test_undecided_at_max_is_inconclusive_after_every_look():
    result = run_until_decided(lambda n, c: "inconclusive", min_blocks=6, max_blocks=40, config=VerdictConfig())
    assert result.outcome == "inconclusive"
    assert result.blocks_per_device == 40
    assert len(result.history) == 4


def test_first_blocks_keeps_each_devices_first_blocks():
    table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": 1.0}, devices=2, blocks=10, seed=1)
    head = first_blocks(table, 4)
    assert set(head.block.tolist()) == {0, 1, 2, 3}
    assert len(head.arm) == len(table.arm) * 4 // 10
    assert head.arm_labels == table.arm_labels


def test_a_large_effect_stops_at_the_first_look():
    r = simulate_sequential(true_ratio=2.0, comparisons=3, devices=1, seed=4)
    assert r.outcomes == {"regression": 3}
    assert r.mean_blocks_per_device == 6
