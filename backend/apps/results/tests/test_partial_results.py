"""A comparison cancelled mid-run keeps what it stored: the blocks are analysed (what the
analysis task runs when the cancel commits), and the results and the verdict say they are
partial, with the blocks planned and stored; a finished comparison's say they are not.
(The real agent stopping on the cancel: apps/comparisons/tests/test_agent_cancel.py.)"""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.comparisons.events import COMPARISON_CANCELLED
from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.core.events import subscribers
from apps.results.handlers import analyse_cancelled_after_commit
from apps.results.models import Analysis
from apps.results.reconcile import STUCK_AFTER, stuck_analyses_claim
from apps.results.services import comparison_analyse
from apps.results.tests.openapi_schemas import schema_errors
from testing.factories import SPEC, run_measured_comparison
from testing.runner_calls import lease

PLANNED = 6


def block(block: int, *, slow: float) -> list[dict[str, Any]]:
    """Both arms, three requests each; the candidate arm (h2) `slow` times the baseline's time."""
    samples = []
    for seq, (arm, step) in enumerate((arm, step) for arm in ("https-h1", "h2") for step in range(3)):
        total = int((20_000 + 300 * step + 100 * block) * (slow if arm == "h2" else 1))
        samples.append({"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3, "repetition": block,
                        "step": step, "wall_time": 1, "t0": 0, "req_start": 10, "resp_first_byte": total // 2,
                        "app_done": total, "resp_bytes": 1000, "conn_reused": True, "error_class": None})
    return samples


def cancelled_after(api, runner_api, org, stored: int) -> str:
    """A comparison of PLANNED blocks cancelled through the API once `stored` blocks were uploaded."""
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "blocks": PLANNED})
    comparison_plan(comparison_id=str(comparison.id))
    leased = lease(runner_api).json()["runs"][0]
    for number in range(stored):
        response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                                   {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": number,
                                    "block": number, "samples": block(number, slow=1.5)}, format="json")
        assert response.status_code == 200, response.content
    assert api.post(f"/api/v1/comparisons/{comparison.id}/cancel").json()["status"] == "cancelled"
    return str(comparison.id)


def test_the_cancel_queues_the_analysis():
    assert analyse_cancelled_after_commit in subscribers(COMPARISON_CANCELLED)


@pytest.mark.django_db
def test_a_cancelled_comparison_keeps_its_stored_blocks_analysed_and_marked_partial(api, runner_api, org):
    comparison_id = cancelled_after(api, runner_api, org, stored=3)
    assert api.get(f"/api/v1/comparisons/{comparison_id}/results").json()["analysis_version"] is None
    analysis = comparison_analyse(comparison_id=comparison_id)
    assert analysis is not None
    assert (analysis.result["partial"], analysis.result["blocks_planned"], analysis.result["blocks_stored"]) == (
        True, PLANNED, 3)
    assert comparison_analyse(comparison_id=comparison_id) is None  # a repeated task adds nothing
    assert Analysis.objects.filter(comparison_id=comparison_id).count() == 1

    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    assert schema_errors("ComparisonResults", results) == []
    assert (results["status"], results["partial"], results["blocks_planned"], results["blocks_stored"]) == (
        "cancelled", True, PLANNED, 3)
    requests = results["groups"][0]["requests"]
    assert (requests["https-h1"]["n"], requests["h2"]["n"]) == (9, 9)  # three blocks × three requests

    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert (verdict["status"], verdict["partial"], verdict["blocks_planned"], verdict["blocks_stored"]) == (
        "cancelled", True, PLANNED, 3)
    assert [(row["arm"], row["blocks"]) for row in verdict["verdicts"]] == [("h2", 3)]
    assert verdict["outcome_reason"].endswith("; PARTIAL: cancelled after 3 of 6 blocks, so these verdicts rest on "
                                              "fewer blocks than planned")


@pytest.mark.django_db
def test_a_comparison_cancelled_before_any_block_says_so(api, runner_api, org):
    comparison_id = cancelled_after(api, runner_api, org, stored=0)
    assert comparison_analyse(comparison_id=comparison_id) is None  # nothing to analyse
    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    assert schema_errors("ComparisonResults", results) == []
    assert (results["partial"], results["blocks_stored"], results["groups"]) == (True, 0, [])
    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()
    assert schema_errors("ComparisonVerdict", verdict) == []
    assert (verdict["outcome"], verdict["verdicts"]) == ("no_data", [])
    assert verdict["outcome_reason"] == "the comparison was cancelled before any of its 6 blocks was stored"


@pytest.mark.django_db
def test_before_its_analysis_the_verdict_of_a_cancelled_comparison_says_it_is_coming(api, runner_api, org):
    comparison_id = cancelled_after(api, runner_api, org, stored=2)
    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()
    assert (verdict["outcome"], verdict["partial"]) == ("no_data", True)
    assert verdict["outcome_reason"] == ("the comparison was cancelled after 2 of 6 blocks; the analysis of those "
                                         "blocks is not stored yet")


@pytest.mark.django_db
def test_a_finished_comparison_is_not_partial(api, runner_api, org):
    finished = run_measured_comparison(runner_api, org, spec=SPEC,
                                       speed={"https-h1": 1.0, "h2": 0.5}, seed=1, blocks=2)
    results = api.get(f"/api/v1/comparisons/{finished.id}/results").json()
    assert (results["partial"], results["blocks_planned"], results["blocks_stored"]) == (False, None, None)
    verdict = api.get(f"/api/v1/comparisons/{finished.id}/verdict").json()
    assert (verdict["partial"], verdict["blocks_planned"], verdict["blocks_stored"]) == (False, None, None)
    assert "PARTIAL" not in verdict["outcome_reason"]


@pytest.mark.django_db
def test_a_lost_partial_analysis_is_claimed_again_and_only_until_it_exists(api, runner_api, org):
    """The analysis task queued by the cancel lived in Redis; if it was lost, reconciliation finds
    the cancelled comparison (blocks stored, no partial analysis) like a stuck analysis."""
    with_blocks = cancelled_after(api, runner_api, org, stored=2)
    nothing_stored = cancelled_after(api, runner_api, org, stored=0)
    assert with_blocks not in stuck_analyses_claim()  # cancelled seconds ago: its task is alive
    long_ago = timezone.now() - STUCK_AFTER - timedelta(minutes=1)
    Comparison.objects.filter(pk__in=[with_blocks, nothing_stored]).update(updated_at=long_ago)
    assert stuck_analyses_claim() == [with_blocks]
    assert stuck_analyses_claim() == []  # touched: the next retry waits another STUCK_AFTER
    assert comparison_analyse(comparison_id=with_blocks) is not None
    Comparison.objects.filter(pk=with_blocks).update(updated_at=long_ago)
    assert stuck_analyses_claim() == []  # analysed: nothing left to claim
