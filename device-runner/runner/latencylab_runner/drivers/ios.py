"""The ios driver: each block of a leased run goes to the iPhone through
`fastlane ios bench udid:<U> job:<path> job_url:<url> result_url:<url> out:<path>`
(`run_tests` with `destination: "platform=iOS,id=<U>"`, test-without-building). The
XCTest on the phone fetches the job from the runner's job exchange on the lab network
(TEST_RUNNER_LATENCYLAB_JOB) and sends the result document back
(TEST_RUNNER_LATENCYLAB_RESULT), which lands in `out`; the end is judged from
xcodebuild's test lines and the result."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..devices.ios import IosDevices, model_name
from ..devices.model import DeviceStatus
from ..devices.tools import run_tool
from .dhcp_leases import lease_address
from .fastlane import LaneRun
from .job_exchange import JobExchange
from .outcome import BlockFailure, ios_end
from .phone import PhoneDriver, PhoneSettings


class IosDriver(PhoneDriver):
    name = "ios"
    tool = "idevice_id"
    # URLSession resolves names itself and offers no way to connect a name to a given address
    # with SNI kept: a hosted run's customer hosts are refused on iPhones (target_policy.py).
    pins_addresses = False

    def __init__(self, devices: IosDevices, settings: PhoneSettings, *, exchange: JobExchange):
        super().__init__(devices, settings)
        self.exchange = exchange

    def run_lane(self, serial: str, job_path: Path, out_path: Path, *, env: dict[str, str],
                 cancelled: threading.Event, timeout_s: float) -> LaneRun:
        offer = self.exchange.offer(job_path, out_path)
        try:
            return self.lane(["ios", "bench", f"udid:{serial}", f"job:{job_path}", f"job_url:{offer.job_url}",
                              f"result_url:{offer.result_url}", f"out:{out_path}"], env=env, cancelled=cancelled,
                             timeout_s=timeout_s, label=serial)
        finally:
            self.exchange.withdraw(offer)

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
