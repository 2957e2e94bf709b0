"""Device descriptors in hello and heartbeat (contract README, "Device descriptors"):
devices appear, disappear and change state within one heartbeat; quarantine and a live
lease outrank what the runner says; every state change is recorded with its reason."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.devices.models import Device, DeviceStateChange
from apps.devices.services import devices_mark_silent_offline
from testing.device_farm import android_comparison, finish, heartbeat, hello, leased_run, phone, runner_client


def changes(serial: str) -> list[tuple[str, str, str]]:
    return [(c.from_state, c.to_state, c.reason)
            for c in DeviceStateChange.objects.filter(device__serial=serial).order_by("at", "id")]


@pytest.mark.django_db
def test_hello_stores_the_full_descriptor(pool):
    runner_client(pool, "lab-a", [phone("R5CT1234")])
    device = Device.objects.get(serial="R5CT1234")
    assert (device.platform, device.model, device.os_version, device.state) == ("android", "Pixel 8", "14", "available")
    assert (device.battery, device.charging, device.temperature, device.thermal_status) == (87.0, True, 31.5, "none")
    assert device.capabilities["sdk"] == 34
    assert device.fingerprint["build"] == "AP2A.240805.005"
    assert changes("R5CT1234") == [("offline", "available", "reported by runner lab-a (new device)")]


@pytest.mark.django_db
def test_devices_appear_change_state_and_disappear_within_one_heartbeat(pool):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2")])
    response = heartbeat(lab, [
        phone("A1", state="not_ready", reason="battery 32 % < 50 %", battery=32.0, charging=False),
        phone("B7", model="Galaxy S24", state="unauthorized", reason="adb: device unauthorized"),
    ])  # A2 unplugged, B7 plugged in
    assert response.status_code == 200, response.content
    states = {d.serial: (d.state, d.state_reason) for d in Device.objects.all()}
    assert states == {"A1": ("not_ready", "battery 32 % < 50 %"), "A2": ("offline", "disconnected"),
                      "B7": ("unauthorized", "adb: device unauthorized")}
    assert {d["serial"]: d["state"] for d in response.json()["devices"]} == {"A1": "not_ready", "B7": "unauthorized"}
    assert Device.objects.get(serial="A1").battery == 32.0

    heartbeat(lab, [phone("A1"), phone("B7")])  # charged, authorized; A2 stays gone
    assert changes("A1") == [
        ("offline", "available", "reported by runner lab-a (new device)"),
        ("available", "not_ready", "battery 32 % < 50 % (reported by runner lab-a)"),
        ("not_ready", "available", "reported by runner lab-a"),
    ]
    assert changes("A2")[-1] == ("available", "offline", "disconnected (no longer listed by runner lab-a)")
    assert len(changes("A2")) == 2  # a device that stays gone is not recorded again
    assert changes("B7")[-1] == ("unauthorized", "available", "reported by runner lab-a")


@pytest.mark.django_db
def test_a_heartbeat_from_an_old_agent_keeps_what_it_does_not_say(pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    assert heartbeat(lab, [{"serial": "A1", "state": "available", "battery": 50}]).status_code == 200
    device = Device.objects.get(serial="A1")
    assert (device.model, device.battery, device.temperature, device.charging) == ("Pixel 8", 50.0, 31.5, True)


@pytest.mark.django_db
def test_another_runners_devices_are_not_touched(pool):
    runner_client(pool, "lab-a", [phone("A1")])
    other = runner_client(pool, "lab-b", [phone("B1")])
    heartbeat(other, [])
    assert Device.objects.get(serial="A1").state == "available"
    assert Device.objects.get(serial="B1").state == "offline"


@pytest.mark.django_db
def test_quarantine_is_not_overridden_by_the_runner(pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    Device.objects.filter(serial="A1").update(state="quarantined", state_reason="3 consecutive failures")
    heartbeat(lab, [phone("A1", battery=66.0)])
    device = Device.objects.get(serial="A1")
    assert (device.state, device.state_reason, device.battery) == ("quarantined", "3 consecutive failures", 66.0)
    hello(lab, [phone("A1")])
    assert Device.objects.get(serial="A1").state == "quarantined"


@pytest.mark.django_db
def test_a_device_under_a_live_lease_stays_busy_until_the_run_ends(org, pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    android_comparison(org)
    run = leased_run(lab, ["A1"])
    heartbeat(lab, [phone("A1", state="available")])  # the runner's report lags behind the lease
    assert Device.objects.get(serial="A1").state == "busy"
    heartbeat(lab, [phone("A1", state="offline", reason="adb: device offline")],
              runs=[{"run_id": run["run_id"], "lease_token": run["lease_token"]}])
    device = Device.objects.get(serial="A1")
    assert device.state == "busy"
    assert "offline: adb: device offline" in device.state_reason

    assert finish(lab, run, "infra_error", "device_lost", "device went offline during block 0").status_code == 200
    device.refresh_from_db()
    assert (device.state, device.state_reason) == ("offline", "adb: device offline")  # what the runner said last
    assert [c[:2] for c in changes("A1")] == [("offline", "available"), ("available", "busy"), ("busy", "offline")]


@pytest.mark.django_db
def test_a_silent_device_goes_offline_with_the_reason_recorded(pool, settings):
    runner_client(pool, "lab-a", [phone("A1")])
    Device.objects.update(last_seen_at=timezone.now() - timedelta(seconds=settings.RUNNER_OFFLINE_SECONDS + 1))
    assert devices_mark_silent_offline() == 1
    assert devices_mark_silent_offline() == 0
    assert changes("A1")[-1] == ("available", "offline", f"silent for more than {settings.RUNNER_OFFLINE_SECONDS} s")


@pytest.mark.django_db
def test_bad_descriptors_are_400_with_field_paths_and_change_nothing(pool):
    lab = runner_client(pool, "lab-a", [phone("A1")])
    before = list(Device.objects.values_list("serial", "state", "battery"))
    response = heartbeat(lab, [phone("A1", battery=120, state="quarantined"), phone("bad serial"),
                               phone("A3", thermal_status="Very Hot!", capabilities=["h2"])])
    assert response.status_code == 400
    errors = response.json()["devices"]  # by index: devices.0.battery …
    assert set(errors["0"]) == {"battery", "state"}
    assert "100" in errors["0"]["battery"][0]
    assert set(errors["1"]) == {"serial"}
    assert "printable" in errors["1"]["serial"][0]
    assert set(errors["2"]) == {"thermal_status", "capabilities"}
    assert "32" in errors["2"]["thermal_status"][0]

    duplicate = heartbeat(lab, [phone("A1"), phone("A1")])
    assert duplicate.status_code == 400
    assert "devices[1].serial" in duplicate.json()["devices"][0]
    unknown = heartbeat(lab, [{"serial": "NEW1", "state": "available"}])  # a new device must say what it is
    assert unknown.status_code == 400
    assert "devices[0].platform" in unknown.json()
    too_many = heartbeat(lab, [phone(f"S{i}") for i in range(65)])
    assert too_many.status_code == 400
    assert list(Device.objects.values_list("serial", "state", "battery")) == before
    assert DeviceStateChange.objects.count() == 1
