"""The CI gate over the API: verdicts inside a comparison and against a baseline
comparison found by branch, on samples uploaded through the runner protocol."""

import numpy as np
import pytest

from apps.comparisons.models import Comparison
from testing.factories import run_measured_comparison

SPEC = {"name": "gate", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3], "repetitions": 10},
        "blocks": 10, "seed": 9}


def run_comparison(runner_api, org, *, speed: dict[str, float], tags: dict[str, str], seed: int) -> Comparison:
    return run_measured_comparison(runner_api, org, spec={**SPEC, "tags": tags}, speed=speed, seed=seed)


@pytest.mark.django_db
def test_verdict_inside_a_comparison_finds_the_faster_arm(api, org, runner_api):
    comparison = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 0.5}, tags={}, seed=1)
    body = api.get(f"/api/v1/comparisons/{comparison.id}/verdict").json()
    assert body["outcome"] == "improvement"
    assert body["baseline"]["arm"] == "https-h1"
    [verdict] = body["verdicts"]
    assert verdict["arm"] == "h2"
    assert verdict["outcome"] == "improvement"
    assert 0.45 < verdict["ratio"] < 0.55
    assert verdict["ci95"][1] < 0.95
    assert verdict["cliffs_delta"] < -0.474
    assert verdict["p_adjusted"] < 0.01
    assert verdict["summary"].startswith("h2 (series time) vs https-h1, host-lab-1 / none: median −")


@pytest.mark.django_db
def test_verdict_against_the_latest_run_on_main(api, org, runner_api):
    main = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 1.0}, tags={"branch": "main"}, seed=2)
    pr = run_comparison(runner_api, org, speed={"https-h1": 1.0, "h2": 1.3}, tags={"branch": "feature"}, seed=3)
    body = api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:main").json()
    assert body["baseline"] == {"kind": "comparison", "comparison": str(main.id), "arm": None, "ref": "branch:main"}
    by_arm = {v["arm"]: v for v in body["verdicts"]}
    assert by_arm["h2"]["outcome"] == "regression"
    assert by_arm["h2"]["baseline_comparison"] == str(main.id)
    assert by_arm["https-h1"]["outcome"] in ("equivalent", "inconclusive")
    assert body["outcome"] == "regression"
    assert "vs h2 (branch:main)" in by_arm["h2"]["summary"]
    # A branch with no finished run of the same spec, a malformed reference, an unfinished comparison.
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:nope").status_code == 404
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=bogus").status_code == 400
    Comparison.objects.filter(pk=pr.pk).update(status="running")
    assert api.get(f"/api/v1/comparisons/{pr.id}/verdict").status_code == 409


@pytest.mark.django_db
def test_one_holm_family_in_both_verdict_modes(api, org, runner_api):
    """The same question (is h2 slower than these requests?) gets the same adjusted p, CI
    and verdict whether the baseline is an arm of the comparison or an earlier comparison."""
    rng = np.random.default_rng(5)
    base = 20_000 * rng.lognormal(0, 0.1, (10, 3))
    slower = 21_000 * rng.lognormal(0, 0.1, (10, 3))
    speed = {"https-h1": 1.0, "h2": 1.0}

    def run(times: dict, tags: dict) -> Comparison:
        return run_measured_comparison(runner_api, org, spec={**SPEC, "tags": tags}, speed=speed, seed=0,
                                       times=times)

    inside = run({"https-h1": base, "h2": slower}, {})
    run({"https-h1": base, "h2": base}, {"branch": "main"})
    pr = run({"https-h1": base, "h2": slower}, {"branch": "pr"})
    [within] = api.get(f"/api/v1/comparisons/{inside.id}/verdict").json()["verdicts"]
    across = {v["arm"]: v for v in api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:main").json()[
        "verdicts"]}["h2"]
    same = ("ratio", "ci95", "ci90", "p_value", "p_adjusted", "outcome", "reason", "margin", "cliffs_delta",
            "more_blocks_needed", "blocks_to_decide")
    assert {k: within[k] for k in same} == {k: across[k] for k in same}
    # The stored analysis also judges TTFB; that is another question with its own family.
    assert within["p_adjusted"] == within["p_value"]
