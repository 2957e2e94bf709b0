"""Operators quarantine and release devices, disable and enable runners and reset a runner's
lab breaker in the Django admin; each action goes through apps.devices.services and is recorded."""

import pytest
from django.test import Client

from apps.devices.models import Device, Runner
from apps.devices.services import runner_record_lab_fault
from testing.operators import admin_action, operator_client
from testing.runner_calls import lease

DEVICES = "/admin/devices/device/"
RUNNERS = "/admin/devices/runner/"
HEARTBEAT = {"devices": [{"serial": "host-lab-1", "state": "available"}], "runs": []}


@pytest.mark.django_db
def test_quarantine_takes_a_device_out_of_scheduling_until_released(runner_api, queued_run):
    device = Device.objects.get(serial="host-lab-1")
    ops = operator_client()
    assert b'name="reason"' in admin_action(ops, DEVICES, "quarantine_device", [device.pk]).content
    admin_action(ops, DEVICES, "quarantine_device", [device.pk], reason="cracked screen")
    device.refresh_from_db()
    assert device.state == Device.State.QUARANTINED
    assert device.state_reason == "quarantined by an operator: cracked screen"
    change = device.state_changes.first()
    assert (change.to_state, change.changed_by.username) == ("quarantined", "ops")
    # A heartbeat saying "available" does not lift it; nothing is leased to it.
    assert runner_api.post("/api/runner/v1/heartbeat", HEARTBEAT, format="json").status_code == 200
    assert lease(runner_api).status_code == 204

    admin_action(ops, DEVICES, "release_device", [device.pk])
    device.refresh_from_db()
    assert device.state == Device.State.AVAILABLE
    assert lease(runner_api).status_code == 200


@pytest.mark.django_db
def test_quarantining_twice_is_refused_with_a_message(runner_api):
    device = Device.objects.get(serial="host-lab-1")
    ops = operator_client()
    admin_action(ops, DEVICES, "quarantine_device", [device.pk], reason="overheating")
    page = ops.get(admin_action(ops, DEVICES, "quarantine_device", [device.pk], reason="again")["Location"])
    assert b"already quarantined" in page.content
    assert Device.objects.get(pk=device.pk).state_reason == "quarantined by an operator: overheating"


@pytest.mark.django_db
def test_a_disabled_runner_is_refused_and_its_devices_get_no_work(runner_api, queued_run):
    runner = runner_api.runner
    ops = operator_client()
    admin_action(ops, RUNNERS, "disable_runner", [runner.pk], reason="leaked token")
    runner.refresh_from_db()
    assert runner.disabled_at is not None
    assert Device.objects.get(runner=runner).state == Device.State.OFFLINE
    for call, body in (("heartbeat", HEARTBEAT), ("lease", {"devices": ["host-lab-1"], "wait_s": 0})):
        refused = runner_api.post(f"/api/runner/v1/{call}", body, format="json")
        assert refused.status_code == 403
        assert "disabled by an operator" in refused.json()["detail"]
    queued_run.refresh_from_db()
    assert queued_run.status == "queued"

    admin_action(ops, RUNNERS, "enable_runner", [runner.pk])
    hello = {"runner": {"version": "test", "drivers": ["host"]},
             "devices": [{"serial": "host-lab-1", "platform": "host", "model": "test", "os_version": "1"}]}
    assert runner_api.post("/api/runner/v1/hello", hello, format="json").status_code == 200
    assert lease(runner_api).status_code == 200


@pytest.mark.django_db
def test_an_operator_resets_a_tripped_breaker_and_the_runner_takes_work_again(runner_api, queued_run):
    runner = runner_api.runner
    for _ in range(3):  # a hosted lab's reference target down, three times in a row
        runner_record_lab_fault(runner_id=runner.pk, kind="lab_fault", error="reference target refused")
    assert lease(runner_api).status_code == 204
    admin_action(operator_client(), RUNNERS, "reset_breaker", [runner.pk])
    runner.refresh_from_db()
    assert (runner.breaker_tripped_at, runner.breaker_reason, runner.lab_faults) == (None, "", [])
    assert lease(runner_api).status_code == 200


@pytest.mark.django_db
def test_the_runner_page_never_shows_its_token_hash(runner_api):
    runner = Runner.objects.get(pk=runner_api.runner.pk)
    page = operator_client().get(f"{RUNNERS}{runner.pk}/change/")
    assert page.status_code == 200
    assert runner.token_hash.encode() not in page.content


@pytest.mark.django_db
def test_members_who_are_not_staff_are_refused(runner_api, user):
    device = Device.objects.get(serial="host-lab-1")
    client = Client()
    client.force_login(user)
    assert client.get(DEVICES).status_code == 302
    admin_action(client, DEVICES, "quarantine_device", [device.pk], reason="x")
    admin_action(client, RUNNERS, "disable_runner", [runner_api.runner.pk], reason="x")
    assert Device.objects.get(pk=device.pk).state == Device.State.AVAILABLE
    assert Runner.objects.get(pk=runner_api.runner.pk).disabled_at is None


@pytest.mark.django_db
def test_a_reason_over_its_bound_is_refused_and_changes_nothing(runner_api):
    device = Device.objects.get(serial="host-lab-1")
    ops = operator_client()
    page = ops.get(admin_action(ops, DEVICES, "quarantine_device", [device.pk], reason="x" * 301)["Location"])
    assert "reason: 1–300 characters saying why" in page.content.decode()
    assert Device.objects.get(pk=device.pk).state == Device.State.AVAILABLE
    assert not device.state_changes.filter(to_state="quarantined").exists()
