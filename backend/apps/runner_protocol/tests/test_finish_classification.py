"""Finishing with a classification (contract README): an infra_error requeues the run
and prefers another device; three attempts fail the run with what happened, in words;
three infrastructure failures in a row quarantine a device until an admin releases it."""

import pytest
from rest_framework.test import APIClient

from apps.accounts.services import user_ensure_member
from apps.comparisons.models import Run
from apps.devices.models import Device, DeviceStateChange
from apps.devices.services import pool_get_or_create
from testing.device_farm import (
    android_comparison,
    finish,
    heartbeat,
    lease,
    leased_run,
    phone,
    runner_client,
    upload_block,
)

INFRA_KINDS = ["device_lost", "device_not_ready", "build_failure", "timeout", "malformed_result",
               "link_unavailable", "lab_fault", "runner_fault"]
DEVICE_KINDS = {"device_lost", "device_not_ready", "timeout"}
LAB_KINDS = {"build_failure", "malformed_result", "link_unavailable", "lab_fault"}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", INFRA_KINDS)
def test_every_infrastructure_kind_requeues_the_run_and_counts_against_whom_it_blames(org, pool, kind):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    comparison = android_comparison(org)
    leased = leased_run(lab, ["A1"])
    response = finish(lab, leased, "infra_error", kind, "it broke during block 0")
    assert response.status_code == 200, response.content
    assert response.json() == {"run_id": leased["run_id"], "status": "queued", "attempt": 1, "error_kind": kind}
    run = comparison.runs.get()
    assert (run.status, run.error_kind, run.device) == ("queued", kind, None)
    assert run.error == f"attempt 1 on Pixel 8 (A1): {kind}: it broke during block 0"
    device = Device.objects.get(serial="A1")
    assert device.state == "available"
    # Only a device fault counts towards the device's quarantine; a lab fault towards the
    # runner's breaker; the runner's own fault against nothing.
    assert [f["kind"] for f in device.infra_failures] == ([kind] if kind in DEVICE_KINDS else [])
    assert [f["kind"] for f in device.runner.lab_faults] == ([kind] if kind in LAB_KINDS else [])
    assert run.failed_device_ids == [device.id]


