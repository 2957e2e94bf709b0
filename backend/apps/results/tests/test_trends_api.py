"""Trends across comparisons and the dashboard's home, over the API, from analyses the real
engine stored for comparisons measured through the runner protocol."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import pool_get_or_create
from apps.results.models import Analysis
from apps.results.readers.trends import device_verdict_row
from testing.factories import run_measured_comparison

SPEC = {"name": "trend", "preset": "mid-image-series",
        "workload": {"kind": "series", "periods": [3], "repetitions": 6, "concurrency": "sequential"},
        "blocks": 6, "seed": 4}


def measured(runner_api, org, *, h2: float, tags: dict[str, str], seed: int, name: str = "trend") -> Comparison:
    return run_measured_comparison(runner_api, org, spec={**SPEC, "name": name, "tags": tags},
                                   speed={"https-h1": 1.0, "h2": h2}, seed=seed, blocks=6)


@pytest.fixture
def branch(api, org, runner_api):
    """Three comparisons on main (h2 as fast as https-h1, then slower, then faster) and one on
    another branch; the stored analyses are the engine's own."""
    return [
        measured(runner_api, org, h2=1.0, tags={"branch": "main", "commit": "aaa111", "version": "1.0"}, seed=1),
        measured(runner_api, org, h2=1.6, tags={"branch": "main", "commit": "bbb222", "version": "1.1"}, seed=2),
        measured(runner_api, org, h2=0.5, tags={"branch": "main", "commit": "ccc333", "version": "1.2"}, seed=3),
        measured(runner_api, org, h2=1.0, tags={"branch": "feature", "commit": "ddd444"}, seed=4),
    ]


def client_of(organization) -> APIClient:
    client = APIClient()
    _, secret = api_token_create(organization=organization, name="other", scopes=["read"])
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.mark.django_db
def test_a_trend_marks_each_comparison_with_its_verdict(api, branch):
    body = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()
    points = body["points"]
    assert [p["comparison_id"] for p in points] == [str(c.id) for c in branch[:3]]
    assert [p["commit"] for p in points] == ["aaa111", "bbb222", "ccc333"]
    assert [p["version"] for p in points] == ["1.0", "1.1", "1.2"]
    assert points[0]["verdict"] in ("equivalent", "inconclusive")
    assert points[1]["verdict"] == "regression"
    assert points[2]["verdict"] == "improvement"
    # A series is 3 requests of 20 ms × the arm's factor: the median request time follows it.
    assert 17 < points[0]["value"] < 23
    assert 27 < points[1]["value"] < 37
    assert 8 < points[2]["value"] < 12
    for p in points:
        low, high = p["ci95"]
        assert low <= p["value"] <= high
        assert p["n"] == 18
        assert p["failed_requests"] == 0
        assert (p["device"], p["device_model"], p["platform"], p["profile"]) == ("host-lab-1", "test", "host", "none")
        assert p["baseline_arm"] == "https-h1"
    assert points[1]["change_pct"] > 30
    assert body["limit"] == 500
    assert body["truncated"] is False
    assert (body["metric"], body["statistic"], body["unit"]) == ("total_ms", "median", "ms")

    # The baseline arm's own trend: its values, marked as the baseline.
    baseline = api.get("/api/v1/trends", {"arm": "https-h1", "branch": "main"}).json()["points"]
    assert [p["verdict"] for p in baseline] == ["baseline"] * 3
    # Without a branch: every comparison; other statistics have no CI.
    p90 = api.get("/api/v1/trends", {"arm": "h2", "statistic": "p90"}).json()["points"]
    assert len(p90) == 4
    assert all(p["ci95"] is None and p["value"] > 0 for p in p90)


@pytest.mark.django_db
def test_a_point_measured_on_the_phone_simulator_says_so(api, branch):
    """A run whose device announced itself as the simulator's JVM stand-in (the runner's
    device fingerprint) is marked; so is one whose harness said it ran on a JVM."""
    Run.objects.filter(comparison=branch[1]).update(fingerprint={"platform": "host", "device": {"stand_in": "jvm"}})
    Run.objects.filter(comparison=branch[2]).update(
        fingerprint={"platform": "android", "harness_version": "latencylab-harness 0.1.0 (jvm)"})
    points = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    assert [p["stand_in"] for p in points] == [None, "jvm", "jvm"]


@pytest.mark.django_db
def test_a_trend_of_series_time_follows_the_gates_metric(api, branch):
    """The series' own gate metric: each point is the arm's median series time over every
    period of the run (from the analysis's group_times), with the series-time verdict."""
    body = api.get("/api/v1/trends", {"arm": "h2", "branch": "main", "metric": "series_ms"}).json()
    points = body["points"]
    assert [p["comparison_id"] for p in points] == [str(c.id) for c in branch[:3]]
    assert [p["verdict"] for p in points[1:]] == ["regression", "improvement"]
    # A sequential series of 3 requests of 20 ms × the arm's factor takes their sum.
    assert 50 < points[0]["value"] < 70
    assert 85 < points[1]["value"] < 110
    assert 25 < points[2]["value"] < 35
    assert {p["n"] for p in points} == {6}  # one series of 3 per block, 6 blocks
    assert all(p["verdict_summary"].startswith("h2 (series time) vs https-h1") for p in points)
    assert body["metric"] == "series_ms"
    # A series workload has no page load to follow: no point, no error.
    assert api.get("/api/v1/trends", {"arm": "h2", "branch": "main", "metric": "page_load_ms"}).json()[
        "points"] == []


