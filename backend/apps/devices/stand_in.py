"""Whether a device, or a run, was the phone simulator's JVM stand-in rather than a phone.

The phone simulator (the runner package's `latencylab-phone-simulator`, which `make up`'s demo
lab and the device-farm tests run) announces its phones through the device tools, and the
runner puts that in the device's fingerprint as `stand_in` ("jvm": the Kotlin harness core
ran on the lab host's JVM, behind an emulated link, in place of the phone's harness). A run
also knows it from what its harness said of itself (`harness_version` "latencylab-harness
0.1.0 (jvm)…" on a phone platform), so a result stays marked even if the device record is
gone. Numbers measured this way are the lab host's, not a phone's: every page and report that
names such a device says so.
"""

from __future__ import annotations

from typing import Any, Protocol

JVM = "jvm"
LABEL = "phone simulator (JVM stand-in)"
PHONE_PLATFORMS = ("android", "ios")


def device_stand_in(fingerprint: Any) -> str | None:
    """The stand-in a device descriptor's fingerprint announces, or None for a real device."""
    if not isinstance(fingerprint, dict):
        return None
    value = fingerprint.get("stand_in")
    return value if isinstance(value, str) and value else None


class _HasFingerprint(Protocol):
    fingerprint: Any


class RunWithDevice(Protocol):
    """What `stand_in_of_run` reads of a run: its fingerprint and its device, if it still has one."""

    fingerprint: Any

    @property
    def device(self) -> _HasFingerprint | None: ...


def run_stand_in(fingerprint: Any) -> str | None:
    """The stand-in a run's fingerprint shows: its device's announcement, or a phone run whose
    harness reported running on a JVM."""
    if not isinstance(fingerprint, dict):
        return None
    announced = device_stand_in(fingerprint.get("device"))
    if announced:
        return announced
    harness = fingerprint.get("harness_version")
    if fingerprint.get("platform") in PHONE_PLATFORMS and isinstance(harness, str) and f"({JVM})" in harness:
        return JVM
    return None


def stand_in_of_run(run: RunWithDevice) -> str | None:
    """The stand-in a run was measured on: what the run recorded of itself, or else what its
    device (still assigned) announces now."""
    return run_stand_in(run.fingerprint) or (device_stand_in(run.device.fingerprint) if run.device else None)
