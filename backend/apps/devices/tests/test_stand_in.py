"""Which fingerprints mark the phone simulator's JVM stand-in (apps.devices.stand_in)."""

from dataclasses import dataclass
from typing import Any

import pytest

from apps.devices.stand_in import device_stand_in, run_stand_in, stand_in_of_run


@pytest.mark.parametrize("fingerprint,expected", [
    ({"manufacturer": "Google", "build": "AP2A.240805.005", "stand_in": "jvm"}, "jvm"),
    ({"manufacturer": "Google", "build": "AP2A.240805.005"}, None),  # a real phone says nothing
    ({"stand_in": ""}, None),
    ({"stand_in": 1}, None),
    ({}, None),
    (None, None),
    ([], None),
])
def test_a_device_is_a_stand_in_only_when_its_fingerprint_says_so(fingerprint, expected):
    assert device_stand_in(fingerprint) == expected


@pytest.mark.parametrize("fingerprint,expected", [
    # The runner copied the device's announcement into the run's fingerprint.
    ({"platform": "android", "harness_version": "latencylab-harness 0.1.0 (android)",
      "device": {"stand_in": "jvm"}}, "jvm"),
    # The harness said it ran on a JVM, on a phone platform (a result from before the announcement).
    ({"platform": "ios", "harness_version": "latencylab-harness 0.1.0 (jvm)"}, "jvm"),
    ({"platform": "android", "harness_version": "latencylab-harness 0.1.0 (jvm)", "device": {}}, "jvm"),
    ({"platform": "ios", "harness_version": "latencylab-harness 0.1.0 (jvm) — JVM stand-in for the iOS XCTest "
                                            "harness (phone simulator)"}, "jvm"),
    # Phones running their own harness; the host runner (the probe is its harness, not a stand-in).
    ({"platform": "android", "harness_version": "latencylab-harness 0.1.0 (android)"}, None),
    ({"platform": "ios", "harness_version": "latencylab-harness 0.1.0 (ios)"}, None),
    ({"platform": "host", "harness_version": "latencylab-runner 0.2.0 (python 3.11.2)"}, None),
    ({"platform": "host", "harness_version": "something (jvm)"}, None),
    ({"platform": "android", "harness_version": None}, None),
    ({}, None),
    (None, None),
])
def test_a_run_is_a_stand_in_by_its_device_or_its_harness(fingerprint, expected):
    assert run_stand_in(fingerprint) == expected


@dataclass
class _Device:
    fingerprint: Any


@dataclass
class _Run:
    fingerprint: Any
    device: _Device | None


@pytest.mark.parametrize("run,expected", [
    # What the run recorded of itself comes first…
    (_Run({"platform": "ios", "harness_version": "latencylab-harness 0.1.0 (jvm)"}, None), "jvm"),
    # …a run with nothing recorded yet (queued, leased) is its device's…
    (_Run({}, _Device({"stand_in": "jvm"})), "jvm"),
    (_Run(None, _Device({"model": "Pixel 8"})), None),
    # …and without a device, nothing.
    (_Run({"platform": "android", "harness_version": "latencylab-harness 0.1.0 (android)"}, None), None),
])
def test_a_runs_stand_in_is_its_own_record_or_its_devices(run, expected):
    assert stand_in_of_run(run) == expected
