"""iPhones through libimobiledevice (`libimobiledevice-utils`): `idevice_id -l`,
`ideviceinfo -u UDID` (identity), `ideviceinfo -u UDID -q com.apple.mobile.battery`
(level, charging) and, where installed, `idevicediagnostics ioregentry
AppleSmartBattery` (temperature, hundredths of °C), parsed from the tools' exact
formats (libimobiledevice tools/*.c, libplist's text writer)."""

from __future__ import annotations

import logging
import plistlib
import re
import threading
from typing import Any

from .gate import GateThresholds, apply_health
from .model import STAND_IN_IOS_KEY, DeviceStatus
from .tools import ToolError, run_tool, tool_available

log = logging.getLogger(__name__)

BATTERY_DOMAIN = "com.apple.mobile.battery"
# lockdownd errors that mean "this host is not trusted (yet)": passcode set, trust denied,
# trust dialog pending, host id missing or invalid, pairing record invalid.
_PAIRING_ERRORS = {-2, -17, -18, -19, -20, -21}
# libimobiledevice ≥ 1.3.1 prints `…: <strerror> (<code>)`; 1.3.0 (Debian 12) `…, error code <code>`.
_LOCKDOWN_ERROR = re.compile(r"Could not connect to lockdownd(?::\s*(?P<text>.*?)\s*\((?P<code>-?\d+)\)"
                             r"|, error code (?P<old>-?\d+))")
# URLSession for h2/h3 (assumesHTTP3Capable), grpc-swift for gRPC (harness/ios). No h1:
# URLSession cannot turn HTTP/2 off, so an h1 arm would only measure protocol_mismatch
# (harness/ios/README.md); no h1c: App Transport Security forbids cleartext to named hosts (the
# harness excepts only the lab network, NSAllowsLocalNetworking, for the job exchange). The service
# refuses such specs for iOS and passes devices over for arms they do not list.
IOS_PROTOCOLS = ["h2", "h3", "grpc"]
# lockdownd reports the hardware identifier (ProductType); a lab knows its phones by their
# marketing names, and Android's ro.product.model already is one ("Pixel 8"). Devices pool by
# platform + model, so each identifier maps to exactly one name. Unknown identifiers (newer
# phones) are shown as they are; the identifier is always kept in the fingerprint.
IPHONE_NAMES = {
    "iPhone12,1": "iPhone 11", "iPhone12,3": "iPhone 11 Pro", "iPhone12,5": "iPhone 11 Pro Max",
    "iPhone12,8": "iPhone SE (2nd generation)", "iPhone13,1": "iPhone 12 mini", "iPhone13,2": "iPhone 12",
    "iPhone13,3": "iPhone 12 Pro", "iPhone13,4": "iPhone 12 Pro Max", "iPhone14,4": "iPhone 13 mini",
    "iPhone14,5": "iPhone 13", "iPhone14,2": "iPhone 13 Pro", "iPhone14,3": "iPhone 13 Pro Max",
    "iPhone14,6": "iPhone SE (3rd generation)", "iPhone14,7": "iPhone 14", "iPhone14,8": "iPhone 14 Plus",
    "iPhone15,2": "iPhone 14 Pro", "iPhone15,3": "iPhone 14 Pro Max", "iPhone15,4": "iPhone 15",
    "iPhone15,5": "iPhone 15 Plus", "iPhone16,1": "iPhone 15 Pro", "iPhone16,2": "iPhone 15 Pro Max",
    "iPhone17,1": "iPhone 16 Pro", "iPhone17,2": "iPhone 16 Pro Max", "iPhone17,3": "iPhone 16",
    "iPhone17,4": "iPhone 16 Plus", "iPhone17,5": "iPhone 16e",
}


def model_name(product_type: str) -> str:
    """The marketing name of an iPhone's ProductType ("iPhone16,1" → "iPhone 15 Pro")."""
    return IPHONE_NAMES.get(product_type, product_type)


def parse_udids(text: str) -> list[str]:
    """`idevice_id -l`: one USB UDID per line; nothing at all when no device is attached.
    Without -l the tool appends ` (USB)` / ` (Network)`; tolerated, the UDID is the first word."""
    return [line.split()[0] for line in text.splitlines() if line.strip()]


def parse_key_values(text: str) -> dict[str, str]:
    """ideviceinfo's key/value output: top-level `Key: value` lines. A nested dict's
    continuation lines and array items are indented and skipped; an array's own line is
    `Key[N]:` with no value and is skipped too."""
    values = {}
    for line in text.splitlines():
        if not line or line[0].isspace():
            continue
        key, sep, value = line.partition(": ")
        if sep and "[" not in key:
            values[key] = value
    return values


def parse_bool(value: str | None) -> bool | None:
    return {"true": True, "false": False}.get(value or "")