@pytest.mark.django_db
def test_test_failure_fails_the_run_and_ok_finishes_it(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    failing, passing = android_comparison(org), android_comparison(org, name="second")
    leased = leased_run(lab, ["A1"])
    assert finish(lab, leased, "failed", "test_failure", "harness reported block 0 failed").json()["status"] == "failed"
    run = failing.runs.get()
    assert (run.status, run.error_kind) == ("failed", "test_failure")
    assert run.error == "attempt 1 on Pixel 8 (A1): test_failure: harness reported block 0 failed"

    leased = leased_run(lab, ["A1"])
    for block in (0, 1):
        upload_block(lab, leased, block)
    body = finish(lab, leased, "ok").json()
    assert body["status"] == "done"
    assert body["error_kind"] is None
    assert passing.runs.get().error == ""
    assert Device.objects.get(serial="A1").state == "available"


@pytest.mark.django_db
@pytest.mark.parametrize("status, kind", [("ok", "timeout"), ("failed", "device_lost"), ("infra_error", "test_failure"),
                                          ("infra_error", "lease_expired"), ("infra_error", "gremlins"),
                                          ("infra_error", "target_unreachable"), ("failed", "lab_fault")])
def test_an_error_kind_that_does_not_fit_the_status_is_400_and_changes_nothing(org, pool, status, kind):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    comparison = android_comparison(org)
    leased = leased_run(lab, ["A1"])
    response = finish(lab, leased, status, kind)
    assert response.status_code == 400
    assert "error_kind" in response.json()
    run = comparison.runs.get()
    assert (run.status, run.attempt, run.error) == ("leased", 1, "")
    assert Device.objects.get(serial="A1").state == "busy"


@pytest.mark.django_db
def test_infra_error_without_a_kind_is_a_runner_fault(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    comparison = android_comparison(org)
    finish(lab, leased_run(lab, ["A1"]), "infra_error")
    assert comparison.runs.get().error == "attempt 1 on Pixel 8 (A1): runner_fault"


@pytest.mark.django_db
def test_a_failed_run_goes_to_another_device_and_resumes_at_its_first_unstored_block(org, pool):
    lab_a = runner_client(pool, "lab-a", [phone("A1")])
    lab_b = runner_client(pool, "lab-b", [phone("B1", model="Galaxy S24")])
    comparison = android_comparison(org)
    first = leased_run(lab_a, ["A1"])
    upload_block(lab_a, first, 0)
    finish(lab_a, first, "infra_error", "device_lost", "device disappeared during block 1")

    assert lease(lab_a, ["A1"]).status_code == 204  # A1 failed it and B1 fits: A1 passes it over
    second = leased_run(lab_b, ["B1"])
    assert (second["run_id"], second["attempt"], second["next_block"], second["device_serial"]) == (
        first["run_id"], 2, 1, "B1")
    upload_block(lab_b, second, 1)
    assert finish(lab_b, second, "ok").json()["status"] == "done"
    run = comparison.runs.get()
    assert run.device.serial == "B1"
    assert run.error == ""
    assert run.blocks.count() == 2


@pytest.mark.django_db
def test_the_same_device_retries_when_no_other_fits(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2", state="unauthorized", reason="adb: unauthorized")])
    android_comparison(org)
    first = leased_run(lab, ["A1"])
    finish(lab, first, "infra_error", "timeout", "fastlane ran past 900 s")
    # A2 is plugged in but waits for a human: it does not count as a device that fits.
    second = leased_run(lab, ["A1"])
    assert (second["run_id"], second["attempt"], second["device_serial"]) == (first["run_id"], 2, "A1")


@pytest.mark.django_db
def test_a_device_holding_another_slot_does_not_count_as_fitting(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2")])
    comparison = android_comparison(org, count=2)
    slot0 = leased_run(lab, ["A1"])
    slot1 = leased_run(lab, ["A2"])
    finish(lab, slot0, "ok")
    finish(lab, slot1, "infra_error", "device_lost", "unplugged")
    # A1 ran slot 0 of this comparison and profile, so only A2 may take slot 1 again.
    retry = leased_run(lab, ["A1", "A2"])
    assert (retry["run_id"], retry["device_serial"], retry["attempt"]) == (slot1["run_id"], "A2", 2)
    assert comparison.runs.count() == 2


@pytest.mark.django_db
def test_three_failed_attempts_fail_the_run_saying_what_happened(org, pool):
    lab_a = runner_client(pool, "lab-a", [phone("A1")])
    lab_b = runner_client(pool, "lab-b", [phone("B1", model="Galaxy S24")])
    comparison = android_comparison(org)
    finish(lab_a, leased_run(lab_a, ["A1"]), "infra_error", "device_lost", "device disappeared during block 0")
    finish(lab_b, leased_run(lab_b, ["B1"]), "infra_error", "build_failure", "gradle: compileDebugKotlin failed")
    third = leased_run(lab_a, ["A1"])  # both failed it: the oldest failure may try again
    assert finish(lab_a, third, "infra_error", "timeout", "fastlane ran past 900 s").json()["status"] == "failed"
    run = comparison.runs.get()
    assert run.status == "failed"
    assert run.error_kind == "timeout"
    assert run.finished_at is not None
    assert run.error.splitlines() == [
        "infrastructure: failed after 3 attempts",
        "attempt 1 on Pixel 8 (A1): device_lost: device disappeared during block 0",
        "attempt 2 on Galaxy S24 (B1): build_failure: gradle: compileDebugKotlin failed",
        "attempt 3 on Pixel 8 (A1): timeout: fastlane ran past 900 s",
    ]
    assert Device.objects.get(serial="A1").state == "available"  # 2 failures, not 3 in a row
    assert lease(lab_a, ["A1"]).status_code == 204


def fail_three_times(org, lab, serial):
    """Three runs, each failing once on `serial` with a different infrastructure kind."""
    for kind in ("device_lost", "timeout", "device_not_ready"):
        android_comparison(org, name=f"run {kind}")
        leased = leased_run(lab, [serial])
        finish(lab, leased, "infra_error", kind, f"{kind} in block 0")
        Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.CANCELLED)


@pytest.mark.django_db
def test_three_infrastructure_failures_in_a_row_quarantine_until_an_admin_releases(org, pool, api):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    fail_three_times(org, lab, "A1")
    device = Device.objects.get(serial="A1")
    assert device.state == "quarantined"
    quarantine = DeviceStateChange.objects.filter(device=device, to_state="quarantined").get()
    assert quarantine.from_state == "busy"
    assert quarantine.reason == ("3 consecutive infrastructure failures — device_lost: device_lost in block 0; "
                                 "timeout: timeout in block 0; device_not_ready: device_not_ready in block 0")

    waiting = android_comparison(org, name="waits")
    heartbeat(lab, [phone("A1")])  # the runner calls it available: quarantine outranks it
    assert lease(lab, ["A1"]).status_code == 204
    waiting_for = api.get(f"/api/v1/comparisons/{waiting.id}").json()["runs"][0]["waiting_for"]
    assert waiting_for.startswith("every android device of pool 'local' is quarantined until an owner or admin "
                                  "releases it: Pixel 8 (A1): 3 consecutive infrastructure failures — device_lost")

    member = user_ensure_member(organization=org, username="bob", password="pw-123456", role="member")
    as_member = APIClient()
    as_member.force_login(member)
    assert as_member.post(f"/api/v1/devices/{device.id}/release").status_code == 403
    assert Device.objects.get(serial="A1").state == "quarantined"

    admin = user_ensure_member(organization=org, username="carol", password="pw-123456", role="admin")
    as_admin = APIClient()
    as_admin.force_login(admin)
    released = as_admin.post(f"/api/v1/devices/{device.id}/release")
    assert released.status_code == 200, released.content
    assert released.json()["state"] == "available"
    assert released.json()["consecutive_infra_failures"] == 0
    change = DeviceStateChange.objects.filter(device=device).first()  # newest first
    assert (change.from_state, change.to_state, change.reason, change.changed_by) == (
        "quarantined", "available", "released from quarantine by carol", admin)
    assert as_admin.post(f"/api/v1/devices/{device.id}/release").status_code == 409  # not quarantined any more

    assert leased_run(lab, ["A1"])["comparison_id"] == str(waiting.id)


@pytest.mark.django_db
def test_a_good_run_resets_the_count(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    for outcome in ("infra", "infra", "ok", "infra", "infra"):
        android_comparison(org, name=outcome)
        leased = leased_run(lab, ["A1"])
        if outcome == "ok":
            for block in (0, 1):
                upload_block(lab, leased, block)
            finish(lab, leased, "ok")
        else:
            finish(lab, leased, "infra_error", "timeout")
            Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.CANCELLED)
    device = Device.objects.get(serial="A1")
    assert device.state == "available"
    assert len(device.infra_failures) == 2


@pytest.mark.django_db
def test_another_orgs_device_cannot_be_released(org, other_org, pool, api):
    theirs = pool_get_or_create(organization=other_org, slug="theirs", name="Theirs")
    runner_client(theirs, "their-lab", [phone("T1")])
    device = Device.objects.get(serial="T1")
    Device.objects.filter(pk=device.pk).update(state="quarantined")
    assert api.post(f"/api/v1/devices/{device.id}/release").status_code == 404
    assert Device.objects.get(pk=device.pk).state == "quarantined"
