"""One device as the runner sees it, and its descriptor for hello and heartbeat
(contract/README.md "Device descriptors")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# States the runner reports; the backend adds `quarantined`.
STATES = ("available", "busy", "not_ready", "unauthorized", "offline")
REASON_MAX = 200  # the backend's limit for a state reason
# The phone simulator (latencylab-phone-simulator) announces its phones through the device
# tools: a system property on Android, a lockdown identity key on iOS. No real phone has
# either. The descriptor's fingerprint then carries `stand_in` ("jvm": the Kotlin harness
# core runs on the lab host's JVM in place of the phone), which the service shows on every
# page and report that names the device.
STAND_IN_ANDROID_PROP = "ro.latencylab.phone_simulator"
STAND_IN_IOS_KEY = "LatencyLabPhoneSimulator"


@dataclass
class DeviceStatus:
    serial: str
    platform: str  # host | android | ios
    model: str = ""
    os_version: str = ""
    capabilities: dict[str, Any] = field(default_factory=dict)
    state: str = "available"
    reason: str | None = None
    battery: float | None = None  # percent
    charging: bool | None = None  # external power connected
    temperature: float | None = None  # °C (battery)
    thermal_status: str | None = None  # the platform's own names: Android none, light, …; iOS nominal, fair, …
    fingerprint: dict[str, Any] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        """Listed and answering: the tool can drive it (the gate may still hold it)."""
        return self.state in ("available", "busy", "not_ready")

    def descriptor(self) -> dict[str, Any]:
        return {"serial": self.serial, "platform": self.platform, "model": self.model,
                "os_version": self.os_version, "capabilities": self.capabilities, "state": self.state,
                "reason": self.reason[:REASON_MAX] if self.reason else self.reason, "battery": self.battery,
                "charging": self.charging,
                "temperature": self.temperature, "thermal_status": self.thermal_status,
                "fingerprint": self.fingerprint}
