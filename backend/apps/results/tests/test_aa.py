"""A/A mode: one arm measured twice. Spec normalization, its validation errors, and the
per-pool report of the empirical false-positive rate."""

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.comparisons.spec import normalize_spec
from apps.devices.services import pool_get_or_create
from apps.results.models import Analysis
from apps.results.readers.aa import wilson_interval
from testing.factories import run_measured_comparison

AA = {"name": "aa", "mode": "aa", "workload": {"kind": "api", "rounds": 2, "calls": 2},
      "arms": [{"label": "h3", "protocol": "h3", "connection": "cold", "endpoint": "https://api.example.com"}]}


def test_aa_spec_duplicates_the_one_arm_with_the_first_as_baseline():
    spec = normalize_spec(AA)
    assert spec["mode"] == "aa"
    assert spec["baseline_arm"] == "h3"
    first, again = spec["arms"]
    assert first["label"] == "h3"
    assert again["label"] == "h3-again"
    assert {**again, "label": "h3"} == first  # same protocol, connection, endpoint
    assert first["endpoint"] == "https://api.example.com"
    assert first["connection"] == "cold"
    assert normalize_spec({**AA, "baseline_arm": "h3"})["baseline_arm"] == "h3"


def test_mode_defaults_to_ab_and_leaves_arms_alone():
    spec = normalize_spec({k: v for k, v in AA.items() if k != "mode"})
    assert spec["mode"] == "ab"
    assert [a["label"] for a in spec["arms"]] == ["h3"]


def test_aa_calibration_preset():
    spec = normalize_spec({"preset": "aa-calibration"})
    assert spec["mode"] == "aa"
    assert spec["blocks"] == 8
    assert [(a["label"], a["protocol"], a["connection"]) for a in spec["arms"]] == [
        ("h2", "h2", "warm"), ("h2-again", "h2", "warm")]
    assert spec["workload"]["kind"] == "series"
    assert spec["workload"]["objects"] == "seed-mid-24"
    # Overriding the arm keeps A/A: still one arm given, measured twice.
    spec = normalize_spec({"preset": "aa-calibration", "arms": [{"label": "tls13", "protocol": "h1"}]})
    assert [a["label"] for a in spec["arms"]] == ["tls13", "tls13-again"]
    assert spec["baseline_arm"] == "tls13"


