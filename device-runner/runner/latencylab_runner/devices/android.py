"""Android phones through adb (Debian's `adb` client): `adb devices -l`, `getprop`,
`dumpsys battery`, `dumpsys thermalservice`, parsed from adb's and Android's exact
output formats (AOSP adb transport.cpp, BatteryService, ThermalManagerService)."""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import Any

from .gate import THERMAL_SEVERITY, GateThresholds, apply_health
from .model import STAND_IN_ANDROID_PROP, DeviceStatus
from .tools import ToolError, ToolResult, run_tool

log = logging.getLogger(__name__)

HEADER = "List of devices attached"
NO_SERIAL = "(no serial number)"
# `adb devices -l` appends these after the state, each only when known; transport_id is
# always last. A `no permissions (…)` state has spaces, so the state ends at the first one.
_FIELD_MARKERS = (" usb:", " product:", " model:", " device:", " transport_id:")
# Android Q's thermal status before the HAL reports (Integer.MIN_VALUE): unknown.
_THERMAL_INVALID = -2147483648
PROPS = {"model": "ro.product.model", "release": "ro.build.version.release", "sdk": "ro.build.version.sdk",
         "manufacturer": "ro.product.manufacturer", "build": "ro.build.id", "stand_in": STAND_IN_ANDROID_PROP}
# The harness app: OkHttp for h1/h2, grpc-java for gRPC, Cronet for h3 (harness/android).
ANDROID_PROTOCOLS = ["h1c", "h1", "h2", "h3", "grpc"]


@dataclass(frozen=True)
class AdbDevice:
    serial: str
    state: str  # adb's own text: device, unauthorized, offline, "no permissions (…); see […]", …
    usb: str | None = None
    product: str | None = None
    model: str | None = None  # sanitized by adb: every non-alphanumeric character became '_'
    device: str | None = None
    transport_id: int | None = None


def parse_devices(text: str) -> list[AdbDevice]:
    """`adb devices` (SERIAL TAB STATE) or `adb devices -l` output; the header and blank
    lines are skipped, and so are the client's `* daemon …` notices."""
    devices = []
    for line in text.splitlines():
        if not line.strip() or line.startswith(HEADER) or line.startswith("* "):
            continue
        if "\t" in line and not any(m in line for m in _FIELD_MARKERS):
            serial, _, state = line.partition("\t")
            devices.append(AdbDevice(serial.strip(), state.strip()))
            continue
        serial = NO_SERIAL if line.startswith(NO_SERIAL) else line.split(" ", 1)[0]
        rest = line[len(serial):].lstrip(" ")
        ends = [i for i in (rest.find(m) for m in _FIELD_MARKERS) if i >= 0]
        state = rest[:min(ends)] if ends else rest
        fields = dict(part.partition(":")[::2] for part in rest[len(state):].split())
        transport = fields.get("transport_id")
        devices.append(AdbDevice(serial, state.strip(), fields.get("usb"), fields.get("product"), fields.get("model"),
                                 fields.get("device"), int(transport) if transport and transport.isdigit() else None))
    return devices


@dataclass(frozen=True)
class BatteryReading:
    level_pct: float | None
    plugged: bool | None  # AC, USB, wireless or dock power
    temperature_c: float | None
    status: int | None  # BatteryManager: 1 unknown, 2 charging, 3 discharging, 4 not charging, 5 full


def parse_battery(text: str) -> BatteryReading:
    """`dumpsys battery`: two-space-indented `key: value` lines; unknown keys (newer
    releases, OEM additions) are ignored; temperature is in tenths of a degree."""
    values = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition(": ")
        if sep:
            values[key] = value.strip()

    def number(key: str) -> int | None:
        try:
            return int(values[key])
        except (KeyError, ValueError):
            return None

    level, scale = number("level"), number("scale") or 100
    powered = [values[k] == "true" for k in ("AC powered", "USB powered", "Wireless powered", "Dock powered")
               if k in values]
    temperature = number("temperature")
    return BatteryReading(
        level_pct=round(100.0 * level / scale, 1) if level is not None else None,
        plugged=any(powered) if powered else None,
        temperature_c=temperature / 10 if temperature is not None else None,
        status=number("status"),
    )


def parse_thermal_status(text: str) -> str | None:
    """`dumpsys thermalservice`'s `Thermal Status: N` as a severity name; None before
    Android 10 (no service) or before the thermal HAL reported."""
    match = re.search(r"^Thermal Status: (-?\d+)\s*$", text, re.MULTILINE)
    if match is None:
        return None
    code = int(match.group(1))
    if code == _THERMAL_INVALID or not 0 <= code < len(THERMAL_SEVERITY):
        return None
    return THERMAL_SEVERITY[code]


