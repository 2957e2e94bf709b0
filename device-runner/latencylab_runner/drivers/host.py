"""The host driver: executes a leased run on the runner host itself with the built-in
probe, block by block from the run's first incomplete block, uploading each block as
one atomic batch."""

import logging
import platform
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..agent.baseline import measure_baseline
from ..agent.client import LeaseLost, RunnerClient
from ..workloads.plan import plan_block
from .block import execute_block
from .emulated import LinkUnavailable, emulated_run
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
        network_profile = lease.get("network_profile") or {"name": "none"}
        profile = network_profile.get("name", "none")
        base = {"lease_token": lease["lease_token"]}
        try:
            if profile == "none":
                completed = self._run_blocks(lease, client, cancelled,
                                             lambda block: self._local_block(lease, block, cancelled))
                report: dict[str, Any] = {"profile": "none", "measured": None}
            else:
                with emulated_run(network_profile, self.target) as emulated:

                    def in_namespace(block: int) -> dict[str, Any]:
                        # Every request may take up to timeout_s: a hard bound on a stuck block.
                        requests = len(plan_block(spec, run_id=run_id, block=block))
                        return emulated.run_block(spec, run_id=run_id, block=block,
                                                  timeout_s=requests * float(spec.get("timeout_s", 30)) + 60)

                    completed = self._run_blocks(lease, client, cancelled, in_namespace)
                    report = emulated.link_report(profile) if completed else {}
            if completed:
                client.finish(run_id, {**base, "status": "ok", "fingerprint": host_fingerprint(), "link": report})
        except LinkUnavailable as exc:
            client.finish(run_id, {**base, "status": "infra_error", "fingerprint": host_fingerprint(),
                                   "error": str(exc)})
        except LeaseLost as exc:
            log.warning("run %s: lease lost (%s); abandoning it", run_id, exc)
        except Exception as exc:  # an unexpected fault is the runner's, not the protocol's
            log.exception("run %s failed on the runner", run_id)
            try:
                client.finish(run_id, {**base, "status": "infra_error", "fingerprint": host_fingerprint(),
                                       "error": f"{type(exc).__name__}: {exc}"[:4000]})
            except LeaseLost:
                pass

    def _local_block(self, lease: dict[str, Any], block: int, cancelled: threading.Event) -> dict[str, Any]:
        spec = lease["spec"]
        # The baseline measures the path of the baseline arm's endpoint.
        baseline_arm = next(a for a in spec["arms"] if a["label"] == spec["baseline_arm"])
        endpoint = arm_endpoint(baseline_arm, self.target)
        baseline = measure_baseline(endpoint.host, endpoint.port)
        samples = execute_block(spec, run_id=lease["run_id"], block=block, target=self.target, cancelled=cancelled)
        return {"baseline": baseline, "samples": samples}

    def _run_blocks(self, lease: dict[str, Any], client: RunnerClient, cancelled: threading.Event,
                    run_block: Callable[[int], dict[str, Any]]) -> bool:
        """Blocks from the run's first incomplete one; False when cancelled part-way."""
        run_id, spec = lease["run_id"], lease["spec"]
        for block in range(lease["next_block"], spec["blocks"]):
            if cancelled.is_set():
                log.info("run %s cancelled before block %d", run_id, block)
                return False
            result = run_block(block)
            if cancelled.is_set():
                return False
            client.upload_block(run_id, {"lease_token": lease["lease_token"], "attempt": lease["attempt"],
                                         "batch_seq": block, "block": block, **result})
            log.info("run %s: block %d/%d stored (%d samples)", run_id, block + 1, spec["blocks"],
                     len(result["samples"]))
        return True