BAD_AA = [
    ({**AA, "mode": "abba"}, ["mode"], "not a valid choice"),
    ({**AA, "arms": [{"label": "a", "protocol": "h2"}, {"label": "b", "protocol": "h2"}]}, ["arms"],
     "exactly one arm"),
    ({**AA, "arms": []}, ["arms"], "at least 1"),
    ({**AA, "baseline_arm": "h3-again"}, ["baseline_arm"], "the baseline is the arm 'h3'"),
    ({**AA, "arms": [{"label": "x" * 60, "protocol": "h2"}]}, ["arms", "0", "label"], "at most 58"),
    ({**AA, "arms": [{"label": "a", "protocol": "spdy"}]}, ["arms", "0", "protocol"], "not a valid choice"),
    ({"preset": "mid-image-series", "mode": "aa"}, ["arms"], "exactly one arm"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("spec, path, message", BAD_AA)
def test_bad_aa_specs_name_the_field(api, pool, spec, path, message):
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        node = node[key]
    assert message in str(node)
    assert Comparison.objects.count() == 0


def test_wilson_interval():
    assert wilson_interval(0, 0) is None
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(1, 20)
    assert (low, high) == (pytest.approx(0.00889, abs=1e-4), pytest.approx(0.2361, abs=1e-4))


def stored(org, outcomes, *, spec=None, status="finished"):
    comparison = comparison_create(organization=org, submitted_spec=spec or {**AA, "name": f"aa {outcomes}"})
    rows = [{"metric": "total_ms", "verdict": {"outcome": o}} for o in outcomes]
    rows.append({"metric": "ttfb_ms", "verdict": {"outcome": "regression"}})  # not the gate metric
    Analysis.objects.create(comparison=comparison, version=1, engine="t", result={"analysis": {"comparisons": [
        {"metric": "total_ms", "verdict": {"outcome": "regression"}}]}})  # superseded by version 2
    Analysis.objects.create(comparison=comparison, version=2, engine="t", result={"analysis": {"comparisons": rows}})
    Comparison.objects.filter(pk=comparison.pk).update(status=status)
    return comparison


@pytest.mark.django_db
def test_aa_report_counts_false_positives_per_pool(api, org, other_org, pool):
    pool_get_or_create(organization=other_org, slug="local", name="theirs")
    pool_get_or_create(organization=org, slug="lab-2", name="Lab 2")
    a = stored(org, ["equivalent", "equivalent"])
    b = stored(org, ["regression", "inconclusive"])
    c = stored(org, ["improvement", "equivalent"])
    stored(org, ["regression"], status="running")  # not finished
    stored(org, ["regression"], spec={**AA, "mode": "ab"})  # an A/B comparison
    stored(org, ["regression"], spec={**AA, "devices": {"pool": "lab-2"}})  # another pool
    stored(other_org, ["regression"])  # another organization
    body = api.get("/api/v1/pools/local/aa-report").json()
    assert {k: v for k, v in body.items() if k not in ("latest", "false_positive_rate_ci95")} == {
        "pool": "local", "comparisons": 3, "verdicts": 6, "false_positives": 2,
        "false_positive_rate": pytest.approx(2 / 6), "regression": 1, "improvement": 1, "equivalent": 3,
        "inconclusive": 1,
    }
    low, high = body["false_positive_rate_ci95"]
    assert (low, high) == (pytest.approx(wilson_interval(2, 6)[0]), pytest.approx(wilson_interval(2, 6)[1]))
    assert [(x["id"], x["outcomes"]) for x in body["latest"]] == [
        (str(c.id), ["improvement", "equivalent"]), (str(b.id), ["regression", "inconclusive"]),
        (str(a.id), ["equivalent", "equivalent"])]
    assert body["latest"][0]["metric"] == "total_ms"
    assert body["latest"][0]["created_at"]
    empty = api.get("/api/v1/pools/lab-2/aa-report").json()
    assert empty["comparisons"] == 1
    assert empty["false_positive_rate"] == 1.0


@pytest.mark.django_db
def test_aa_report_of_an_empty_unknown_or_foreign_pool(api, org, other_org, pool):
    pool_get_or_create(organization=other_org, slug="globex-lab", name="theirs")
    body = api.get("/api/v1/pools/local/aa-report").json()
    assert body["comparisons"] == 0
    assert body["verdicts"] == 0
    assert body["false_positive_rate"] is None
    assert body["false_positive_rate_ci95"] is None
    assert body["latest"] == []
    assert api.get("/api/v1/pools/nope/aa-report").status_code == 404
    assert api.get("/api/v1/pools/globex-lab/aa-report").status_code == 404


@pytest.mark.django_db
def test_aa_report_on_an_analysed_aa_run(api, org, runner_api):
    """Samples of one arm measured twice go through the real analysis: the verdict on
    h2-again vs h2 is not a regression or an improvement, and the report counts it."""
    comparison = run_measured_comparison(runner_api, org, spec={
        "name": "weekly a/a", "preset": "aa-calibration", "workload": {"periods": [3], "repetitions": 10},
        "blocks": 10, "seed": 4}, speed={"h2": 1.0, "h2-again": 1.0}, seed=5)
    body = api.get("/api/v1/pools/local/aa-report").json()
    assert body["comparisons"] == 1
    assert body["verdicts"] == 1
    [latest] = body["latest"]
    assert latest["id"] == str(comparison.id)
    assert latest["outcomes"][0] in ("equivalent", "inconclusive")
    assert body["false_positives"] == 0
    assert body["false_positive_rate"] == 0.0
