"""The android driver. Before a run's first block the phone gets the harness (android_harness.py:
built once per version, installed once per phone, checked before each run); then each block
goes through `fastlane android bench serial:<S> job:<path> out:<path> instrumentation:<path>
device_dir:<dir>`: the lane pushes the job into the harness app's shell-readable media
directory, runs `am instrument -w -r` with the job's device path as the `job` argument, writes
its raw output to `instrumentation`, and pulls the result. The runner judges the block from
that raw output (outcome.android_end), pulls the result itself when the lane stopped before
its pull, and force-stops the harness when it had to kill the lane."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path

from ..devices.android import AndroidDevices
from ..devices.tools import ToolError
from .android_harness import AndroidHarness
from .artifacts import RunArtifacts
from .fastlane import LaneRun
from .lane_failure import LaneFailure
from .outcome import BlockFailure, android_end, lane_failure
from .phone import PhoneDriver, PhoneSettings

log = logging.getLogger(__name__)

# Android 10+ lets the shell read and write an app's external media directory, and the app
# needs no permission for its own (androidx.benchmark's Outputs.kt uses it the same way).
HARNESS_PACKAGE = "dev.latencylab.harness"
HARNESS_TEST_PACKAGE = f"{HARNESS_PACKAGE}.test"
# The harness's own android.app.Instrumentation (harness/android/app/src/androidTest), not AndroidJUnitRunner.
INSTRUMENTATION = f"{HARNESS_TEST_PACKAGE}/dev.latencylab.harness.instrumentation.BenchInstrumentation"
DEVICE_DIR = f"/sdcard/Android/media/{HARNESS_PACKAGE}/latencylab"
TARGET_CA_ENV = "LATENCYLAB_TARGET_CA"


def instrumentation_path(out_path: Path) -> Path:
    """Where the bench lane writes `am instrument`'s raw output for this block."""
    return out_path.with_name(out_path.stem + ".instrumentation.txt")


class AndroidDriver(PhoneDriver):
    name = "android"
    tool = "adb"

    def __init__(self, devices: AndroidDevices, settings: PhoneSettings, *, device_dir: str = DEVICE_DIR):
        super().__init__(devices, settings)
        self.adb = devices.adb
        self.device_dir = device_dir
        self.harness = AndroidHarness(self._preparation_lane, device_runner=settings.lane.directory.parent,
                                      work_dir=settings.work_dir, ca_file=settings.target.ca_file,
                                      timeout_s=settings.lane.base_timeout_s)
        self._cancelled = threading.local()  # the run whose preparation lane is running on this thread

    def device_path(self, host_path: Path) -> str:
        return f"{self.device_dir}/{host_path.name}"

    def run_lane(self, serial: str, job_path: Path, out_path: Path, *, env: dict[str, str],
                 cancelled: threading.Event, timeout_s: float) -> LaneRun:
        instrumentation_path(out_path).unlink(missing_ok=True)
        return self.lane(["android", "bench", f"serial:{serial}", f"job:{job_path}", f"out:{out_path}",
                          f"instrumentation:{instrumentation_path(out_path)}", f"device_dir:{self.device_dir}"],
                         env={**self.build_env(), **env}, cancelled=cancelled, timeout_s=timeout_s, label=serial)

    def build_env(self) -> dict[str, str]:
        """The reference target's CA, built into the app for Cronet (the Fastfile's android_properties)."""
        ca = self.settings.target.ca_file
        return {TARGET_CA_ENV: ca} if ca else {}

    # -- the harness on the phone ---------------------------------------------
    def prepare(self, serial: str, cancelled: threading.Event, artifacts: RunArtifacts, block: int) -> None:
        self.check_present(serial, self.devices.presence(serial))
        self._cancelled.event = cancelled
        try:
            self.harness.ensure_installed(serial)
        except LaneFailure as failure:
            self.harness.forget(serial)
            artifacts.block_evidence(block, lane_log=failure.log, raw_result=None, failed=True)
            self.check_present(serial, self.devices.presence(serial))  # unplugged mid-install: device_lost
            raise

    def _preparation_lane(self, args: list[str], timeout_s: float, label: str) -> LaneRun:
        return self.lane(args, env=self.build_env(), cancelled=self._cancelled.event, timeout_s=timeout_s,
                         label=label)

    def stop_harness(self, serial: str) -> None:
        """`am force-stop`: the instrumentation keeps running on the phone after its lane was
        killed; stopping the app ends it (ActivityManager then reports "Process crashed.")."""
        try:
            self.adb.shell(serial, "am", "force-stop", HARNESS_PACKAGE)
        except ToolError as exc:
            log.warning("%s: could not force-stop the harness: %s", serial, exc.detail)

    # -- one block -------------------------------------------------------------
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

    def end_of_lane(self, lane: LaneRun, out_path: Path) -> BlockFailure | None:
        raw = instrumentation_path(out_path)
        if raw.is_file():
            return android_end(raw.read_text(errors="replace"))
        if lane.returncode != 0 and not lane.timed_out:
            return BlockFailure("runner_fault", f"the bench lane stopped before the instrumentation ran: "
                                                f"{lane_failure(lane.text)}")
        return android_end(lane.text)  # killed mid-instrumentation: what the log relayed

    def end_from_log(self, text: str) -> BlockFailure | None:
        return android_end(text)

    def clean_up(self, serial: str, job_path: Path, out_path: Path) -> None:
        super().clean_up(serial, job_path, out_path)
        instrumentation_path(out_path).unlink(missing_ok=True)
        try:
            self.adb.shell(serial, "rm", "-f", self.device_path(job_path), self.device_path(out_path))
        except ToolError:
            pass  # the phone is gone; its files go with the harness app's data
