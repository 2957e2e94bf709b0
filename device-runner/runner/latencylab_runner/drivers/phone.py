"""What the android and ios drivers share: a leased run on one phone, block by block from
its first unstored block —

    readiness gate → job document → file → fastlane lane (time limit, streamed log)
    → result document → the end classified from evidence → one atomic batch

— with the lane's log and the raw result kept as run artifacts, and the run finished with
status, error_kind, the merged fingerprint and the link. A block that fails stores
nothing; the run ends there (an infra_error is retried by the backend, preferably on
another phone)."""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from latencylab_tools.netlab.wifi import WifiShaper

from .. import __version__
from ..agent.client import LeaseLost, RunnerClient
from ..devices.gate import GateThresholds, health_reason, reported_health_reason
from ..devices.model import DeviceStatus
from ..workloads.job import build_job
from ..workloads.secrets import MissingSecret
from .artifacts import RunArtifacts
from .device_link import PhoneLink, phone_link
from .emulated import LinkUnavailable
from .fastlane import LaneRun, run_lane
from .host import block_batch
from .outcome import BlockFailure, parse_result
from .readiness import describe, readiness_request
from .server_stacks import merge_observed, server_stacks
from .target_check import check_targets
from .targets import ReferenceTarget

log = logging.getLogger(__name__)

DEFAULT_FASTLANE_DIR = Path(__file__).resolve().parents[3] / "fastlane"  # device-runner/fastlane, beside harness/


@dataclass(frozen=True)
class LaneSettings:
    command: tuple[str, ...] = ("fastlane",)
    directory: Path = DEFAULT_FASTLANE_DIR
    # A block's limit: starting the harness, then each request's share (also the limit of each
    # preparation lane: the Android harness's build and install).
    base_timeout_s: float = 900.0
    per_request_s: float = 1.0
    max_timeout_s: float = 4 * 3600.0

    def timeout_for(self, requests: int) -> float:
        return min(self.base_timeout_s + requests * self.per_request_s, self.max_timeout_s)


@dataclass(frozen=True)
class PhoneSettings:
    target: ReferenceTarget  # the reference target as the phones reach it on the lab network
    work_dir: Path
    lane: LaneSettings = field(default_factory=LaneSettings)
    limits: GateThresholds = field(default_factory=GateThresholds)
    link_mode: str = "ap-netem"
    shaper: WifiShaper | None = None  # per-phone shaping on the host's Wi-Fi AP (link.interface)
    leases_file: Path | None = None  # the AP's dnsmasq lease file (link.leases): how iPhones are found


class Cancelled(Exception):
    """The backend cancelled the run mid-block: nothing more is sent for it."""


