"""The readiness gate: a device measures only when its battery, temperature and thermal
state cannot skew the numbers, and only from the lab's network. (Whether the arms' targets
answer is not the device's health: drivers/target_check.py checks them before each block
and blames their owner.)

A phone that throttles or is about to shut down measures itself, not the protocol; so a
held device waits (state `not_ready` with the reason) instead of producing samples. The
same limits apply to what the phone's harness reports of itself at each block (its
fingerprint: battery, temperature, the platform's own thermal status — the only reading
of it on iOS), and `lab_networks` is what the harness's readiness check holds the phone's
address to (drivers/readiness.py)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, fields
from typing import Any

from .model import DeviceStatus

# Android's ThrottlingSeverity (thermal HAL 2.0, PowerManager.getCurrentThermalStatus), mildest first.
THERMAL_SEVERITY = ("none", "light", "moderate", "severe", "critical", "emergency", "shutdown")
# iOS's ProcessInfo.ThermalState, mildest first: `serious` is where iOS cuts performance.
IOS_THERMAL_STATES = ("nominal", "fair", "serious", "critical")


@dataclass(frozen=True)
class GateThresholds:
    min_battery_pct: float = 50.0
    # A device on external power may start lower: it is not draining further.
    min_battery_charging_pct: float = 20.0
    max_temperature_c: float = 36.0
    # Held from the next severity up: `moderate` is where Android starts throttling.
    max_thermal_status: str = "light"
    # The same on iOS's scale: held from `serious` up.
    max_ios_thermal_state: str = "fair"
    reach_timeout_s: float = 3.0
    # The lab network's address ranges (CIDR): a phone whose harness reaches the reference
    # target from an address outside them (cellular fallback, Wi-Fi Assist, another Wi-Fi)
    # measures nothing. Empty: addresses are reported, not judged.
    lab_networks: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: dict[str, Any] | None) -> GateThresholds:
        """From the runner config's `gate` object; unknown keys and values out of range
        are refused with the field's name and its allowed range."""
        config = config or {}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"gate.{unknown[0]}: unknown setting; known: {', '.join(sorted(known))}")
        ranges = {"min_battery_pct": (0, 100), "min_battery_charging_pct": (0, 100),
                  "max_temperature_c": (0, 100), "reach_timeout_s": (0.1, 60)}
        for key, (low, high) in ranges.items():
            if key in config:
                value = config[key]
                if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
                    raise ValueError(f"gate.{key}: must be a number from {low} to {high}, got {value!r}")
        for key, names in (("max_thermal_status", THERMAL_SEVERITY), ("max_ios_thermal_state", IOS_THERMAL_STATES)):
            if key in config and config[key] not in names:
                raise ValueError(f"gate.{key}: must be one of {', '.join(names)}, got {config[key]!r}")
        if "lab_networks" in config:
            config = {**config, "lab_networks": lab_networks_parse(config["lab_networks"])}
        return cls(**config)


def lab_networks_parse(value: Any) -> tuple[str, ...]:
    """The config's `gate.lab_networks` (a list of CIDR strings) in canonical form; a bad
    entry is refused with its index and the reason."""
    if not isinstance(value, list) or len(value) > 16:
        raise ValueError(f"gate.lab_networks: must be a list of at most 16 CIDR ranges, got {value!r}")
    out: list[str] = []
    for i, entry in enumerate(value):
        try:
            if not isinstance(entry, str) or "/" not in entry:
                raise ValueError("not address/prefix")
            network = str(ipaddress.ip_network(entry, strict=False))
        except ValueError as exc:
            raise ValueError(f"gate.lab_networks[{i}]: must be a CIDR range like 192.168.10.0/24, got {entry!r} "
                             f"({exc})") from None
        if network not in out:
            out.append(network)
    return tuple(out)


def health_reason(device: DeviceStatus, limits: GateThresholds) -> str | None:
    """Why the device's own state holds it, or None. Unknown values (null) do not hold a
    device: a tool that cannot read them should not take the phone out of service."""
    if device.battery is not None:
        if device.charging and device.battery < limits.min_battery_charging_pct:
            return f"battery {device.battery:g} % < {limits.min_battery_charging_pct:g} % while charging"
        if not device.charging and device.battery < limits.min_battery_pct:
            return f"battery {device.battery:g} % < {limits.min_battery_pct:g} %"
    if device.temperature is not None and device.temperature > limits.max_temperature_c:
        return f"temperature {device.temperature:g} °C > {limits.max_temperature_c:g} °C"
    return thermal_reason(device.platform, device.thermal_status, limits)


def thermal_reason(platform: str, status: str | None, limits: GateThresholds) -> str | None:
    """Why the platform's own thermal status holds the device, or None: Android's severities
    against max_thermal_status, iOS's thermal states against max_ios_thermal_state. A name
    the platform does not have (or null) holds nothing."""
    scale, limit = ((IOS_THERMAL_STATES, limits.max_ios_thermal_state) if platform == "ios"
                    else (THERMAL_SEVERITY, limits.max_thermal_status))
    if status in scale and scale.index(status) > scale.index(limit):
        return f"thermal status {status} (throttling) > {limit}"
    return None


def reported_health_reason(fingerprint: dict[str, Any], limits: GateThresholds) -> str | None:
    """Why what the phone's harness reported of itself at a block (its result's fingerprint:
    battery, charging, temperature, thermal_status) holds it, by the same limits as the
    device tools' readings; None when nothing does (or nothing was reported)."""
    reported = DeviceStatus(serial="", platform=str(fingerprint.get("platform") or ""),
                            battery=fingerprint.get("battery"), charging=fingerprint.get("charging"),
                            temperature=fingerprint.get("temperature"),
                            thermal_status=fingerprint.get("thermal_status"))
    reason = health_reason(reported, limits)
    return f"the phone reported {reason} at the block" if reason else None


def apply_health(device: DeviceStatus, limits: GateThresholds) -> DeviceStatus:
    """A discovered, answering device becomes `not_ready` with the reason when its health
    holds it (used at every heartbeat)."""
    if device.state == "available":
        reason = health_reason(device, limits)
        if reason:
            device.state, device.reason = "not_ready", reason
    return device
