"""The iOS harness on the lab's iPhones, made ready before a run's first block:

- **built once per phone** for each harness version and signing (`fastlane ios build_harness
  udid:… derived_data:…`): XcodeGen with the lab's team and bundle-ID prefix (App IDs are
  unique across all Apple teams, so they come from the runner config, never the repository),
  then xcodebuild build-for-testing *for that phone* with -allowProvisioningUpdates
  -allowProvisioningDeviceRegistration, which registers it with the team and puts it in the
  development profile. Each phone's build has a folder of its own, so a later build never
  rewrites what another phone is testing from; builds on the Mac run one at a time.
- **checked before every run** (`fastlane ios preflight`): free space and Developer Mode
  (lockdownd), then a probe test on the phone that asks the runner's job exchange — the
  phone launched it (so it is unlocked) and reached the exchange (so it is on the lab network
  with the Local Network permission granted). The exchange must have seen the request.

A phone that is not ready is `device_not_ready` with the reason (outcome.ios_end reads
xcodebuild's and the lanes' words); a build or signing failure is the lab's `build_failure`."""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .fastlane import LaneRun
from .job_exchange import JobExchange
from .lane_failure import LaneFailure, check_lane_ended
from .outcome import ios_end, lane_failure

# The harness's version as the Swift core reports it (harness/ios/Sources/HarnessCore/HarnessInfo.swift).
VERSION_FILE = Path("harness") / "ios" / "Sources" / "HarnessCore" / "HarnessInfo.swift"
# What the Fastfile and project.yml read the lab's signing from.
TEAM_ENV = "LATENCYLAB_IOS_TEAM_ID"
PREFIX_ENV = "LATENCYLAB_IOS_BUNDLE_ID_PREFIX"
DEFAULT_MIN_FREE_MB = 1024

Lane = Callable[[list[str], float, str], LaneRun]  # (fastlane arguments, time limit, label) → the run


@dataclass(frozen=True)
class IosSigning:
    """The lab's Apple Developer team (10 characters) and its own reverse-DNS bundle-ID prefix."""

    team_id: str
    bundle_id_prefix: str

    def env(self) -> dict[str, str]:
        return {TEAM_ENV: self.team_id, PREFIX_ENV: self.bundle_id_prefix}


def harness_version(device_runner: Path) -> str:
    """The Swift harness's version in this checkout."""
    text = (device_runner / VERSION_FILE).read_text()
    match = re.search(r'static let version = "([^"]+)"', text)
    if match is None:
        raise RuntimeError(f"{VERSION_FILE} names no version")
    return match.group(1)


class IosHarness:
    def __init__(self, lane: Lane, *, device_runner: Path, work_dir: Path, signing: IosSigning | None,
                 exchange: JobExchange, min_free_mb: int = DEFAULT_MIN_FREE_MB, timeout_s: float = 900.0):
        self.lane = lane
        self.device_runner = device_runner
        self.work_dir = work_dir
        self.signing = signing
        self.exchange = exchange
        self.min_free_mb = min_free_mb
        self.timeout_s = timeout_s
        self._build_lock = threading.Lock()

    def derived_data(self, udid: str) -> Path:
        """This phone's build folder for this checkout's harness and the lab's signing."""
        version = harness_version(self.device_runner)
        signing = self.signing or IosSigning("unsigned", "")
        prefix = hashlib.sha256(signing.bundle_id_prefix.encode()).hexdigest()[:12]
        return self.work_dir / "ios-harness" / f"{version}-{signing.team_id}-{prefix}" / udid

    def ensure_ready(self, udid: str) -> None:
        self.build(udid)
        self.preflight(udid)

    def build(self, udid: str) -> Path:
        if self.signing is None:
            raise LaneFailure("build_failure", "ios.team_id and ios.bundle_id_prefix are not set in the runner "
                                               "config: the harness is signed by the lab's own Apple Developer team "
                                               "(docs/device-lab.md §3)", b"")
        folder = self.derived_data(udid)
        with self._build_lock:
            if (folder / "BUILT").is_file():
                return folder
            shutil.rmtree(folder, ignore_errors=True)  # what a failed or killed build left
            run = self.lane(["ios", "build_harness", f"udid:{udid}", f"derived_data:{folder}"], self.timeout_s, udid)
            self._check(run, "build_failure", f"the iOS harness {harness_version(self.device_runner)} did not "
                                              f"build for {udid}")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "BUILT").write_text(folder.parent.name + "\n")
        return folder

    def preflight(self, udid: str) -> None:
        probe = self.exchange.probe()
        try:
            run = self.lane(["ios", "preflight", f"udid:{udid}", f"derived_data:{self.derived_data(udid)}",
                             f"probe_url:{probe.url}", f"min_free_mb:{self.min_free_mb}"], self.timeout_s, udid)
            self._check(run, "runner_fault", f"the preflight of {udid} failed")
            if not self.exchange.probed(probe):
                raise LaneFailure("device_not_ready", f"the iPhone is not ready: its preflight passed but its request "
                                                      f"never reached the job exchange ({probe.url}): is "
                                                      f"ios.lab_address the address the phones reach the runner at?",
                                  run.log)
        finally:
            self.exchange.withdraw_probe(probe)

    @staticmethod
    def _check(run: LaneRun, kind: str, what: str) -> None:
        """A lane that failed: what xcodebuild's words prove (not ready, gone, signing, a failed
        probe test) comes first; anything else is `kind`."""
        check_lane_ended(run, what)
        if run.returncode != 0:
            proven = ios_end(run.text)
            if proven is not None:
                raise LaneFailure(proven.error_kind, f"{what}: {proven.message}", run.log)
            raise LaneFailure(kind, f"{what}: {lane_failure(run.text)}", run.log)