class PhoneDriver:
    name = "phone"
    tool = "the device tool"
    # Whether this platform's harness connects to a job's pinned_addresses (hosted pools).
    pins_addresses = True

    def __init__(self, devices: Any, settings: PhoneSettings):
        self.devices = devices
        self.settings = settings

    # -- what the agent calls ---------------------------------------------
    def discover(self, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        return self.devices.discover(busy=busy)

    def execute(self, lease: dict[str, Any], client: RunnerClient, cancelled: threading.Event) -> None:
        run_id, spec, serial = lease["run_id"], lease["spec"], lease["device_serial"]
        artifacts = RunArtifacts(client, run_id=run_id, lease_token=lease["lease_token"], attempt=lease["attempt"])
        # The latest readings, for the fingerprint: the device tools', the harness's, its readiness report.
        seen: dict[str, Any] = {"device": None, "harness": None, "readiness": None}
        servers: dict[str, Any] = {}  # the Server headers the harness read per arm, over the blocks
        link_report: dict[str, Any] = {"profile": (lease.get("network_profile") or {}).get("name", "none"),
                                       "measured": None}

        def finish(status: str, error_kind: str | None = None, error: str | None = None) -> None:
            device = seen["device"] or self._known(serial)
            fingerprint = {**self.fingerprint(device, seen["harness"]),
                           "server_stacks": server_stacks(spec["arms"], servers)}
            if seen["readiness"]:
                fingerprint["readiness"] = seen["readiness"]
            report = {"lease_token": lease["lease_token"], "status": status,
                      "fingerprint": fingerprint, "link": link_report, "error": error}
            if error_kind:
                report["error_kind"] = error_kind
            client.finish(run_id, report)

        try:
            with phone_link(lease.get("network_profile"), mode=self.settings.link_mode,
                            reference=self.settings.target, serial=serial, shaper=self.settings.shaper,
                            address_of=lambda: self.device_address(serial)) as link:
                if lease["next_block"] < spec["blocks"]:
                    self.prepare(serial, cancelled, artifacts, lease["next_block"])
                for block in range(lease["next_block"], spec["blocks"]):
                    if cancelled.is_set():
                        raise Cancelled()
                    result = self.run_block(lease, block, link, artifacts, cancelled, seen)
                    client.upload_block(run_id, block_batch(lease, block, result))
                    seen["harness"], seen["readiness"] = result["fingerprint"], result.get("readiness")
                    merge_observed(servers, result["fingerprint"].get("server_stacks"))
                    log.info("run %s on %s: block %d/%d stored (%d samples)", run_id, serial, block + 1,
                             spec["blocks"], len(result["samples"]))
                link_report = link.report()
            finish("ok")
        except BlockFailure as failure:
            log.warning("run %s on %s: %s: %s", run_id, serial, failure.error_kind, failure.message)
            finish(failure.status, failure.error_kind, failure.message)
        except LinkUnavailable as exc:
            finish("infra_error", "link_unavailable", str(exc))
        except Cancelled:
            log.info("run %s cancelled by the server", run_id)
        except LeaseLost as exc:
            log.warning("run %s: lease lost (%s); abandoning it", run_id, exc)
        except Exception as exc:  # anything unforeseen is the runner's fault, not the phone's
            log.exception("run %s failed on the runner", run_id)
            try:
                finish("infra_error", "runner_fault", f"{type(exc).__name__}: {exc}")
            except LeaseLost:
                pass

    # -- one block ---------------------------------------------------------
    def run_block(self, lease: dict[str, Any], block: int, link: PhoneLink, artifacts: RunArtifacts,
                  cancelled: threading.Event, seen: dict[str, Any]) -> dict[str, Any]:
        run_id, serial = lease["run_id"], lease["device_serial"]
        status = self.devices.status(serial)
        if status is not None and status.usable:
            seen["device"] = status
        self.check_present(serial, status)
        if status is None:
            raise RuntimeError("status is None")
        try:
            job = build_job(lease["spec"], run_id=run_id, block=block, attempt=lease["attempt"], target=link.target,
                            pinned=lease.get("pinned_addresses"),
                            readiness=readiness_request(link.target, self.settings.limits.lab_networks))
        except MissingSecret:
            # The service sends secrets to host runners only: a harness reads its job from a file.
            raise BlockFailure("test_failure", f"{self.name} harnesses do not receive secrets; {{{{secret.NAME}}}} "
                                               f"headers run on host runners only") from None
        if job.get("pinned_addresses") and not self.pins_addresses:
            # Never let a harness that would look the names up again reach a hosted run's customer hosts.
            raise BlockFailure("test_failure", f"the {self.name} harness cannot pin a customer host to the address "
                                               f"the runner checked, so hosted pools run customer endpoints on host "
                                               f"and android devices only")
        reason = health_reason(status, self.settings.limits)
        if reason:
            raise BlockFailure("device_not_ready", f"{serial}: {reason}")
        # The targets are not the phone's: one that does not answer blames its owner (the
        # customer, or the lab for its reference target), never the device.
        check_targets(lease["spec"], link.target, pinned=job.get("pinned_addresses"),
                      timeout_s=self.settings.limits.reach_timeout_s)
        directory = self.settings.work_dir / run_id
        directory.mkdir(parents=True, exist_ok=True)
        stem = f"a{lease['attempt']}-b{block}"
        job_path, out_path = directory / f"job-{stem}.json", directory / f"result-{stem}.json"
        job_path.write_text(_compact(job))
        out_path.unlink(missing_ok=True)
        try:
            lane = self.run_lane(serial, job_path, out_path, env=link.env, cancelled=cancelled,
                                 timeout_s=self.settings.lane.timeout_for(len(job["requests"])))
            if lane.timed_out or lane.cancelled:
                # Killing the lane does not stop what it started on the phone.
                self.stop_harness(serial)
            if lane.cancelled:
                raise Cancelled()
            raw = self.collect_result(serial, out_path, lane)
            try:
                result = self.judge(serial, job, lane, raw, out_path)
            except BlockFailure:
                artifacts.block_evidence(block, lane_log=lane.log, raw_result=raw, failed=True)
                raise
            artifacts.block_evidence(block, lane_log=lane.log, raw_result=raw, failed=False)
            return result
        finally:
            self.clean_up(serial, job_path, out_path)

    def judge(self, serial: str, job: dict[str, Any], lane: LaneRun, raw: bytes | None,
              out_path: Path) -> dict[str, Any]:
        """The block's end, from evidence: time limit, the phone's presence, the lane's log,
        then the result document. Only a valid, complete result passes."""
        if lane.start_error:
            raise BlockFailure("runner_fault", lane.start_error)
        if lane.timed_out:
            raise BlockFailure("timeout", f"the lane ran over its {lane.seconds:.0f} s limit and was killed")
        self.check_present(serial, self.devices.presence(serial))
        proven = self.end_of_lane(lane, out_path)
        if proven is not None:
            raise proven
        result = parse_result(raw, job, lane_exit=lane.returncode)
        if result.get("readiness"):
            log.info("block %d on %s: readiness from the phone: %s", job["block"], serial,
                     describe(result["readiness"]))
        # What the phone said of itself at the block (the only thermal reading of an iPhone).
        reason = reported_health_reason(result["fingerprint"], self.settings.limits)
        if reason:
            raise BlockFailure("device_not_ready", f"{serial}: {reason}")
        return result

    def check_present(self, serial: str, status: DeviceStatus | None) -> None:
        if status is None:
            raise BlockFailure("device_lost", f"{serial} is no longer listed by {self.tool}: disconnected")
        if not status.usable:
            raise BlockFailure("device_lost", f"{serial} is {status.state}: {status.reason}")

    def fingerprint(self, device: DeviceStatus | None, harness: dict[str, Any] | None) -> dict[str, Any]:
        """What the device tools reported, overlaid with what the harness measured itself
        (its clock, client stacks, and battery/temperature at the block)."""
        merged: dict[str, Any] = {"platform": self.name, "harness_version": None,
                                  "runner_version": f"latencylab-runner {__version__}"}
        if device is not None:
            merged.update({"model": device.model, "os_version": device.os_version, "battery": device.battery,
                           "charging": device.charging, "temperature": device.temperature,
                           "thermal_status": device.thermal_status, "serial": device.serial,
                           "device": device.fingerprint})
        for key, value in (harness or {}).items():
            if value is not None:
                merged[key] = value
        return merged

    def _known(self, serial: str) -> DeviceStatus | None:
        try:
            return self.devices.status(serial)
        except Exception:  # the fingerprint is evidence, not a reason to fail the run
            return None

    # -- per platform --------------------------------------------------------
    def prepare(self, serial: str, cancelled: threading.Event, artifacts: RunArtifacts, block: int) -> None:
        """What the phone needs before a run's first block (the Android harness installed)."""

    def stop_harness(self, serial: str) -> None:
        """Stop the harness on the phone after its lane was killed (time limit, cancel)."""

    def end_of_lane(self, lane: LaneRun, out_path: Path) -> BlockFailure | None:
        """A failure the lane's evidence proves, or None (then the result document decides)."""
        return self.end_from_log(lane.text)

    def run_lane(self, serial: str, job_path: Path, out_path: Path, *, env: dict[str, str],
                 cancelled: threading.Event, timeout_s: float) -> LaneRun:
        raise NotImplementedError

    def device_address(self, serial: str) -> str:
        """The phone's IP address on the lab Wi-Fi (to shape it on the AP)."""
        raise NotImplementedError

    def collect_result(self, serial: str, out_path: Path, lane: LaneRun) -> bytes | None:
        return out_path.read_bytes() if out_path.is_file() else None

    def end_from_log(self, text: str) -> BlockFailure | None:
        raise NotImplementedError

    def clean_up(self, serial: str, job_path: Path, out_path: Path) -> None:
        for path in (job_path, out_path):
            path.unlink(missing_ok=True)

    def lane(self, args: list[str], *, env: dict[str, str], cancelled: threading.Event, timeout_s: float,
             label: str) -> LaneRun:
        lane = self.settings.lane
        return run_lane([*lane.command, *args], cwd=lane.directory, env={**os.environ, **env}, timeout_s=timeout_s,
                        label=label, cancelled=cancelled)


def _compact(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"))
