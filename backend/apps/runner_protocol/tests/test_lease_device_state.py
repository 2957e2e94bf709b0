"""A lease request names the devices that were free when the runner sent it (a long
poll); the service leases only to those its latest report left leasable — not to one the
runner has since reported unplugged, unauthorized or held by its readiness gate."""

import pytest

from testing.device_farm import android_comparison, heartbeat, lease, leased_run, phone, runner_client


@pytest.mark.django_db
@pytest.mark.parametrize("state, reason", [("offline", "disconnected"), ("unauthorized", "adb: device unauthorized"),
                                           ("not_ready", "battery 32 % < 50 %")])
def test_no_lease_for_a_device_reported_unleasable_since(org, pool, state, reason):
    lab = runner_client(pool, "lab-a", [phone("A1"), phone("A2")])
    heartbeat(lab, [phone("A1", state=state, reason=reason), phone("A2")])
    android_comparison(org)
    assert lease(lab, ["A1"]).status_code == 204
    assert leased_run(lab, ["A1", "A2"])["device_serial"] == "A2"
