"""Fixtures for the device-lab tests: the phone simulator wired in (the real adb client
against the simulated adb server, the simulated libimobiledevice tools and fastlane on PATH,
one scenario file describing the phones: latencylab_runner.phone_simulator) and a recording
runner-protocol backend (fakes/backend.py)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from backend import RecordingBackend  # tests/fakes is on the test path (pytest.ini's pythonpath)
from latencylab_runner.devices.android import Adb, AndroidDevices
from latencylab_runner.devices.gate import GateThresholds
from latencylab_runner.devices.ios import IDeviceTools, IosDevices
from latencylab_runner.drivers.android import AndroidDriver
from latencylab_runner.drivers.ios import IosDriver
from latencylab_runner.drivers.ios_harness import IosSigning
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.phone import LaneSettings, PhoneSettings
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.phone_simulator import adb_server, harness_core, scenario
from latencylab_runner.phone_simulator import lab as lab_process

__all__ = ["Lab", "RecordingBackend", "adb_server", "harness_core", "scenario", "start_lab"]


@dataclass
class Lab:
    dir: Path
    scenario_path: Path
    adb: adb_server.FakeAdbServer

    def world(self) -> dict[str, Any]:
        return scenario.load(self.scenario_path)

    def set(self, **parts: Any) -> None:
        with scenario.editing(self.scenario_path) as world:
            world.update(parts)

    def settings(self, target: ReferenceTarget, **overrides: Any) -> PhoneSettings:
        # The checkout's fastlane/ folder, as a lab's config names it: the lanes read the harness beside it.
        lane = LaneSettings(command=(str(scenario.BIN_DIR / "fastlane"),), directory=lab_process.FASTLANE_DIR,
                            base_timeout_s=overrides.pop("timeout_s", 120.0), per_request_s=0.5)
        return PhoneSettings(target=target, work_dir=self.dir / "work", lane=lane,
                             limits=overrides.pop("limits", GateThresholds()), **overrides)

    def android_driver(self, target: ReferenceTarget, **overrides: Any) -> AndroidDriver:
        limits = overrides.get("limits", GateThresholds())
        return AndroidDriver(AndroidDevices(Adb(), limits), self.settings(target, **overrides))

    def ios_driver(self, target: ReferenceTarget, exchange: JobExchange, **overrides: Any) -> IosDriver:
        limits = overrides.get("limits", GateThresholds())
        # The simulator's lab signs with the made-up team its runner settings name (lab_process).
        ios = lab_process.runner_settings(self.dir)["ios"]
        signing = overrides.pop("signing", IosSigning(ios["team_id"], ios["bundle_id_prefix"]))
        return IosDriver(IosDevices(IDeviceTools(), limits), self.settings(target, **overrides), exchange=exchange,
                         signing=signing, min_free_mb=ios["min_free_mb"])


def start_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lab:
    """The phones' world for one test: an empty scenario, the fake adb server, and the
    environment (PATH, ADB_SERVER_SOCKET, the scenario) every tool and lane inherits."""
    if shutil.which("adb") is None:
        pytest.skip("the real adb client is missing: apt-get install adb (infra/bin/bootstrap.sh installs it)")
    scenario_path = tmp_path / "scenario.json"
    scenario_path.write_text(json.dumps({"android": [], "ios": [], "fastlane": {"mode": "run"}}))
    server = adb_server.FakeAdbServer(scenario_path, tmp_path / "phones").start()
    # The same wiring as the simulator's process (phone_simulator/lab.py) gives the backend's device-farm tests.
    for name, value in lab_process.environment(server.socket_spec, scenario_path, os.environ["PATH"]).items():
        monkeypatch.setenv(name, value)
    return Lab(tmp_path, scenario_path, server)
