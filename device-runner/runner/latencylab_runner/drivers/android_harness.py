"""The Android harness on the lab's phones: built once per version and target CA (`fastlane
android build_harness`, Gradle, into a folder of its own under the runner's work dir),
installed once per phone in the runner's life (`install_harness`: `adb install -r -t` of both
APKs, then the installed versions checked), and checked before every other run on that phone
(`preflight`; a phone that lost it is installed again). No block runs Gradle, so phones
measuring at once share no build folder."""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .fastlane import LaneRun
from .lane_failure import LaneFailure, check_lane_ended
from .outcome import lane_failure

# The harness's version as Gradle builds it (device-runner/harness/android/app/build.gradle.kts).
VERSION_FILE = Path("harness") / "android" / "app" / "build.gradle.kts"
APKS = ("app.apk", "test.apk")  # the names build_harness gives the app and its test APK

Lane = Callable[[list[str], float, str], LaneRun]  # (fastlane arguments, time limit, label) → the run


@dataclass(frozen=True)
class HarnessBuild:
    version_code: str
    version_name: str
    apk_dir: Path

    @property
    def version_options(self) -> list[str]:
        return [f"version_code:{self.version_code}", f"version_name:{self.version_name}"]


def harness_version(device_runner: Path) -> tuple[str, str]:
    """(versionCode, versionName) of the harness in this checkout."""
    text = (device_runner / VERSION_FILE).read_text()
    code = re.search(r"^\s*versionCode\s*=\s*(\d+)", text, re.MULTILINE)
    name = re.search(r'^\s*versionName\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if code is None or name is None:
        raise RuntimeError(f"{VERSION_FILE} names no versionCode / versionName")
    return code.group(1), name.group(1)


class AndroidHarness:
    def __init__(self, lane: Lane, *, device_runner: Path, work_dir: Path, ca_file: str | None, timeout_s: float):
        self.lane = lane
        self.device_runner = device_runner
        self.work_dir = work_dir
        self.ca_file = ca_file
        self.timeout_s = timeout_s
        self._build_lock = threading.Lock()
        self._installed: dict[str, Path] = {}  # serial → the build this runner installed there
        self._install_lock = threading.Lock()

    def build(self) -> HarnessBuild:
        """The APKs for this checkout's version and CA, built by the first phone that needs them."""
        code, name = harness_version(self.device_runner)
        ca = Path(self.ca_file).read_bytes() if self.ca_file else b""
        key = f"{name}-{code}-{hashlib.sha256(ca).hexdigest()[:12]}"
        apk_dir = self.work_dir / "android-harness" / key
        build = HarnessBuild(code, name, apk_dir)
        with self._build_lock:
            if (apk_dir / "BUILT").is_file():
                return build
            shutil.rmtree(apk_dir, ignore_errors=True)  # what a failed or killed build left
            run = self.lane(["android", "build_harness", f"apk_dir:{apk_dir}"], self.timeout_s, "build_harness")
            self._check(run, "build_failure", f"the harness {name} ({code}) did not build")
            missing = [apk for apk in APKS if not (apk_dir / apk).is_file()]
            if missing:
                raise LaneFailure("build_failure", f"build_harness left no {', '.join(missing)} in {apk_dir}", run.log)
            (apk_dir / "BUILT").write_text(key + "\n")
        return build

    def ensure_installed(self, serial: str) -> None:
        """Installed by this runner once; afterwards only checked (and installed again if lost)."""
        build = self.build()
        with self._install_lock:
            installed = self._installed.get(serial)
        if installed == build.apk_dir:
            check = self.lane(["android", "preflight", f"serial:{serial}", *build.version_options], self.timeout_s,
                              serial)
            if check.returncode == 0:
                return
        run = self.lane(["android", "install_harness", f"serial:{serial}", f"apk_dir:{build.apk_dir}",
                         *build.version_options], self.timeout_s, serial)
        self._check(run, "build_failure", f"the harness did not install on {serial}")
        with self._install_lock:
            self._installed[serial] = build.apk_dir

    def forget(self, serial: str) -> None:
        """The phone was unplugged: whatever is on it when it comes back is checked and reinstalled."""
        with self._install_lock:
            self._installed.pop(serial, None)

    @staticmethod
    def _check(run: LaneRun, kind: str, what: str) -> None:
        check_lane_ended(run, what)
        if run.returncode != 0:
            raise LaneFailure(kind, f"{what}: {lane_failure(run.text)}", run.log)
