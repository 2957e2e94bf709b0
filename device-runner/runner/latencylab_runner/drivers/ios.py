"""The ios driver. Before a run's first block the phone gets the harness built for it and
signed by the lab's team, then is checked (ios_harness.py: `fastlane ios build_harness` once
per phone and version, `fastlane ios preflight` before every run). Each block then goes to the
iPhone through `fastlane ios bench udid:<U> job:<path> job_url:<url> result_url:<url>
out:<path> derived_data:<that phone's build>` (`run_tests` with `destination:
"platform=iOS,id=<U>"`, test-without-building, only BenchTests/testRunJob). The XCTest on the
phone fetches the job from the runner's job exchange on the lab network
(TEST_RUNNER_LATENCYLAB_JOB) and sends the result document back
(TEST_RUNNER_LATENCYLAB_RESULT), which lands in `out`; the end is judged from xcodebuild's
test lines (a phone that is locked, has Developer Mode off or is denied the lab network is
device_not_ready, outcome.ios_end) and the result."""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path
from typing import Any

from ..devices.ios import IosDevices, model_name
from ..devices.model import DeviceStatus
from ..devices.tools import ToolError, run_tool
from .artifacts import RunArtifacts
from .dhcp_leases import lease_address
from .fastlane import LaneRun
from .ios_harness import DEFAULT_MIN_FREE_MB, IosHarness, IosSigning
from .job_exchange import JobExchange
from .lane_failure import LaneFailure
from .outcome import BlockFailure, ios_end
from .phone import PhoneDriver, PhoneSettings
from .xcresult import export_result, result_bundle

log = logging.getLogger(__name__)


class IosDriver(PhoneDriver):
    name = "ios"
    tool = "idevice_id"
    # URLSession resolves names itself and offers no way to connect a name to a given address
    # with SNI kept: a hosted run's customer hosts are refused on iPhones (target_policy.py).
    pins_addresses = False

    def __init__(self, devices: IosDevices, settings: PhoneSettings, *, exchange: JobExchange,
                 signing: IosSigning | None = None, min_free_mb: int = DEFAULT_MIN_FREE_MB):
        super().__init__(devices, settings)
        self.exchange = exchange
        self.signing = signing
        self.harness = IosHarness(self._preparation_lane, device_runner=settings.lane.directory.parent,
                                  work_dir=settings.work_dir, signing=signing, exchange=exchange,
                                  min_free_mb=min_free_mb, timeout_s=settings.lane.base_timeout_s)
        self._cancelled = threading.local()  # the run whose preparation lane is running on this thread

    def lane_env(self) -> dict[str, str]:
        """The lab's signing, read by the Fastfile and project.yml (LATENCYLAB_IOS_*)."""
        return self.signing.env() if self.signing else {}

    # -- the harness on the phone ---------------------------------------------
    def prepare(self, serial: str, cancelled: threading.Event, artifacts: RunArtifacts, block: int) -> None:
        # The full status (lockdownd): an untrusted phone is lost before any lane runs.
        self.check_present(serial, self.devices.status(serial))
        self._cancelled.event = cancelled
        try:
            self.harness.ensure_ready(serial)
        except LaneFailure as failure:
            artifacts.block_evidence(block, lane_log=failure.log, raw_result=None, failed=True)
            self.check_present(serial, self.devices.presence(serial))  # unplugged mid-lane: device_lost
            raise

    def _preparation_lane(self, args: list[str], timeout_s: float, label: str) -> LaneRun:
        return self.lane(args, env=self.lane_env(), cancelled=self._cancelled.event, timeout_s=timeout_s,
                         label=label)

    # -- one block -------------------------------------------------------------
    def run_lane(self, serial: str, job_path: Path, out_path: Path, *, env: dict[str, str],
                 cancelled: threading.Event, timeout_s: float) -> LaneRun:
        offer = self.exchange.offer(job_path, out_path)
        try:
            return self.lane(["ios", "bench", f"udid:{serial}", f"job:{job_path}", f"job_url:{offer.job_url}",
                              f"result_url:{offer.result_url}", f"out:{out_path}",
                              f"derived_data:{self.harness.derived_data(serial)}"],
                             env={**self.lane_env(), **env}, cancelled=cancelled, timeout_s=timeout_s, label=serial)
        finally:
            self.exchange.withdraw(offer)

    def collect_result(self, serial: str, out_path: Path, lane: LaneRun) -> bytes | None:
        """The document the XCTest PUT to the exchange; else the one it attached to the test,
        read through the result bundle's manifest (xcresult.py)."""
        if out_path.is_file():
            return out_path.read_bytes()
        bundle = result_bundle(out_path)
        if not bundle.exists():
            return None
        try:
            found = export_result(bundle, out_path.with_name(out_path.stem + ".attachments"))
        except ToolError as exc:
            log.info("%s: no result attached to %s: %s", serial, bundle, exc.detail)
            return None
        return found.read_bytes() if found is not None else None

    def clean_up(self, serial: str, job_path: Path, out_path: Path) -> None:
        super().clean_up(serial, job_path, out_path)
        for folder in (result_bundle(out_path), out_path.with_name(out_path.stem + ".attachments")):
            shutil.rmtree(folder, ignore_errors=True)

    def fingerprint(self, device: DeviceStatus | None, harness: dict[str, Any] | None) -> dict[str, Any]:
        """The XCTest reports the hardware identifier (utsname); runs show the marketing name,
        as the Devices page does, so a run and its device agree."""
        merged = super().fingerprint(device, harness)
        if merged.get("model"):
            merged["model"] = model_name(merged["model"])
        return merged

    def device_address(self, serial: str) -> str:
        """The iPhone's address as the AP handed it out: its DHCP lease (link.leases, by the
        hardware MAC or else the device name: dhcp_leases.py); without a lease file, its
        hardware MAC (lockdown `WiFiAddress`) in this host's neighbour table on the AP
        interface, which finds it only while its private Wi-Fi address is off."""
        shaper = self.settings.shaper
        if shaper is None:
            raise RuntimeError("link.interface is not set")
        info = self.devices.tools.info(serial)
        mac = info.get("WiFiAddress", "").lower()
        if self.settings.leases_file is not None:
            return lease_address(self.settings.leases_file, mac=mac or None, device_name=info.get("DeviceName"))
        if not mac:
            raise RuntimeError("the phone reports no WiFiAddress")
        done = run_tool(["ip", "neigh", "show", "dev", shaper.ifaces.ap], timeout_s=10)
        address = neighbour_address(done.stdout, mac)
        if address is None:
            raise RuntimeError(f"no neighbour entry for {mac} on {shaper.ifaces.ap}: is the phone on the lab Wi-Fi?")
        return address

    def end_from_log(self, text: str) -> BlockFailure | None:
        return ios_end(text)


def neighbour_address(text: str, mac: str) -> str | None:
    """`ip neigh show dev IFACE` lines: `<address> lladdr <mac> <STATE>` (IPv4 first)."""
    found = [line.split()[0] for line in text.splitlines()
             if " lladdr " in line and line.split(" lladdr ")[1].split()[0].lower() == mac]
    found.sort(key=lambda a: ":" in a)
    return found[0] if found else None
