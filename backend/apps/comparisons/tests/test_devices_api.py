"""The Devices page's API: devices with their state, reason, health and recent runs;
pools with device counts; runners. Scoped by organization, and in a number of queries
that does not grow with the page."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.accounts.services import user_ensure_member
from apps.comparisons.models import Run
from apps.devices.models import Device, DevicePool
from apps.devices.services import pool_get_or_create
from testing.device_farm import android_comparison, finish, heartbeat, leased_run, phone, runner_client


def fleet(pool, runner_name: str, serials: list[str]):
    return runner_client(pool, runner_name, [phone(s, model=f"Phone {s}") for s in serials])


def run_on(org, lab, serial: str, name: str, outcome: str = "infra_error") -> None:
    android_comparison(org, name=name)
    leased = leased_run(lab, [serial])
    finish(lab, leased, outcome, "timeout" if outcome == "infra_error" else None, "fastlane ran past 900 s")
    Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.CANCELLED)


@pytest.mark.django_db
def test_devices_list_says_what_each_device_is_doing_and_why(org, pool, api):
    lab = fleet(pool, "lab-a", ["A1", "A2"])
    heartbeat(lab, [phone("A1", model="Phone A1", state="not_ready", reason="temperature 38.5 °C > 36 °C",
                          temperature=38.5, thermal_status="moderate"), phone("A2", model="Phone A2")])
    for i in range(7):
        run_on(org, lab, "A2", f"run {i}", outcome="failed" if i % 2 else "infra_error")
    page = api.get("/api/v1/devices").json()
    assert page["count"] == 2
    first, second = page["results"]
    assert (first["serial"], first["state"]) == ("A1", "not_ready")
    assert first["state_reason"] == "temperature 38.5 °C > 36 °C"
    assert (first["temperature"], first["thermal_status"], first["battery"], first["charging"]) == (
        38.5, "moderate", 87.0, True)
    assert first["runner"]["name"] == "lab-a"
    assert first["pool"] == {"slug": "local", "name": "Local", "kind": "private"}
    assert first["fingerprint"]["manufacturer"] == "Google"
    assert first["last_seen_at"]
    assert first["recent_runs"] == []
    assert [r["comparison_name"] for r in second["recent_runs"]] == ["run 6", "run 5", "run 4", "run 3", "run 2"]
    assert second["recent_runs"][1]["error"].startswith("attempt 1 on Phone A2 (A2): test_failure")
    assert second["can_release"] is False

    filtered = api.get("/api/v1/devices?state=not_ready").json()
    assert [d["serial"] for d in filtered["results"]] == ["A1"]


@pytest.mark.django_db
def test_devices_list_costs_the_same_for_1_and_for_30_devices(org, pool, api, django_assert_num_queries):
    lab = fleet(pool, "lab-a", ["D00"])
    run_on(org, lab, "D00", "only")
    with CaptureQueriesContext(connection) as captured:
        assert api.get("/api/v1/devices").json()["count"] == 1
    one = len(captured)

    for r in range(3):
        lab = fleet(pool, f"lab-{r}", [f"D{r}{i}" for i in range(10)])
        for i in range(0, 10, 3):
            run_on(org, lab, f"D{r}{i}", f"run {r}{i}")
    with django_assert_num_queries(one):
        page = api.get("/api/v1/devices").json()
    assert page["count"] == 31
    assert sum(len(d["recent_runs"]) for d in page["results"]) == 13


@pytest.mark.django_db
def test_another_orgs_devices_and_runs_stay_hidden(org, other_org, pool, api):
    theirs = pool_get_or_create(organization=other_org, slug="theirs", name="Theirs")
    fleet(theirs, "their-lab", ["T1"])
    hosted = DevicePool.objects.create(organization=None, slug="hosted-eu", name="Hosted EU", kind="hosted")
    shared = fleet(hosted, "hosted-1", ["H1"])
    android_comparison(other_org, pool_slug="hosted-eu", name="their secret comparison")
    finish(shared, leased_run(shared, ["H1"]), "ok")

    devices = api.get("/api/v1/devices").json()["results"]
    assert [d["serial"] for d in devices] == ["H1"]
    assert devices[0]["recent_runs"] == []  # the other organization's run on the shared device
    assert api.get(f"/api/v1/devices/{devices[0]['id']}").status_code == 200
    assert api.get(f"/api/v1/devices/{Device.objects.get(serial='T1').id}").status_code == 404


@pytest.mark.django_db
def test_device_detail_has_the_state_history(org, pool, api):
    lab = fleet(pool, "lab-a", ["A1"])
    heartbeat(lab, [phone("A1", model="Phone A1", state="unauthorized", reason="adb: device unauthorized")])
    heartbeat(lab, [phone("A1", model="Phone A1")])
    run_on(org, lab, "A1", "broken")
    device_id = api.get("/api/v1/devices").json()["results"][0]["id"]
    detail = api.get(f"/api/v1/devices/{device_id}").json()
    assert [(c["from_state"], c["to_state"]) for c in detail["state_changes"]] == [
        ("busy", "available"), ("available", "busy"), ("unauthorized", "available"), ("available", "unauthorized"),
        ("offline", "available")]
    assert detail["state_changes"][3]["reason"] == "adb: device unauthorized (reported by runner lab-a)"
    assert detail["state_changes"][0]["reason"] == "attempt 1 of 'broken' (none) ended: timeout"
    assert all(change["reason"] for change in detail["state_changes"])  # every change says why
    assert [f["kind"] for f in detail["infra_failures"]] == ["timeout"]
    assert detail["recent_runs"][0]["comparison_name"] == "broken"


@pytest.mark.django_db
def test_pools_count_devices_by_state_and_say_who_may_manage(org, pool, api):
    lab = fleet(pool, "lab-a", ["A1", "A2", "A3"])
    heartbeat(lab, [phone("A1", state="not_ready", reason="battery 20 % < 50 %"), phone("A2")])
    DevicePool.objects.create(organization=None, slug="hosted-eu", name="Hosted EU", kind="hosted")
    pools = api.get("/api/v1/pools").json()
    local = next(p for p in pools if p["slug"] == "local")
    assert local["devices"] == {"total": 3, "available": 1, "busy": 0, "not_ready": 1, "unauthorized": 0,
                                "offline": 1, "quarantined": 0}
    assert local["runners"] == 1
    assert local["can_manage"] is True
    assert next(p for p in pools if p["slug"] == "hosted-eu")["can_manage"] is False

    viewer = APIClient()
    viewer.force_login(user_ensure_member(organization=org, username="vic", password="pw-123456", role="viewer"))
    assert all(p["can_manage"] is False for p in viewer.get("/api/v1/pools").json())


@pytest.mark.django_db
def test_runners_list_shows_version_drivers_and_last_heartbeat(pool, api):
    fleet(pool, "lab-a", ["A1", "A2"])
    (runner,) = api.get("/api/v1/runners").json()["results"]
    assert (runner["name"], runner["version"], runner["drivers"], runner["hostname"], runner["device_count"]) == (
        "lab-a", "0.2.0", ["android"], "lab.local", 2)
    assert runner["last_heartbeat_at"]
    assert runner["pool"]["slug"] == "local"


@pytest.mark.django_db
def test_a_queued_run_names_the_devices_that_wait_and_why(org, pool, api):
    lab = fleet(pool, "lab-a", ["A1", "A2", "A3"])
    heartbeat(lab, [phone("A1", model="Phone A1", state="not_ready", reason="battery 32 % < 50 %"),
                    phone("A2", model="Phone A2", state="unauthorized", reason="adb: device unauthorized"),
                    phone("A3", model="Phone A3")])
    Device.objects.filter(serial="A3").update(state="quarantined", state_reason="3 consecutive infrastructure failures")
    comparison = android_comparison(org, name="waits")
    (run,) = api.get(f"/api/v1/comparisons/{comparison.id}").json()["runs"]
    assert run["waiting_for"] == (
        "no android device of pool 'local' is ready: Phone A1 (A1) not ready: battery 32 % < 50 %; "
        "Phone A2 (A2) unauthorized: adb: device unauthorized; "
        "Phone A3 (A3) quarantined: 3 consecutive infrastructure failures")
    still_unauthorized = phone("A2", model="Phone A2", state="unauthorized", reason="adb: device unauthorized")
    heartbeat(lab, [phone("A1", model="Phone A1"), still_unauthorized, phone("A3", model="Phone A3")])
    (run,) = api.get(f"/api/v1/comparisons/{comparison.id}").json()["runs"]
    assert run["waiting_for"] == ("waiting for a free android device in pool 'local' (not ready: Phone A2 (A2) "
                                  "unauthorized: adb: device unauthorized; Phone A3 (A3) quarantined: "
                                  "3 consecutive infrastructure failures)")


@pytest.mark.django_db
def test_pools_and_runners_cost_the_same_for_1_and_for_12_runners(pool, api, django_assert_num_queries):
    fleet(pool, "lab-0", ["P00"])
    counts = []
    for url in ("/api/v1/pools", "/api/v1/runners"):
        with CaptureQueriesContext(connection) as captured:
            assert api.get(url).status_code == 200
        counts.append(len(captured))
    for r in range(1, 12):
        fleet(pool_get_or_create(organization=pool.organization, slug=f"lab-{r % 3}", name="Lab"), f"lab-{r}",
              [f"P{r}{i}" for i in range(3)])
    with django_assert_num_queries(counts[0]):
        pools = {p["slug"]: p["devices"]["total"] for p in api.get("/api/v1/pools").json()}
    assert pools == {"local": 1, "lab-0": 9, "lab-1": 12, "lab-2": 12}
    with django_assert_num_queries(counts[1]):
        assert api.get("/api/v1/runners").json()["count"] == 12
