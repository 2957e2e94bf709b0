"""A verdict against another comparison is computed from both comparisons' samples once per
pair of analyses, then served from the cache until either comparison is analysed again."""

import pytest

from apps.results.models import Analysis, BlockColumns, Sample
from testing.factories import run_measured_comparison

SPEC = {"name": "gate", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3], "repetitions": 10},
        "blocks": 10, "seed": 9}


@pytest.mark.django_db
def test_a_verdict_against_a_baseline_follows_the_analyses_not_each_request(api, org, runner_api):
    main = run_measured_comparison(runner_api, org, spec={**SPEC, "tags": {"branch": "main"}},
                                   speed={"https-h1": 1.0, "h2": 1.0}, seed=2)
    pr = run_measured_comparison(runner_api, org, spec={**SPEC, "tags": {"branch": "pr"}},
                                 speed={"https-h1": 1.0, "h2": 1.3}, seed=3)
    url = f"/api/v1/comparisons/{pr.id}/verdict?baseline=branch:main"
    first = api.get(url).json()
    assert first["outcome"] == "regression"
    # The baseline's samples gone without a new analysis of it: the same pair of analyses,
    # so the same answer (computing it now would find nothing to compare).
    Sample.objects.filter(run__comparison=main).delete()
    BlockColumns.objects.filter(run__comparison=main).delete()
    assert api.get(url).json() == first
    # Another ref to the same comparison is another question (its summaries name the ref).
    by_id = api.get(f"/api/v1/comparisons/{pr.id}/verdict?baseline={main.id}").json()
    assert (by_id["outcome"], by_id["verdicts"]) == ("no_data", [])
    # A new analysis of the baseline: computed again, from what is stored now.
    latest = Analysis.objects.filter(comparison=main).order_by("-version").first()
    Analysis.objects.create(comparison=main, version=latest.version + 1, engine=latest.engine, result=latest.result)
    again = api.get(url).json()
    assert (again["outcome"], again["verdicts"]) == ("no_data", [])
    assert again["outcome_reason"].startswith(f"no arm of this comparison could be compared with the same-named arm "
                                              f"of comparison {main.id} (branch:main)")


@pytest.mark.django_db
def test_the_verdict_within_follows_a_new_analysis(api, org, runner_api):
    comparison = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.5}, seed=1)
    url = f"/api/v1/comparisons/{comparison.id}/verdict"
    assert api.get(url).json()["outcome"] == "improvement"
    latest = Analysis.objects.get(comparison=comparison)
    rows = latest.result["analysis"]["comparisons"]
    flipped = [{**row, "verdict": {**row["verdict"], "outcome": "regression"}} for row in rows]
    Analysis.objects.create(comparison=comparison, version=2, engine=latest.engine,
                            result={**latest.result, "analysis": {**latest.result["analysis"], "comparisons": flipped}})
    assert api.get(url).json()["outcome"] == "regression"
