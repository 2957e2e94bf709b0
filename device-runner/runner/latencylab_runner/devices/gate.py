"""The readiness gate: a device measures only when its battery, temperature and thermal
state cannot skew the numbers and the arms' targets answer from the lab network.

A phone that throttles or is about to shut down measures itself, not the protocol; so a
held device waits (state `not_ready` with the reason) instead of producing samples."""

from __future__ import annotations

import socket
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

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


def origin_address(origin: str) -> tuple[str, int]:
    url = urlsplit(origin)
    port = url.port or (80 if url.scheme == "http" else 443)
    return url.hostname or "", port


def reachability_reason(origins: list[str], limits: GateThresholds,
                        pinned: dict[str, str] | None = None) -> str | None:
    """A TCP connect from this host to every distinct origin: the phones reach the
    targets through the same lab network, so a target this host cannot reach would only
    produce a block of connect errors. h3 arms are checked over TCP too: the reference
    target serves its TLS port on both. A hosted run's host is reached at its checked
    address (`pinned`), never looked up again."""
    for host, port in dict.fromkeys(origin_address(o) for o in origins):
        try:
            socket.create_connection(((pinned or {}).get(host, host), port), timeout=limits.reach_timeout_s).close()
        except OSError as exc:
            return f"target {host}:{port} unreachable: {exc.strerror or exc}"
    return None


def readiness_reason(device: DeviceStatus, origins: list[str], limits: GateThresholds,
                     pinned: dict[str, str] | None = None) -> str | None:
    """Before each block: the device's health, then the targets; None when ready."""
    return health_reason(device, limits) or reachability_reason(origins, limits, pinned)


def apply_health(device: DeviceStatus, limits: GateThresholds) -> DeviceStatus:
    """A discovered, answering device becomes `not_ready` with the reason when its health
    holds it (used at every heartbeat)."""
    if device.state == "available":
        reason = health_reason(device, limits)
        if reason:
            device.state, device.reason = "not_ready", reason
    return device
