"""A heartbeat is the farm's most frequent call (every 10 s per runner): its statements grow
with neither the runs it extends nor the devices it reports, and a heartbeat that changes
nothing but the time a device was seen writes no state change."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.devices.models import Device, DeviceStateChange
from testing.device_farm import android_comparison, heartbeat, lease, phone, runner_client

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def statements(lab, devices, runs) -> list[str]:
    """The statements one heartbeat ran, transaction control left out, after checking
    that it extended every listed lease."""
    with CaptureQueriesContext(connection) as captured:
        response = heartbeat(lab, devices, runs)
    assert response.status_code == 200, response.content
    assert response.json()["commands"] == []
    queries = [q["sql"].strip() for q in captured.captured_queries]
    return [sql for sql in queries if not sql.upper().startswith(TRANSACTION_CONTROL)]


def busy(serials, leases):
    """The descriptors an agent sends: the devices holding a run busy."""
    held = {run["device_serial"] for run in leases}
    return [phone(serial, state="busy") if serial in held else phone(serial) for serial in serials]


@pytest.mark.django_db
def test_a_heartbeat_costs_the_same_few_statements_with_1_or_4_runs_held(org, pool):
    serials = ["A1", "A2", "A3", "A4"]
    lab = runner_client(pool, "lab-a", [phone(serial) for serial in serials])
    assert len(statements(lab, busy(serials, []), [])) == 5  # the runner, devices locked, leases, 2 UPDATEs

    android_comparison(org, count=4)
    response = lease(lab, serials)
    assert response.status_code == 200, response.content
    leases = response.json()["runs"]
    assert len(leases) == 4
    runs = [{"run_id": run["run_id"], "lease_token": run["lease_token"]} for run in leases]
    # The first heartbeat after the lease says the devices are busy (a change, written); the
    # next ones change nothing but last_seen_at.
    statements(lab, busy(serials, leases), runs)
    recorded = DeviceStateChange.objects.count()

    one = statements(lab, busy(serials, leases), runs[:1])
    four = statements(lab, busy(serials, leases), runs)
    # Before: an UPDATE per run held and a SELECT and an UPDATE per device besides (13 with 4).
    assert len(four) == len(one) == 6, four
    assert sum(sql.startswith("UPDATE") for sql in four) == 3  # the leases, the runner, the devices
    assert DeviceStateChange.objects.count() == recorded
    assert set(Device.objects.values_list("state", flat=True)) == {Device.State.BUSY}


@pytest.mark.django_db
def test_a_heartbeat_writes_every_change_in_one_update_and_records_only_real_changes(pool):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2"), phone("A3")])
    recorded = DeviceStateChange.objects.count()
    before = {d.serial: d.last_seen_at for d in Device.objects.all()}

    capabilities = {"protocols": ["h1", "h2"], "sdk": 35}
    queries = statements(lab, [phone("A1", battery=40.0, capabilities=capabilities),
                               phone("A2", state="not_ready", reason="hot"),
                               phone("B1", model="Galaxy S24")], [])  # A3 unplugged, B1 plugged in
    assert sum(sql.startswith("UPDATE") for sql in queries) == 2  # the runner, the devices
    assert sum(sql.startswith("INSERT") for sql in queries) == 2  # the new device, the state changes
    devices = {d.serial: d for d in Device.objects.all()}
    assert (devices["A1"].battery, devices["A1"].capabilities, devices["A1"].state) == (40.0, capabilities,
                                                                                        "available")
    assert devices["A2"].capabilities["sdk"] == 34  # each row keeps its own values
    assert (devices["A2"].state, devices["A2"].state_reason) == ("not_ready", "hot")
    assert (devices["A3"].state, devices["A3"].state_reason) == ("offline", "disconnected")
    assert devices["A3"].last_seen_at == before["A3"]  # no longer listed: not seen
    assert devices["A1"].last_seen_at > before["A1"]
    assert devices["B1"].model == "Galaxy S24"
    new = DeviceStateChange.objects.order_by("id")[recorded:]
    assert [(c.device.serial, c.from_state, c.to_state) for c in new] == [
        ("A2", "available", "not_ready"), ("B1", "offline", "available"), ("A3", "available", "offline")]