class Adb:
    """The adb client. `path` may be a bare name (PATH) or a full path; `env` passes
    ADB_SERVER_SOCKET and friends through."""

    def __init__(self, path: str = "adb", *, timeout_s: float = 20.0, env: dict[str, str] | None = None):
        self.path = path
        self.timeout_s = timeout_s
        self.env = env

    def run(self, *args: str, timeout_s: float | None = None) -> ToolResult:
        return run_tool([self.path, *args], timeout_s=timeout_s or self.timeout_s, env=self.env)

    def devices(self) -> list[AdbDevice]:
        done = self.run("devices", "-l")
        if done.returncode != 0:
            raise ToolError("adb", done.text or f"devices -l exited {done.returncode}")
        return parse_devices(done.stdout)

    def shell(self, serial: str, *command: str) -> str:
        """stdout of `adb -s SERIAL shell COMMAND`. adb prints its own failures (device not
        found, unauthorized, offline) as `adb: <error>` on stderr and exits 1. adb joins
        the words with spaces unescaped, so callers pass only words without metacharacters."""
        done = self.run("-s", serial, "shell", *command)
        if done.returncode != 0:
            raise ToolError("adb", done.text or f"shell {' '.join(command)} exited {done.returncode}")
        return done.stdout

    def getprop(self, serial: str, name: str) -> str:
        """The raw value (an unset property prints an empty line)."""
        return self.shell(serial, "getprop", name).rstrip("\r\n")

    def push(self, serial: str, local: str, remote: str, *, timeout_s: float | None = None) -> str:
        done = self.run("-s", serial, "push", local, remote, timeout_s=timeout_s)
        if done.returncode != 0:
            raise ToolError("adb", done.text or f"push exited {done.returncode}")
        return done.stdout

    def pull(self, serial: str, remote: str, local: str, *, timeout_s: float | None = None) -> str:
        done = self.run("-s", serial, "pull", remote, local, timeout_s=timeout_s)
        if done.returncode != 0:
            raise ToolError("adb", done.text or f"pull exited {done.returncode}")
        return done.stdout


def adb_state(device: AdbDevice) -> tuple[str, str | None]:
    """The runner's state and reason for adb's state text."""
    if device.state == "device":
        return "available", None
    if device.state in ("unauthorized", "authorizing"):
        return "unauthorized", f"adb authorization pending ({device.state}): accept the RSA key on the phone"
    if device.state.startswith("no permissions"):
        return "offline", f"adb: {device.state}"
    return "offline", f"adb state {device.state}"


class AndroidDevices:
    """Discovery for the android driver: identity once per connection (it does not
    change while plugged in), health at every call except for busy devices — a
    `dumpsys` in the middle of a block would run on the phone being measured."""

    platform = "android"

    def __init__(self, adb: Adb, limits: GateThresholds):
        self.adb = adb
        self.limits = limits
        self._identity: dict[str, dict[str, str]] = {}
        self._last: dict[str, DeviceStatus] = {}
        self._lock = threading.Lock()

    def discover(self, *, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        # A device without a serial cannot be addressed with `adb -s`: nothing to drive or report.
        listed = [d for d in self.adb.devices() if d.serial != NO_SERIAL]
        found = []
        for device in listed:
            if device.serial in busy and device.state == "device" and device.serial in self._last:
                found.append(self._last[device.serial])
                continue
            found.append(self._status(device))
        with self._lock:
            seen = {d.serial for d in listed}
            for serial in set(self._identity) - seen:
                self._identity.pop(serial, None)  # replugged later: read its identity again
            self._last = {d.serial: d for d in found}
        return found

    def status(self, serial: str) -> DeviceStatus | None:
        """Fresh status of one device (before a block), or None when adb no longer lists it."""
        for device in self.adb.devices():
            if device.serial == serial:
                return self._status(device)
        return None

    def presence(self, serial: str) -> DeviceStatus | None:
        """Whether adb still lists the device and in which state (no device commands)."""
        for device in self.adb.devices():
            if device.serial == serial:
                state, reason = adb_state(device)
                return DeviceStatus(serial=serial, platform=self.platform, state=state, reason=reason)
        return None

    def _status(self, device: AdbDevice) -> DeviceStatus:
        state, reason = adb_state(device)
        status = DeviceStatus(serial=device.serial, platform=self.platform,
                              model=(device.model or "").replace("_", " "), state=state, reason=reason,
                              capabilities={"protocols": ANDROID_PROTOCOLS})
        if state != "available":
            return status
        try:
            identity = self._identity.get(device.serial) or self._read_identity(device.serial)
            battery = parse_battery(self.adb.shell(device.serial, "dumpsys", "battery"))
            thermal = self._thermal(device.serial)
        except ToolError as exc:
            # Listed but not answering (e.g. unplugged between the listing and the query).
            status.state, status.reason = "offline", exc.detail[:500]
            return status
        self._identity[device.serial] = identity
        status.model = identity["model"] or status.model
        status.os_version = identity["release"]
        sdk = int(identity["sdk"]) if identity["sdk"].isdigit() else None
        status.capabilities = {"protocols": ANDROID_PROTOCOLS, "sdk": sdk}
        status.battery, status.charging = battery.level_pct, battery.plugged
        status.temperature, status.thermal_status = battery.temperature_c, thermal
        status.fingerprint = fingerprint_of(identity, device)
        return apply_health(status, self.limits)

    def _read_identity(self, serial: str) -> dict[str, str]:
        return {key: self.adb.getprop(serial, prop) for key, prop in PROPS.items()}

    def _thermal(self, serial: str) -> str | None:
        try:
            return parse_thermal_status(self.adb.shell(serial, "dumpsys", "thermalservice"))
        except ToolError:
            return None  # before Android 10 there is no thermalservice


def fingerprint_of(identity: dict[str, str], device: AdbDevice) -> dict[str, Any]:
    return {"manufacturer": identity.get("manufacturer") or None, "build": identity.get("build") or None,
            "sdk": int(identity["sdk"]) if identity.get("sdk", "").isdigit() else None,
            "product": device.product, "device": device.device,
            **({"stand_in": identity["stand_in"]} if identity.get("stand_in") else {})}