@pytest.mark.django_db
def test_filters_narrow_the_points(api, branch):
    def count(**params) -> int:
        response = api.get("/api/v1/trends", {"arm": "h2", "branch": "main", **params})
        assert response.status_code == 200, response.content
        return len(response.json()["points"])

    assert count(device_model="test", platform="host", profile="none") == 3
    assert count(device_model="Pixel 8") == 0
    assert count(platform="ios") == 0
    assert count(profile="lte") == 0
    assert count(branch="feature") == 1
    assert count(branch="nope") == 0
    assert count(since="2999-01-01") == 0
    assert count(since="2000-01-01T00:00:00Z") == 3
    # TTFB has no whole-run row in a workload with periods: no points rather than per-period ones.
    assert count(metric="ttfb_ms") == 0
    assert api.get("/api/v1/trends", {"arm": "h9"}).json()["points"] == []


@pytest.mark.django_db
def test_a_failed_comparison_is_left_out_and_has_no_headline_verdict(api, branch):
    Comparison.objects.filter(pk=branch[1].pk).update(status=Comparison.Status.FAILED)
    points = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    assert [p["commit"] for p in points] == ["aaa111", "ccc333"]
    recent = {c["id"]: c for c in api.get("/api/v1/home").json()["recent"]}
    assert recent[str(branch[1].id)]["headline_verdict"] is None
    assert recent[str(branch[2].id)]["headline_verdict"] == "improvement"


@pytest.mark.django_db
def test_order_by_commit_keeps_a_commits_comparisons_together(api, org, runner_api, branch):
    rerun = measured(runner_api, org, h2=1.0, tags={"branch": "main", "commit": "aaa111"}, seed=5)
    by_time = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    by_commit = api.get("/api/v1/trends", {"arm": "h2", "branch": "main", "order": "commit"}).json()["points"]
    assert [p["commit"] for p in by_time] == ["aaa111", "bbb222", "ccc333", "aaa111"]
    assert [p["commit"] for p in by_commit] == ["aaa111", "aaa111", "bbb222", "ccc333"]
    assert by_commit[1]["comparison_id"] == str(rerun.id)


