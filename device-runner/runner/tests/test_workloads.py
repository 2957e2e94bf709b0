"""The workload planner: every seed workload expands to the right requests, arms are
interleaved (ABBA) in a seeded order, and a block's plan never changes (resumption)."""

import collections

import pytest

from latencylab_runner.workloads.plan import arm_order, plan_block

ARMS = [{"label": "a", "protocol": "h1"}, {"label": "b", "protocol": "h2"}]


def spec(workload, blocks=2, arms=ARMS):
    return {"workload": workload, "arms": arms, "blocks": blocks, "seed": 42}


def test_series_block_has_warmups_then_periods_with_abba_interleaving():
    s = spec({"kind": "series", "objects": "seed-mid-24", "periods": [3, 30], "repetitions": 4, "warmup": 1})
    plan = plan_block(s, run_id="r1", block=1)
    warmups = [p for p in plan if p.phase == "warmup"]
    assert sorted(p.arm for p in warmups) == ["a", "b"]
    assert all(p.path == "/files/mid-01" for p in warmups)
    measured = [p for p in plan if p.phase == "measure"]
    # Block 1 of 2 holds repetitions 1 and 3 of every period.
    assert sorted({p.repetition for p in measured}) == [1, 3]
    period3 = [p for p in measured if p.period == 3]
    series_arms = [p.arm for p in period3[::3]]
    first, second = series_arms[:2]
    assert first != second
    assert series_arms == [first, second, second, first]  # A B, then B A on the next repetition
    # Period 30 wraps after the 24th image.
    period30 = [p.path for p in measured if p.period == 30 and p.arm == "a" and p.repetition == 1]
    assert period30[23] == "/files/mid-24"
    assert period30[24] == "/files/mid-01"
    assert len(period30) == 30


def test_plan_is_deterministic_per_block_and_varies_across_blocks():
    s = spec({"kind": "series", "objects": "seed-mid-24", "periods": [3], "repetitions": 8, "warmup": 1}, blocks=8)
    assert plan_block(s, run_id="r1", block=3) == plan_block(s, run_id="r1", block=3)
    orders = {tuple(arm_order(["a", "b", "c"], seed=42, run_id="r1", block=b)) for b in range(8)}
    assert len(orders) > 1


def test_api_rounds_start_on_a_fresh_connection():
    s = spec({"kind": "api", "rounds": 5, "calls": 5, "request_bytes": 64, "warmup": 0}, blocks=1)
    plan = plan_block(s, run_id="r", block=0)
    assert len(plan) == 5 * 5 * 2
    firsts = [p for p in plan if p.new_connection]
    assert len(firsts) == 10
    assert all(p.step == 0 for p in firsts)
    assert all(p.method == "POST" and p.path == "/echo" and p.body_bytes == 64 for p in plan)


def test_mixed_adds_downloads_then_api_calls_on_the_same_connection():
    s = spec({"kind": "mixed", "rounds": 2, "calls": 5, "request_bytes": 64, "files": "seed-unity-5", "warmup": 0},
             blocks=1)
    plan = plan_block(s, run_id="r", block=0)
    part_b = [p for p in plan if p.part == "B" and p.arm == "a" and p.repetition == 0]
    assert [p.op for p in part_b] == ["file"] * 5 + ["echo"] * 5
    assert [p.new_connection for p in part_b] == [True] + [False] * 9
    assert part_b[0].path == "/files/unity-1"


def test_delay_sweep_covers_every_step_for_every_trial():
    s = spec({"kind": "delay_sweep", "start_ms": 0, "stop_ms": 1000, "step_ms": 25, "trials": 10, "warmup": 1},
             blocks=2)
    measured = [p for b in (0, 1) for p in plan_block(s, run_id="r", block=b) if p.phase == "measure"]
    per_delay = collections.Counter((p.arm, p.server_delay_ms) for p in measured)
    assert len(per_delay) == 41 * 2
    assert set(per_delay.values()) == {10}
    assert all(p.path == f"/delay/{int(p.server_delay_ms)}" for p in measured)


def test_payload_sweep_sends_the_request_body_size():
    s = spec({"kind": "payload_sweep", "request_bytes": 800, "sizes": [1000, 35000], "repetitions": 2,
              "warmup": 0}, blocks=1)
    plan = plan_block(s, run_id="r", block=0)
    assert {(p.path, p.body_bytes, p.method) for p in plan} == {("/bytes/1000", 800, "POST"),
                                                                 ("/bytes/35000", 800, "POST")}
    assert len(plan) == 2 * 2 * 2


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown workload kind 'nope'"):
        plan_block(spec({"kind": "nope"}), run_id="r", block=0)
