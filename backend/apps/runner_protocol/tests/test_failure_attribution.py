"""Who is blamed for a failed attempt (the contract's error-kind table): a customer's
endpoint that does not answer fails that comparison alone; lab faults trip the runner's
breaker, shown on the Devices API, never a device's quarantine; only device faults count
towards quarantine."""

import pytest
from latencylab_contract import error_kinds
from rest_framework.test import APIClient

from apps.accounts.services import user_ensure_member
from apps.audit.models import AuditEvent
from apps.comparisons.models import Comparison, Run
from apps.devices.models import Device, Runner
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

TYPO = ("arm 'h2' endpoint https://api.typo.invalid/: name does not resolve ([Errno -2] Name or service not "
        "known)")


def test_the_service_knows_every_kind_of_the_contracts_table():
    assert set(Run.ErrorKind.values) == set(error_kinds())


def admin_client(org) -> APIClient:
    client = APIClient()
    client.force_login(user_ensure_member(organization=org, username="carol", password="pw-123456", role="admin"))
    return client


@pytest.mark.django_db
def test_a_customer_target_fault_fails_the_comparison_alone_and_the_device_runs_the_next(
        org, pool, api, django_capture_on_commit_callbacks):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    # Two earlier device faults: a customer's endpoint neither adds a third nor resets them.
    for name in ("flaky 1", "flaky 2"):
        android_comparison(org, name=name)
        flaky = leased_run(lab, ["A1"])
        finish(lab, flaky, "infra_error", "device_lost", "unplugged")
        Run.objects.filter(pk=flaky["run_id"]).update(status=Run.Status.CANCELLED)
    typo = android_comparison(org, name="typo", count=2)
    after = android_comparison(org, name="after")
    leased = leased_run(lab, ["A1"])
    assert leased["comparison_id"] == str(typo.id)
    with django_capture_on_commit_callbacks(execute=True):
        response = finish(lab, leased, "failed", "target_unreachable", TYPO)
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["error_kind"]) == ("failed", "target_unreachable")

    typo.refresh_from_db()
    assert typo.status == Comparison.Status.FAILED
    assert typo.error == f"target_unreachable: {TYPO}"
    runs = {str(run.pk): run for run in typo.runs.all()}
    failed = runs.pop(leased["run_id"])
    assert (failed.status, failed.error_kind) == ("failed", "target_unreachable")
    assert failed.error == f"attempt 1 on Pixel 8 (A1): target_unreachable: {TYPO}"
    (other,) = runs.values()  # slot 1 would reach the same endpoint: cancelled, saying why
    assert other.status == Run.Status.CANCELLED
    assert other.error.startswith("not run: the comparison failed (target_unreachable: arm 'h2' endpoint")
    detail = api.get(f"/api/v1/comparisons/{typo.id}").json()
    assert detail["status"] == "failed"
    assert "https://api.typo.invalid/" in detail["error"]

    device = Device.objects.get(serial="A1")
    assert (device.state, len(device.infra_failures)) == ("available", 2)
    assert device.runner.lab_faults == []
    assert leased_run(lab, ["A1"])["comparison_id"] == str(after.id)


@pytest.mark.django_db
def test_lab_faults_trip_the_runners_breaker_not_the_devices(org, pool, api):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2", model="Galaxy S24")])
    for index, kind in enumerate(("lab_fault", "build_failure", "link_unavailable")):
        android_comparison(org, name=f"lab {kind}")
        leased = leased_run(lab, ["A1", "A2"][index % 2:index % 2 + 1])
        finish(lab, leased, "infra_error", kind, f"{kind} in block 0")
        Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.CANCELLED)
    runner = Runner.objects.get(name="lab-a")
    assert runner.breaker_tripped_at is not None
    assert runner.breaker_reason == ("3 consecutive lab faults — lab_fault: lab_fault in block 0; build_failure: "
                                     "build_failure in block 0; link_unavailable: link_unavailable in block 0")
    assert {d.serial: (d.state, d.infra_failures) for d in Device.objects.all()} == {
        "A1": ("available", []), "A2": ("available", [])}

    # Nothing is leased to the runner's devices, and a waiting comparison says why.
    waiting = android_comparison(org, name="waits")
    heartbeat(lab, [phone("A1"), phone("A2", model="Galaxy S24")])
    assert lease(lab, ["A1", "A2"]).status_code == 204
    waiting_for = api.get(f"/api/v1/comparisons/{waiting.id}").json()["runs"][0]["waiting_for"]
    why = ("no android device of pool 'local' can take it: runner lab-a's breaker is tripped until an owner or "
           "admin resets it: 3 consecutive lab faults — lab_fault")
    assert waiting_for.startswith(why), waiting_for

    # The Devices page's runners: the breaker and who may reset it.
    (shown,) = api.get("/api/v1/runners").json()["results"]
    assert shown["breaker"]["tripped"] is True
    assert shown["breaker"]["consecutive_lab_faults"] == 3
    assert shown["breaker"]["reason"].startswith("3 consecutive lab faults — lab_fault: ")
    as_admin = admin_client(org)
    assert as_admin.get("/api/v1/runners").json()["results"][0]["can_reset_breaker"] is True
    member = APIClient()
    member.force_login(user_ensure_member(organization=org, username="bob", password="pw-123456", role="member"))
    assert member.post(f"/api/v1/runners/{runner.id}/reset-breaker").status_code == 403

    reset = as_admin.post(f"/api/v1/runners/{runner.id}/reset-breaker")
    assert reset.status_code == 200, reset.content
    assert reset.json()["breaker"] == {"tripped": False, "tripped_at": None, "reason": "",
                                       "consecutive_lab_faults": 0}
    assert reset.json()["can_reset_breaker"] is False
    assert as_admin.post(f"/api/v1/runners/{runner.id}/reset-breaker").status_code == 409
    audit = AuditEvent.objects.get(action=AuditEvent.Action.RUNNER_BREAKER_RESET)
    assert (audit.target_label, audit.actor_label) == ("lab-a", "carol")
    assert leased_run(lab, ["A1"])["comparison_id"] == str(waiting.id)


@pytest.mark.django_db
def test_a_good_run_resets_the_lab_count_and_runner_faults_count_against_nothing(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    for outcome in ("lab_fault", "lab_fault", "ok", "lab_fault", "runner_fault", "runner_fault", "runner_fault"):
        android_comparison(org, name=outcome)
        leased = leased_run(lab, ["A1"])
        if outcome == "ok":
            for block in (0, 1):
                upload_block(lab, leased, block)
            finish(lab, leased, "ok")
        else:
            finish(lab, leased, "infra_error", outcome, "the reference target refused" if outcome == "lab_fault"
                   else "gaierror: [Errno -2] Name or service not known")
            Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.CANCELLED)
    device = Device.objects.get(serial="A1")
    assert (device.state, device.infra_failures) == ("available", [])
    assert device.runner.breaker_tripped_at is None
    assert [f["kind"] for f in device.runner.lab_faults] == ["lab_fault"]