@pytest.mark.django_db
def test_csv_has_one_row_per_point(api, branch):
    response = api.get("/api/v1/trends.csv", {"arm": "h2", "branch": "main"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="latencylab-trend-h2-total_ms.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["commit"] for r in rows] == ["aaa111", "bbb222", "ccc333"]
    assert rows[1]["verdict"] == "regression"
    json_points = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    assert [float(r["median_total_ms"]) for r in rows] == pytest.approx([p["value"] for p in json_points])
    assert float(rows[0]["ci95_low"]) == pytest.approx(json_points[0]["ci95"][0])
    assert api.get("/api/v1/trends.csv", {"arm": "h2", "order": "alphabetical"}).status_code == 400


@pytest.mark.django_db
def test_bad_parameters_are_refused_naming_the_parameter_and_allowed_values(api, branch):
    def refused(**params) -> dict:
        response = api.get("/api/v1/trends", params)
        assert response.status_code == 400, response.content
        return response.json()

    assert "total_ms, ttfb_ms" in refused(arm="h2", metric="latency")["metric"][0]
    assert "median, mean, p90, p95, p99" in refused(arm="h2", statistic="max")["statistic"][0]
    assert "time, commit" in refused(arm="h2", order="alphabetical")["order"][0]
    assert "android, ios, host" in refused(arm="h2", platform="windows")["platform"][0]
    assert "ISO 8601" in refused(arm="h2", since="last tuesday")["since"][0]
    assert "arm: required" in refused()["arm"][0]


@pytest.mark.django_db
def test_options_list_what_the_filters_can_choose(api, branch):
    body = api.get("/api/v1/trends/options").json()
    assert body["branches"] == ["feature", "main"]
    assert body["arms"] == ["h2", "https-h1"]
    assert body["baseline_arms"] == ["https-h1"]
    assert body["device_models"] == [{"platform": "host", "model": "test"}]
    assert body["profiles"] == ["none"]
    assert body["metrics"] == ["total_ms", "ttfb_ms", "series_ms", "page_load_ms"]
    assert body["comparisons"] == 4
    assert api.get("/api/v1/trends/options", {"branch": "main"}).json()["comparisons"] == 3
    assert api.get("/api/v1/trends/options", {"branch": "nope"}).json()["arms"] == []


@pytest.mark.django_db
def test_another_organizations_comparisons_never_appear(api, org, other_org, branch):
    # The other organization has a comparison on main too, with an analysis like ours.
    pool_get_or_create(organization=other_org, slug="globex-lab", name="Globex lab")
    theirs = comparison_create(organization=other_org, submitted_spec={
        **SPEC, "devices": {"pool": "globex-lab"}, "tags": {"branch": "main", "commit": "eee555"}})
    Analysis.objects.create(comparison=theirs, version=1, engine="test", result=branch[0].analyses.get().result)
    Comparison.objects.filter(pk=theirs.pk).update(status=Comparison.Status.FINISHED)
    mine = api.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    assert str(theirs.id) not in {p["comparison_id"] for p in mine}
    assert len(mine) == 3
    other = client_of(other_org)
    their_points = other.get("/api/v1/trends", {"arm": "h2", "branch": "main"}).json()["points"]
    assert [p["comparison_id"] for p in their_points] == [str(theirs.id)]
    assert other.get("/api/v1/trends/options").json()["branches"] == ["main"]
    assert "feature" not in other.get("/api/v1/trends.csv", {"arm": "h2"}).content.decode()
    home = other.get("/api/v1/home").json()
    assert [c["id"] for c in home["recent"]] == [str(theirs.id)]
    assert home["farm"]["devices"] == 0
    assert APIClient().get("/api/v1/trends", {"arm": "h2"}).status_code in (401, 403)


@pytest.mark.django_db
def test_home_shows_recent_verdicts_sparklines_in_flight_and_the_farm(api, org, branch):
    queued = comparison_create(organization=org, submitted_spec={**SPEC, "name": "waiting"})
    comparison_plan(comparison_id=str(queued.id))
    body = api.get("/api/v1/home").json()
    recent = {c["id"]: c for c in body["recent"]}
    assert list(recent) == [str(c.id) for c in [queued, *reversed(branch)]]
    assert recent[str(branch[1].id)]["headline_verdict"] == "regression"
    assert recent[str(branch[2].id)]["headline_verdict"] == "improvement"
    assert recent[str(queued.id)]["headline_verdict"] is None
    assert recent[str(queued.id)]["sparkline"] is None
    spark = recent[str(branch[1].id)]["sparkline"]
    assert (spark["kind"], spark["x"], spark["device"], spark["profile"]) == ("periods", [3], "host-lab-1", "none")
    values = {s["arm"]: s["values"] for s in spark["series"]}
    assert set(values) == {"https-h1", "h2"}
    assert values["h2"][0] > values["https-h1"][0] * 1.3
    assert recent[str(branch[1].id)]["tags"]["commit"] == "bbb222"
    assert recent[str(branch[1].id)]["progress"]["percent"] == 100.0
    # In flight: the queued one, with its progress.
    [flight] = body["in_flight"]
    assert (flight["id"], flight["status"]) == (str(queued.id), "queued")
    assert flight["progress"]["blocks_total"] == 6
    assert flight["progress"]["blocks_done"] == 0
    # The farm: the runner's one host device (available again after its runs).
    assert body["farm"]["devices"] == 1
    [host] = body["farm"]["platforms"]
    assert host["platform"] == "host"
    assert host["total"] == 1
    assert sum(s["count"] for s in host["states"]) == 1


@pytest.mark.django_db
def test_home_costs_the_same_queries_for_more_comparisons(api, org, runner_api):
    measured(runner_api, org, h2=1.0, tags={}, seed=1)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert api.get("/api/v1/home").status_code == 200
        return len(captured)

    one = queries()
    measured(runner_api, org, h2=1.2, tags={}, seed=2)
    measured(runner_api, org, h2=0.8, tags={}, seed=3)
    assert queries() == one


def test_a_device_of_a_pooled_model_takes_its_own_verdict_row():
    """Two phones of one model: the analysis pools them in one headline row and keeps a row per
    device beneath it; a trend point is one device, so it takes that device's row."""
    def row(scope: str, device_class: str, device: str | None, outcome: str) -> dict:
        return {"arm": "h2", "metric": "total_ms", "profile": "lte", "scope": scope, "device_class": device_class,
                "device": device, "verdict": {"outcome": outcome}}

    rows = [row("pooled", "android / Pixel 8", None, "inconclusive"),
            row("device", "android / Pixel 8", "P1", "regression"),
            row("device", "android / Pixel 8", "P2", "improvement"),
            row("pooled", "IPHONE-1", None, "equivalent")]
    def outcome(device: str) -> str:
        found = device_verdict_row(rows, arm="h2", metric="total_ms", device=device, profile="lte")
        assert found is not None
        return found["verdict"]["outcome"]

    assert outcome("P1") == "regression"
    assert outcome("P2") == "improvement"
    assert outcome("IPHONE-1") == "equivalent"
    assert device_verdict_row(rows, arm="h2", metric="ttfb_ms", device="P1", profile="lte") is None
    assert device_verdict_row(rows, arm="h2", metric="total_ms", device="P1", profile="none") is None
