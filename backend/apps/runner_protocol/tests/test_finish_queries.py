"""Finishing a run locks its device once (its outcome counted and the device released in one
write), and while other runs of the comparison are still going the completion check after
the commit is one query, without the comparison's lock."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.comparisons.models import Comparison
from apps.devices.models import Device, DeviceStateChange
from testing.device_farm import android_comparison, finish, lease, phone, runner_client, upload_block

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


@pytest.mark.django_db
def test_finish_ok_while_another_run_goes_on_is_ten_statements(org, pool, django_capture_on_commit_callbacks):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2")])
    comparison = android_comparison(org, count=2)
    response = lease(lab, ["A1", "A2"])
    assert response.status_code == 200, response.content
    first, _ = response.json()["runs"]
    for block in range(2):
        upload_block(lab, first, block)
    Device.objects.filter(serial=first["device_serial"]).update(
        infra_failures=[{"kind": "device_fault", "error": "", "run": "", "at": ""}])

    with CaptureQueriesContext(connection) as captured, django_capture_on_commit_callbacks(execute=True):
        assert finish(lab, first, "ok").status_code == 200
    queries = [q["sql"].strip() for q in captured.captured_queries]
    # Before: the device locked twice (its outcome, then its release) and written twice, and
    # the completion check took the comparison's lock to find a run still going (13 queries).
    assert len([sql for sql in queries if not sql.upper().startswith(TRANSACTION_CONTROL)]) == 10, queries
    assert sum(sql.startswith('SELECT "devices_device"."id"') for sql in queries) == 1  # the device, locked
    device = Device.objects.get(serial=first["device_serial"])
    assert (device.state, device.infra_failures) == ("available", [])
    assert DeviceStateChange.objects.filter(device=device).latest("at", "id").to_state == "available"
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.RUNNING
