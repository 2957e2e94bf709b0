"""The host driver: executes a leased run on the runner host itself with the built-in
probe, block by block from the run's first incomplete block, uploading each block as
one atomic batch."""

import logging
import platform
import threading
import time
from typing import Any

from .. import __version__
from ..agent.baseline import measure_baseline
from ..agent.client import LeaseLost, RunnerClient
from .block import execute_block
from .targets import ReferenceTarget, arm_endpoint

log = logging.getLogger(__name__)


def host_fingerprint() -> dict[str, Any]:
    clock = time.get_clock_info("perf_counter")
    return {
        "platform": "host",
        "model": f"{platform.system()} {platform.machine()}",
        "os_version": platform.release(),
        "harness_version": f"latencylab-runner {__version__} (python {platform.python_version()})",
        "radio": "loopback/ethernet",
        "battery": None,
        "temperature": None,
        "clock_source": "time.perf_counter_ns",
        "clock_resolution_us": clock.resolution * 1e6,
    }


class HostDriver:
    name = "host"

    def __init__(self, target: ReferenceTarget):
        self.target = target

    def execute(self, lease: dict[str, Any], client: RunnerClient, cancelled: threading.Event) -> None:
        run_id, spec = lease["run_id"], lease["spec"]
        profile = lease.get("network_profile", {}).get("name", "none")
        base = {"lease_token": lease["lease_token"]}
        if profile != "none":
            client.finish(run_id, {**base, "status": "infra_error", "fingerprint": host_fingerprint(),
                                   "error": f"network profile {profile!r}: this runner has no link emulator"})
            return
        # The baseline measures the path of the baseline arm's endpoint.
        baseline_arm = next(a for a in spec["arms"] if a["label"] == spec["baseline_arm"])
        endpoint = arm_endpoint(baseline_arm, self.target)
        try:
            for block in range(lease["next_block"], spec["blocks"]):
                if cancelled.is_set():
                    log.info("run %s cancelled before block %d", run_id, block)
                    return
                baseline = measure_baseline(endpoint.host, endpoint.port)
                samples = execute_block(spec, run_id=run_id, block=block, target=self.target, cancelled=cancelled)
                if cancelled.is_set():
                    return
                client.upload_block(run_id, {**base, "attempt": lease["attempt"], "batch_seq": block, "block": block,
                                             "baseline": baseline, "samples": samples})
                log.info("run %s: block %d/%d stored (%d samples)", run_id, block + 1, spec["blocks"], len(samples))
            client.finish(run_id, {**base, "status": "ok", "fingerprint": host_fingerprint(),
                                   "link": {"profile": profile, "measured": None}})
        except LeaseLost as exc:
            log.warning("run %s: lease lost (%s); abandoning it", run_id, exc)
        except Exception as exc:  # an unexpected fault is the runner's, not the protocol's
            log.exception("run %s failed on the runner", run_id)
            try:
                client.finish(run_id, {**base, "status": "infra_error", "fingerprint": host_fingerprint(),
                                       "error": f"{type(exc).__name__}: {exc}"[:4000]})
            except LeaseLost:
                pass
