"""The readiness gate: a device measures only when its battery, temperature and thermal
state cannot skew the numbers. (Whether the arms' targets answer is not the device's
health: drivers/target_check.py checks them before each block and blames their owner.)

A phone that throttles or is about to shut down measures itself, not the protocol; so a
held device waits (state `not_ready` with the reason) instead of producing samples."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .model import DeviceStatus

# Android's ThrottlingSeverity (thermal HAL 2.0), mildest first.
THERMAL_SEVERITY = ("none", "light", "moderate", "severe", "critical", "emergency", "shutdown")


@dataclass(frozen=True)
class GateThresholds:
    min_battery_pct: float = 50.0
    # A device on external power may start lower: it is not draining further.
    min_battery_charging_pct: float = 20.0
    max_temperature_c: float = 36.0
    # Held from the next severity up: `moderate` is where Android starts throttling.
    max_thermal_status: str = "light"
    reach_timeout_s: float = 3.0

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
        if "max_thermal_status" in config and config["max_thermal_status"] not in THERMAL_SEVERITY:
            raise ValueError(f"gate.max_thermal_status: must be one of {', '.join(THERMAL_SEVERITY)}, "
                             f"got {config['max_thermal_status']!r}")
        return cls(**config)


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
    status = device.thermal_status
    if status in THERMAL_SEVERITY and THERMAL_SEVERITY.index(status) > THERMAL_SEVERITY.index(
            limits.max_thermal_status):
        return f"thermal status {status} (throttling) > {limits.max_thermal_status}"
    return None


def apply_health(device: DeviceStatus, limits: GateThresholds) -> DeviceStatus:
    """A discovered, answering device becomes `not_ready` with the reason when its health
    holds it (used at every heartbeat)."""
    if device.state == "available":
        reason = health_reason(device, limits)
        if reason:
            device.state, device.reason = "not_ready", reason
    return device
