"""A spec must be runnable on every platform it selects (apps.comparisons.platforms): an
arm a selected platform cannot measure is a 400 at submit, naming the platform, the arm
and why, and nothing is created. A device whose runner lists fewer protocols than its
platform is passed over for the runs it cannot measure, and a run no device can measure
says so while it waits."""

import pytest

from apps.comparisons.models import Comparison, Run
from testing.device_farm import android_comparison, finish, lease, leased_run, phone, runner_client

H2_H3 = [{"label": "h2", "protocol": "h2"}, {"label": "h3", "protocol": "h3"}]
# Sequential here; concurrency on phones: test_every_platform_takes_concurrency_and_a_customer_request_list.
SMALL = {"preset": "mid-image-series",
         "workload": {"kind": "series", "periods": [3], "repetitions": 2, "concurrency": "sequential"},
         "blocks": 2}


@pytest.mark.django_db
def test_an_arm_ios_cannot_measure_is_refused_at_submit(api, pool):
    response = api.post("/api/v1/comparisons", {
        "name": "h1 on phones", **SMALL, "devices": {"platforms": ["host", "android", "ios"], "count": 3}},
        format="json")
    assert response.status_code == 400, response.content
    (message,) = response.json()["devices"]["platforms"]
    assert message.startswith("ios devices cannot run arm 'https-h1' (h1): URLSession cannot be made to speak "
                              "HTTP/1.1")
    assert "ios runs h2, h3, grpc; drop ios or that arm." in message
    assert not Comparison.objects.exists()


@pytest.mark.django_db
def test_arms_every_selected_platform_measures_are_accepted(api, pool):
    response = api.post("/api/v1/comparisons", {
        "name": "h2 vs h3 on phones", **SMALL, "arms": H2_H3, "baseline_arm": "h2",
        "devices": {"platforms": ["host", "android", "ios"], "count": 3}}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["spec"]["devices"]["platforms"] == ["host", "android", "ios"]


@pytest.mark.django_db
def test_every_platform_takes_concurrency_and_a_customer_request_list(api, pool):
    """Every harness issues concurrency groups and sends a HAR replay's bodies, expected
    statuses and absolute URLs (platforms.py: CONCURRENT_PLATFORMS, UNSUPPORTED_REQUEST_FIELDS)."""
    phones = {"platforms": ["host", "android", "ios"], "count": 3}
    series = api.post("/api/v1/comparisons", {
        "name": "MID on phones", "preset": "mid-image-series", "arms": H2_H3, "baseline_arm": "h2",
        "workload": {"kind": "series", "periods": [3], "repetitions": 2}, "blocks": 2, "devices": phones},
        format="json")
    assert series.status_code == 201, series.content
    assert series.json()["spec"]["workload"]["concurrency"] == {"parallel": 4}, "the preset's, on every platform"
    requests = [{"name": "feed", "path": "/files/mid-01", "expect_status": 200},
                {"name": "post", "method": "POST", "path": "/echo", "body": "{}"},
                {"name": "cdn", "url": "https://cdn.example.com/logo.png"}]
    replay = api.post("/api/v1/comparisons", {
        "name": "HAR on phones", "arms": H2_H3, "baseline_arm": "h2", "blocks": 2, "devices": phones,
        "workload": {"kind": "requests", "repetitions": 2, "requests": requests, "concurrency": "all"}},
        format="json")
    assert replay.status_code == 201, replay.content
    assert Comparison.objects.count() == 2


@pytest.mark.django_db
def test_a_device_is_passed_over_for_a_protocol_it_does_not_list(org, pool, api):
    no_h3 = phone("OLD1", model="Old phone", capabilities={"protocols": ["h1", "h2"]})
    lab = runner_client(pool, "lab-a", [no_h3, phone("NEW1", model="Pixel 8")])
    comparison = android_comparison(org, arms=H2_H3, baseline_arm="h2", preset=None,
                                     workload={"kind": "series", "periods": [3], "repetitions": 2})
    assert lease(lab, ["OLD1"]).status_code == 204
    first = leased_run(lab, ["NEW1"])
    assert first["device_serial"] == "NEW1"
    # The run fails on NEW1: OLD1 does not fit it (no h3), so NEW1 takes it again.
    assert finish(lab, first, "infra_error", "timeout", "fastlane ran past 900 s").status_code == 200
    assert comparison.runs.get().failed_device_ids
    assert lease(lab, ["OLD1"]).status_code == 204
    assert leased_run(lab, ["NEW1"])["attempt"] == 2


@pytest.mark.django_db
def test_a_run_no_device_can_measure_says_so(org, pool, api):
    runner_client(pool, "lab-a", [phone("OLD1", model="Old phone", capabilities={"protocols": ["h1", "h2"]})])
    comparison = android_comparison(org, arms=H2_H3, baseline_arm="h2", preset=None,
                                     workload={"kind": "series", "periods": [3], "repetitions": 2})
    (run,) = api.get(f"/api/v1/comparisons/{comparison.id}").json()["runs"]
    assert run["status"] == Run.Status.QUEUED
    assert run["waiting_for"] == ("no android device of pool 'local' measures every arm's protocol (h2, h3): "
                                  "Old phone (OLD1) measures h1, h2")
