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

from ..devices.ios import IosDevices
from .fastlane import LaneRun
from .job_exchange import JobExchange
from .outcome import BlockFailure, ios_end
from .phone import PhoneDriver, PhoneSettings


class IosDriver(PhoneDriver):
    name = "ios"
    tool = "idevice_id"

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

    def end_from_log(self, text: str) -> BlockFailure | None:
        return ios_end(text)
