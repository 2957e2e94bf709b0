"""The android driver: each block of a leased run goes to the phone through
`fastlane android bench serial:<S> job:<path> out:<path> device_dir:<dir>` (the lane
pushes the job into the harness app's shell-readable media directory, runs the
instrumentation with the job's device path as the `job` argument, and pulls the result);
the runner pulls the result itself when the lane stopped before its own pull (a failed
test makes gradle fail first), and judges the end from the instrumentation status lines."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path

from ..devices.android import AndroidDevices
from ..devices.tools import ToolError
from .fastlane import LaneRun
from .outcome import BlockFailure, android_end
from .phone import PhoneDriver, PhoneSettings

log = logging.getLogger(__name__)

# Android 10+ lets the shell read and write an app's external media directory, and the app
# needs no permission for its own (androidx.benchmark's Outputs.kt uses it the same way).
HARNESS_PACKAGE = "dev.latencylab.harness"
DEVICE_DIR = f"/sdcard/Android/media/{HARNESS_PACKAGE}/latencylab"
TARGET_CA_ENV = "LATENCYLAB_TARGET_CA"


class AndroidDriver(PhoneDriver):
    name = "android"
    tool = "adb"

    def __init__(self, devices: AndroidDevices, settings: PhoneSettings, *, device_dir: str = DEVICE_DIR):
        super().__init__(devices, settings)
        self.adb = devices.adb
        self.device_dir = device_dir

    def device_path(self, host_path: Path) -> str:
        return f"{self.device_dir}/{host_path.name}"

    def run_lane(self, serial: str, job_path: Path, out_path: Path, *, env: dict[str, str],
                 cancelled: threading.Event, timeout_s: float) -> LaneRun:
        return self.lane(["android", "bench", f"serial:{serial}", f"job:{job_path}", f"out:{out_path}",
                          f"device_dir:{self.device_dir}"], env={**self.build_env(), **env}, cancelled=cancelled,
                         timeout_s=timeout_s, label=serial)

    def build_env(self) -> dict[str, str]:
        """The reference target's CA, which the app was built with for Cronet (the Fastfile's
        android_properties): connectedAndroidTest given another would rebuild it without."""
        ca = self.settings.target.ca_file
        return {TARGET_CA_ENV: ca} if ca else {}

    def device_address(self, serial: str) -> str:
        """`ip -f inet addr show wlan0` on the phone (toybox ip prints iproute2's format)."""
        try:
            text = self.adb.shell(serial, "ip", "-f", "inet", "addr", "show", "wlan0")
        except ToolError as exc:
            raise RuntimeError(f"cannot read the phone's Wi-Fi address: {exc.detail}") from exc
        match = re.search(r"^\s*inet (\d+\.\d+\.\d+\.\d+)/\d+", text, re.MULTILINE)
        if match is None:
            raise RuntimeError("the phone has no IPv4 address on wlan0: is it on the lab Wi-Fi?")
        return match.group(1)

    def collect_result(self, serial: str, out_path: Path, lane: LaneRun) -> bytes | None:
        if out_path.is_file():
            return out_path.read_bytes()
        try:
            self.adb.pull(serial, self.device_path(out_path), str(out_path), timeout_s=300)
        except ToolError as exc:
            log.info("%s: no result to pull: %s", serial, exc.detail)
            return None
        return out_path.read_bytes() if out_path.is_file() else None

    def end_from_log(self, text: str) -> BlockFailure | None:
        return android_end(text)

    def clean_up(self, serial: str, job_path: Path, out_path: Path) -> None:
        super().clean_up(serial, job_path, out_path)
        try:
            self.adb.shell(serial, "rm", "-f", self.device_path(job_path), self.device_path(out_path))
        except ToolError:
            pass  # the phone is gone; its files go with the harness app's data
