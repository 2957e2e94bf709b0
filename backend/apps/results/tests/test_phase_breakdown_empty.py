"""A comparison whose every run failed without storing a sample is analysed and ends
`failed` with an empty phase breakdown, instead of the analysis crashing and leaving the
comparison in `analysing`."""

import pytest

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_complete_if_runs_done, comparison_create, comparison_plan
from apps.results.readers.phases import phase_breakdown_loaded
from apps.results.services import comparison_analyse
from apps.results.storage import loader
from testing.factories import SPEC


@pytest.mark.django_db
def test_every_run_failed_without_a_sample(runner_api, org):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    finished = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish", {
        "lease_token": leased["lease_token"], "status": "failed", "error_kind": "test_failure",
        "error": "the harness could not run the job", "fingerprint": {"platform": "host"}}, format="json")
    assert finished.status_code == 200, finished.content
    assert comparison.runs.get().status == Run.Status.FAILED
    assert comparison_complete_if_runs_done(comparison_id=str(comparison.id))

    assert phase_breakdown_loaded(comparison, loader.load_comparison(comparison, phases=True)) == []
    analysis = comparison_analyse(comparison_id=str(comparison.id))
    assert analysis is not None
    assert analysis.result["analysis"]["phases"] == []
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.FAILED
    assert "the harness could not run the job" in comparison.error
