"""The host driver: executes a leased run on the runner host itself with the built-in
probe, block by block from the run's first incomplete block, uploading each block as
one atomic batch. Each block goes through the same job → result document path as a
phone's harness (workloads/job.py, drivers/probe_harness.py)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from latencylab_contract.validation import validate

from ..agent.baseline import measure_baseline
from ..agent.client import LeaseLost, RunnerClient
from ..devices.model import DeviceStatus
from ..workloads.job import build_job, result_problems
from ..workloads.secrets import MissingSecret, redact, redact_samples
from .emulated import LinkUnavailable, emulated_run
from .outcome import BlockFailure
from .probe_harness import execute_job, host_fingerprint
from .server_stacks import merge_observed, server_stacks
from .target_check import check_targets
from .targets import ReferenceTarget, arm_endpoint

log = logging.getLogger(__name__)

__all__ = ["HostDriver", "block_batch", "host_device", "host_fingerprint"]

HOST_PROTOCOLS = ["h1c", "h1", "h2", "h3", "grpc"]


def host_device(serial: str) -> DeviceStatus:
    """The runner host itself as a device: always there, no battery to gate on."""
    fingerprint = host_fingerprint()
    return DeviceStatus(serial=serial, platform="host", model=fingerprint["model"],
                        os_version=fingerprint["os_version"], capabilities={"protocols": HOST_PROTOCOLS})


def block_batch(lease: dict[str, Any], block: int, result: dict[str, Any]) -> dict[str, Any]:
    """One block's upload: the whole result as one batch, batch_seq = block; no secret
    value of the lease in an error_detail."""
    redact_samples(result["samples"], lease.get("secrets") or {})
    return {"lease_token": lease["lease_token"], "attempt": lease["attempt"], "batch_seq": block, "block": block,
            "baseline": result.get("baseline"), "samples": result["samples"]}


def baseline_origin(spec: dict[str, Any], target: ReferenceTarget,
                    pinned: dict[str, str] | None = None) -> tuple[str, int]:
    """The baseline measures the path to the baseline arm's endpoint: on a hosted run, to
    the address checked at lease time (target_policy.py), never a fresh lookup."""
    label = spec.get("baseline_arm") or spec["arms"][0]["label"]
    arm = next(a for a in spec["arms"] if a["label"] == label)
    endpoint = arm_endpoint(arm, target)
    return (pinned or {}).get(endpoint.host.lower(), endpoint.host), endpoint.port


class HostDriver:
    name = "host"

    def __init__(self, target: ReferenceTarget, *, serial: str | None = None):
        self.target = target
        self.serial = serial

    def discover(self, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        if self.serial is None:
            raise ValueError("a host driver that discovers its device needs the device's serial")
        return [host_device(self.serial)]

    def execute(self, lease: dict[str, Any], client: RunnerClient, cancelled: threading.Event) -> None:
        run_id, spec = lease["run_id"], lease["spec"]
        network_profile = lease.get("network_profile") or {"name": "none"}
        profile = network_profile.get("name", "none")
        protocols = {arm["protocol"] for arm in spec["arms"]}
        servers: dict[str, Any] = {}  # what the blocks' results said of each arm's server

        def base() -> dict[str, Any]:
            fingerprint = {**host_fingerprint(protocols), "server_stacks": server_stacks(spec["arms"], servers)}
            return {"lease_token": lease["lease_token"], "fingerprint": fingerprint}

        secrets = lease.get("secrets") or {}
        try:
            if profile == "none":
                completed = self._run_blocks(lease, client, cancelled,
                                             lambda block: self._local_block(lease, block, cancelled), servers)
                report: dict[str, Any] = {"profile": "none", "measured": None}
            else:
                with emulated_run(network_profile, self.target) as emulated:

                    def in_namespace(block: int) -> dict[str, Any]:
                        job = build_job(spec, run_id=run_id, block=block, attempt=lease["attempt"],
                                        target=emulated.target, secrets=secrets,
                                        pinned=lease.get("pinned_addresses"))
                        # The emulated link started its own reference target: only the customer's are checked.
                        check_targets(spec, self.target, pinned=lease.get("pinned_addresses"), customers_only=True)
                        # Every request may take up to timeout_s: a hard bound on a stuck block.
                        bound = len(job["requests"]) * job["timeout_ms"] / 1000 + 60
                        origin = baseline_origin(spec, emulated.target, lease.get("pinned_addresses"))
                        result = emulated.run_job(job, baseline_origin=origin, timeout_s=bound,
                                                  cancelled=cancelled)
                        return {"status": "cancelled"} if result is None else self._checked(job, result)

                    completed = self._run_blocks(lease, client, cancelled, in_namespace, servers)
                    report = emulated.link_report(profile) if completed else {}
            if completed:
                client.finish(run_id, {**base(), "status": "ok", "link": report})
        except MissingSecret as exc:
            client.finish(run_id, {**base(), "status": "failed", "error_kind": "test_failure", "error": str(exc)})
        except BlockFailure as failure:  # a target that does not answer: its owner is blamed (target_check.py)
            log.warning("run %s: %s: %s", run_id, failure.error_kind, failure.message)
            client.finish(run_id, {**base(), "status": failure.status, "error_kind": failure.error_kind,
                                   "error": redact(failure.message, secrets), "link": None})
        except LinkUnavailable as exc:
            client.finish(run_id, {**base(), "status": "infra_error", "error_kind": "link_unavailable",
                                   "error": str(exc)})
        except LeaseLost as exc:
            log.warning("run %s: lease lost (%s); abandoning it", run_id, exc)
        except Exception as exc:  # an unexpected fault is the runner's own: neither the device's nor the lab's
            if secrets:  # the message could echo a header: log it redacted, without the traceback's copy
                log.error("run %s failed on the runner: %s", run_id, redact(f"{type(exc).__name__}: {exc}", secrets))
            else:
                log.exception("run %s failed on the runner", run_id)
            try:
                client.finish(run_id, {**base(), "status": "infra_error", "error_kind": "runner_fault",
                                       "error": redact(f"{type(exc).__name__}: {exc}", secrets)[:4000]})
            except LeaseLost:
                pass
        finally:
            # The values lived in this lease (and each block's job) only: drop them now.
            lease.pop("secrets", None)

    def _local_block(self, lease: dict[str, Any], block: int, cancelled: threading.Event) -> dict[str, Any]:
        spec = lease["spec"]
        job = build_job(spec, run_id=lease["run_id"], block=block, attempt=lease["attempt"], target=self.target,
                        secrets=lease.get("secrets"), pinned=lease.get("pinned_addresses"))
        # Before the baseline and the probe connect: a target that does not answer blames its owner.
        check_targets(spec, self.target, pinned=lease.get("pinned_addresses"))
        baseline = measure_baseline(*baseline_origin(spec, self.target, lease.get("pinned_addresses")))
        result = execute_job(job, cancelled=cancelled)
        result["baseline"] = baseline
        return self._checked(job, result)

    @staticmethod
    def _checked(job: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
        """The probe's own result obeys the contract like any harness's; a violation here
        is a runner bug and ends the run as an infrastructure error, storing nothing."""
        if result["status"] == "ok":
            # The envelope only: per-sample validation costs ~0.5 ms a sample in jsonschema,
            # the probe's samples are covered by its own tests, and the backend checks every
            # sample on upload anyway (a phone's result is checked in full: drivers/device_block.py).
            validate({**result, "samples": []}, "result")
            problems = result_problems(job, result)
            if problems:
                raise RuntimeError(f"the probe's result does not answer its job: {'; '.join(problems)}")
        return result

    def _run_blocks(self, lease: dict[str, Any], client: RunnerClient, cancelled: threading.Event,
                    run_block: Callable[[int], dict[str, Any]], servers: dict[str, Any]) -> bool:
        """Blocks from the run's first incomplete one; False when cancelled part-way. Each
        stored block's server_stacks are folded into `servers`."""
        run_id, spec = lease["run_id"], lease["spec"]
        for block in range(lease["next_block"], spec["blocks"]):
            if cancelled.is_set():
                log.info("run %s cancelled before block %d", run_id, block)
                return False
            result = run_block(block)
            if cancelled.is_set() or result["status"] != "ok":
                return False
            client.upload_block(run_id, block_batch(lease, block, result))
            merge_observed(servers, result["fingerprint"].get("server_stacks"))
            log.info("run %s: block %d/%d stored (%d samples)", run_id, block + 1, spec["blocks"],
                     len(result["samples"]))
        return True