def parse_ioreg_temperature(xml: str) -> float | None:
    """`idevicediagnostics ioregentry …` prints an XML plist {IORegistry: {…}}; its
    `Temperature` is in hundredths of a degree Celsius."""
    start = xml.find("<?xml")
    if start < 0:
        return None
    try:
        document = plistlib.loads(xml[start:].strip().encode())
    except (plistlib.InvalidFileException, ValueError):
        return None
    registry = document.get("IORegistry") if isinstance(document, dict) else None
    value = registry.get("Temperature") if isinstance(registry, dict) else None
    return round(value / 100, 2) if isinstance(value, int | float) and not isinstance(value, bool) else None


def lockdown_state(text: str) -> tuple[str, str] | None:
    """(state, reason) when ideviceinfo could not talk to the phone's lockdownd."""
    match = _LOCKDOWN_ERROR.search(text)
    if match is None:
        return None
    code = int(match.group("code") or match.group("old"))
    detail = text.strip().splitlines()[0][:300]
    if code in _PAIRING_ERRORS:
        return "unauthorized", f"not trusted by the phone yet (lockdownd {code}): unlock it and tap Trust; {detail}"
    return "offline", detail


class IDeviceTools:
    def __init__(self, *, idevice_id: str = "idevice_id", ideviceinfo: str = "ideviceinfo",
                 idevicediagnostics: str = "idevicediagnostics", timeout_s: float = 20.0):
        self.idevice_id = idevice_id
        self.ideviceinfo = ideviceinfo
        self.idevicediagnostics = idevicediagnostics
        self.timeout_s = timeout_s

    def udids(self) -> list[str]:
        done = run_tool([self.idevice_id, "-l"], timeout_s=self.timeout_s)
        if done.returncode != 0:
            # `ERROR: Unable to retrieve device list!` (exit 255): usbmuxd is not running.
            raise ToolError("idevice_id", done.text or f"exited {done.returncode}")
        return parse_udids(done.stdout)

    def info(self, udid: str, domain: str | None = None) -> dict[str, str]:
        argv = [self.ideviceinfo, "-u", udid] + (["-q", domain] if domain else [])
        done = run_tool(argv, timeout_s=self.timeout_s)
        if done.returncode != 0:
            raise ToolError("ideviceinfo", done.text or f"exited {done.returncode}")
        return parse_key_values(done.stdout)

    def temperature(self, udid: str) -> float | None:
        if not tool_available(self.idevicediagnostics):
            return None
        try:
            done = run_tool([self.idevicediagnostics, "-u", udid, "ioregentry", "AppleSmartBattery"],
                            timeout_s=self.timeout_s)
        except ToolError:
            return None
        return parse_ioreg_temperature(done.stdout) if done.returncode == 0 else None


class IosDevices:
    platform = "ios"

    def __init__(self, tools: IDeviceTools, limits: GateThresholds):
        self.tools = tools
        self.limits = limits
        self._identity: dict[str, dict[str, str]] = {}
        self._last: dict[str, DeviceStatus] = {}
        self._lock = threading.Lock()

    def discover(self, *, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        found = []
        udids = self.tools.udids()
        for udid in udids:
            if udid in busy and udid in self._last:
                found.append(self._last[udid])
            else:
                found.append(self._status(udid))
        with self._lock:
            for udid in set(self._identity) - set(udids):
                self._identity.pop(udid, None)
            self._last = {d.serial: d for d in found}
        return found

    def status(self, udid: str) -> DeviceStatus | None:
        return self._status(udid) if udid in self.tools.udids() else None

    def presence(self, udid: str) -> DeviceStatus | None:
        """Whether usbmuxd still lists the phone (no lockdown session)."""
        if udid not in self.tools.udids():
            return None
        return DeviceStatus(serial=udid, platform=self.platform)

    def _status(self, udid: str) -> DeviceStatus:
        status = DeviceStatus(serial=udid, platform=self.platform, capabilities={"protocols": IOS_PROTOCOLS})
        try:
            identity = self._identity.get(udid) or self.tools.info(udid)
            battery = self.tools.info(udid, BATTERY_DOMAIN)
        except ToolError as exc:
            status.state, status.reason = lockdown_state(exc.detail) or ("offline", exc.detail[:500])
            return status
        self._identity[udid] = identity
        status.model = model_name(identity.get("ProductType", ""))
        status.os_version = identity.get("ProductVersion", "")
        level = battery.get("BatteryCurrentCapacity", "")
        status.battery = float(level) if level.isdigit() else None
        charging = [parse_bool(battery.get(k)) for k in ("BatteryIsCharging", "ExternalConnected")]
        status.charging = any(charging) if any(c is not None for c in charging) else None
        status.temperature = self.tools.temperature(udid)
        status.fingerprint = fingerprint_of(identity)
        return apply_health(status, self.limits)


def fingerprint_of(identity: dict[str, str]) -> dict[str, Any]:
    return {"device_name": identity.get("DeviceName"), "build": identity.get("BuildVersion"),
            "hardware_model": identity.get("HardwareModel"), "product_type": identity.get("ProductType"),
            **({"stand_in": identity[STAND_IN_IOS_KEY]} if identity.get(STAND_IN_IOS_KEY) else {})}
