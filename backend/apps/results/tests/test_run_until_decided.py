"""Run until decided through the service: a comparison with `blocks: {min, max}` is planned at
min blocks, leased with that many (the workload's repetitions scaled so every block holds the
same), analysed at each look with the α spent on it, extended on the same device while the
verdict is inconclusive, and finished at the first decided look or at max; every look is
stored and served as the verdict's `history`."""

import math
from collections.abc import Callable

import numpy as np
import pytest

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_complete_if_runs_done, comparison_plan
from apps.results.analysis.sequential import spending_schedule
from apps.results.models import VerdictLook
from apps.results.services import comparison_analyse
from testing.factories import SPEC, run_measured_comparison
from testing.runner_calls import lease

pytestmark = pytest.mark.django_db

RUD_SPEC = {**SPEC, "blocks": {"min": 4, "max": 16}}  # looks at 4, 8, 16 blocks


def _samples(block: int, factor: float, rng: np.random.Generator) -> list[dict]:
    samples, seq = [], 0
    for arm, scale in (("https-h1", 1.0), ("h2", factor)):
        for step in range(3):
            total = int(20_000 * scale * rng.lognormal(0, 0.05))
            samples.append({"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3,
                            "repetition": block, "step": step, "wall_time": 1, "t0": 0, "req_start": 10,
                            "resp_first_byte": total // 2, "app_done": total, "resp_bytes": 1000,
                            "conn_reused": True, "error_class": None})
            seq += 1
    return samples


def run_until_decided(api, runner_api, *, factor: Callable[[int], float], seed: int = 7) -> tuple[Comparison, list]:
    """Create, then lease → upload the leased blocks → finish → look, until the comparison
    ends; `factor(block)` is the h2 arm's time over the baseline's in that block. Returns the
    comparison and every lease payload."""
    rng = np.random.default_rng(seed)
    created = api.post("/api/v1/comparisons", RUD_SPEC, format="json")
    assert created.status_code == 201, created.content
    comparison_id = created.json()["id"]
    assert created.json()["spec"]["blocks"] == {"min": 4, "max": 16}
    comparison_plan(comparison_id=comparison_id)
    leases = []
    for _ in range(5):
        response = lease(runner_api)
        assert response.status_code == 200, response.content
        (leased,) = response.json()["runs"]
        leases.append(leased)
        for block in range(leased["next_block"], leased["spec"]["blocks"]):
            uploaded = runner_api.post(
                f"/api/runner/v1/runs/{leased['run_id']}/samples",
                {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": block,
                 "block": block, "samples": _samples(block, factor(block), rng)}, format="json")
            assert uploaded.status_code == 200, uploaded.content
        finished = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                                   {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
        assert finished.status_code == 200, finished.content
        assert comparison_complete_if_runs_done(comparison_id=comparison_id)
        comparison_analyse(comparison_id=comparison_id)
        comparison = Comparison.objects.get(pk=comparison_id)
        if comparison.status in Comparison.TERMINAL:
            return comparison, leases
        assert comparison.status == Comparison.Status.RUNNING
    raise AssertionError("more looks than the schedule has")


def test_a_large_effect_stops_at_the_first_look(api, runner_api):
    comparison, leases = run_until_decided(api, runner_api, factor=lambda block: 3.0)
    assert comparison.status == "finished"
    (leased,) = leases
    # The runner gets an int: the run's blocks now, with one repetition per block (ceil(2 / 4)).
    assert leased["spec"]["blocks"] == 4
    assert leased["spec"]["workload"]["repetitions"] == 4
    assert comparison.runs.get().blocks_total == 4

    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert verdict["outcome"] == "regression"
    (look,) = verdict["history"]
    first_alpha = spending_schedule(4, 16, 0.01)[0][1]
    assert (look["look"], look["blocks_per_device"], look["outcome"], look["decision"]) == (1, 4, "regression", "stop")
    assert math.isclose(look["alpha"], first_alpha)
    assert math.isclose(verdict["gate"]["alpha"], first_alpha)
    assert look["p_value"] < first_alpha
    assert look["ci95"][0] > 1.05
    assert look["ratio"] > 2
    assert look["verdicts"][0]["arm"] == "h2"
    assert look["verdicts"][0]["outcome"] == "regression"
    assert verdict["verdicts"][0]["blocks"] == 4


def test_no_decision_runs_to_max_on_the_same_device(api, runner_api):
    # Blocks alternate between h2 30 % slower and 23 % faster: mean ≈ 1, too spread for
    # equivalence within ±5 % and nowhere near significant. Inconclusive at every look.
    comparison, leases = run_until_decided(api, runner_api, factor=lambda block: 1.3 if block % 2 else 1 / 1.3)
    assert comparison.status == "finished"
    assert [(x["next_block"], x["spec"]["blocks"]) for x in leases] == [(0, 4), (4, 8), (8, 16)]
    assert len({x["run_id"] for x in leases}) == 1
    assert len({x["device_serial"] for x in leases}) == 1
    run = comparison.runs.get()
    assert (run.status, run.blocks_total, run.next_block, run.blocks.count()) == (Run.Status.DONE, 16, 16, 16)

    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert verdict["outcome"] == "inconclusive"
    history = verdict["history"]
    assert [(h["look"], h["blocks_per_device"], h["outcome"], h["decision"]) for h in history] == [
        (1, 4, "inconclusive", "continue"), (2, 8, "inconclusive", "continue"), (3, 16, "inconclusive", "stop")]
    assert math.isclose(sum(h["alpha"] for h in history), 0.01)
    assert verdict["verdicts"][0]["blocks"] == 16
    assert VerdictLook.objects.filter(comparison=comparison).count() == 3

    detail = api.get(f"/api/v1/comparisons/{comparison.id}").json()
    assert detail["progress"]["blocks_min"] == 4
    assert detail["progress"]["blocks_max"] == 16
    assert detail["progress"]["blocks_total"] == 16


def test_a_fixed_block_comparison_has_no_history(api, runner_api, org):
    comparison = run_measured_comparison(runner_api, org, spec={**SPEC, "blocks": 4},
                                         speed={"https-h1": 1.0, "h2": 1.0}, seed=3, blocks=4)
    verdict = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert verdict["history"] == []
    progress = api.get(f"/api/v1/comparisons/{comparison.id}").json()["progress"]
    assert progress["blocks_min"] == progress["blocks_max"] == progress["blocks_total"] == 4


def test_history_is_served_while_running(api, runner_api):
    created = api.post("/api/v1/comparisons", {**RUD_SPEC, "blocks": "auto"}, format="json").json()
    assert created["spec"]["blocks"] == {"min": 6, "max": 24}
    history = api.get(f"/api/v1/comparisons/{created['id']}/verdict/history").json()
    assert history == {"comparison": created["id"], "status": "queued", "blocks_min": 6, "blocks_max": 24,
                       "history": []}
    assert api.get(f"/api/v1/comparisons/{created['id']}/verdict").status_code == 409
