"""The phones a test pretends are plugged in, as one JSON file every fake reads at each
call (so a test, or a fake, can change the world mid-run: unplug a phone, cool it down).

    {"android": [{"serial": "R5CT1234", "state": "device", "props": {...},
                  "battery": {...}, "thermal_status": 0, "unplug_after_blocks": null,
                  "instrumentation": "run" | "fail" | "crash" | "hang" | "malformed" | "system_crash",
                  "installed": {"dev.latencylab.harness": {"versionCode": 1, "versionName": "0.1.0"}, …},
                  "install_failure": null | "INSTALL_FAILED_INSUFFICIENT_STORAGE", …}],
     "ios": [{"udid": "...", "info": {...}, "battery": {...}, "temperature_centi_c": 2911,
              "thermal_state": "nominal",
              "lockdown_error": null, "unplug_after_blocks": null,
              "test": "run" | "fail" | "malformed" | "crash" | "early_exit",
              "locked": false, "developer_mode": true, "local_network": "allowed" | "denied",
              "free_bytes": 54000000000}],
     "xcode": {"profile": [udid, …]},   # the UDIDs the team's development profile holds
     "fastlane": {"mode": "run" | "build_failure" | "hang"}}

The simulated adb server and fastlane count what they did into the phone's entry
(`installs`, `force_stops`, `instrumentation_runs`; an iPhone's `builds`, `test_runs`,
`probes`), for tests to read.

Only stdlib: the fake executables run with the system python3.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ENV = "LATENCYLAB_FAKE_SCENARIO"
SIMULATOR_DIR = Path(__file__).resolve().parent
BIN_DIR = SIMULATOR_DIR / "bin"
# The checkout's device-runner/ (phone_simulator → latencylab_runner → runner → device-runner).
DEVICE_RUNNER = SIMULATOR_DIR.parents[2]
HARNESS_JAR = DEVICE_RUNNER / "harness" / "android" / "core" / "target" / "harness-core.jar"


# How a simulated phone announces itself to the runner, in what the runner reads from the
# device tools anyway (a system property; a lockdown identity key): no real phone has either,
# so every device page and report can mark these phones as the JVM stand-in they are
# (devices/model.py STAND_IN_* reads the same names).
STAND_IN = "jvm"
STAND_IN_ANDROID_PROP = "ro.latencylab.phone_simulator"
STAND_IN_IOS_KEY = "LatencyLabPhoneSimulator"


def android_device(serial: str = "R5CT1234", *, model: str = "Pixel 8", release: str = "14", sdk: int = 34,
                   level: int = 87, plugged: bool = True, temperature_tenths: int = 315,
                   thermal_status: int | None = 0, **extra: Any) -> dict[str, Any]:
    return {
        "serial": serial, "state": "device", "usb": "1-4", "product": "shiba", "device": "shiba",
        "props": {"ro.product.model": model, "ro.build.version.release": release, "ro.build.version.sdk": str(sdk),
                  "ro.product.manufacturer": "Google", "ro.build.id": "AP2A.240805.005",
                  "ro.product.name": "shiba", "ro.product.device": "shiba",
                  STAND_IN_ANDROID_PROP: STAND_IN},
        "battery": {"ac": False, "usb": plugged, "wireless": False, "level": level, "scale": 100,
                    "temperature": temperature_tenths, "status": 2 if plugged else 3, "voltage": 4248},
        "thermal_status": thermal_status,
        "unplug_after_blocks": None,
        "instrumentation": "run",
        "installed": {},  # the harness is installed by the runner's install_harness lane
        "wifi_ip": "192.168.10.23",
        **extra,
    }


def ios_device(udid: str = "00008130-001A2C3E0E38001C", *, product_type: str = "iPhone16,1",
               version: str = "17.5.1", level: int = 90, charging: bool = True,
               temperature_centi_c: int | None = 2911, device_name: str = "Lab iPhone 15 Pro",
               thermal_state: str | None = "nominal", **extra: Any) -> dict[str, Any]:
    return {
        "udid": udid,
        "info": {"ActivationState": "Activated", "BuildVersion": "21F90", "DeviceClass": "iPhone",
                 "DeviceName": device_name, "HardwareModel": "D83AP", "ProductName": "iPhone OS",
                 "ProductType": product_type, "ProductVersion": version, "UniqueDeviceID": udid,
                 "WiFiAddress": "a4:83:e7:12:34:56", STAND_IN_IOS_KEY: STAND_IN},
        "battery": {"BatteryCurrentCapacity": level, "BatteryIsCharging": charging, "ExternalChargeCapable": True,
                    "ExternalConnected": charging, "FullyCharged": False, "GasGaugeCapability": True,
                    "HasBattery": True},
        "temperature_centi_c": temperature_centi_c,
        # ProcessInfo.thermalState as the harness on the phone reads it (no host tool can).
        "thermal_state": thermal_state,
        "lockdown_error": None,
        "unplug_after_blocks": None,
        "test": "run",
        # What the preflight and xcodebuild find on the phone (com.apple.security.mac.amfi,
        # com.apple.disk_usage, the lock screen, iOS's Local Network permission for the harness).
        "locked": False,
        "developer_mode": True,
        "local_network": "allowed",
        "free_bytes": 54_000_000_000,
        **extra,
    }


def path() -> Path:
    return Path(os.environ[ENV])


@contextmanager
def _locked(scenario_path: Path, mode: int):
    with open(scenario_path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, mode)
        yield


def load(scenario_path: Path | None = None) -> dict[str, Any]:
    scenario_path = scenario_path or path()
    with _locked(scenario_path, fcntl.LOCK_SH):
        return json.loads(scenario_path.read_text())


def save(scenario: dict[str, Any], scenario_path: Path | None = None) -> None:
    scenario_path = scenario_path or path()
    with _locked(scenario_path, fcntl.LOCK_EX):
        tmp = scenario_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(scenario, indent=1))
        tmp.replace(scenario_path)


@contextmanager
def editing(scenario_path: Path | None = None):
    """Read-modify-write under one lock (the simulated tools count blocks and unplug phones)."""
    scenario_path = scenario_path or path()
    with _locked(scenario_path, fcntl.LOCK_EX):
        scenario = json.loads(scenario_path.read_text())
        yield scenario
        tmp = scenario_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(scenario, indent=1))
        tmp.replace(scenario_path)
