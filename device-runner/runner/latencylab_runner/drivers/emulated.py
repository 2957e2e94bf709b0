"""A run under a network profile: an emulated link (docs/network-conditions.md) with the
reference target in its server namespace, and every block's probe in its client namespace,
so TCP, TLS and QUIC handshakes all cross the emulated delay, loss and rate."""

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .targets import ReferenceTarget

SERVER_PLAIN_PORT, SERVER_TLS_PORT = 8080, 8443
# How often a block in progress looks whether its run was cancelled: well inside a heartbeat (10 s).
CANCEL_POLL_S = 0.25


class LinkUnavailable(Exception):
    """The host cannot emulate this profile (not root, no namespaces); an infra error."""


def link_profile(network_profile: dict[str, Any]) -> Any:
    from latencylab_tools.netlab import PRESETS, LinkProfile

    if "down" in network_profile or "up" in network_profile:
        return LinkProfile.from_dict(network_profile)
    name = network_profile.get("name", "none")
    if name not in PRESETS:
        raise LinkUnavailable(f"network profile {name!r} is unknown to this runner")
    return PRESETS[name]


@dataclasses.dataclass
class EmulatedRun:
    link: Any
    target: ReferenceTarget

    def run_job(self, job: dict[str, Any], *, baseline_origin: tuple[str, int], timeout_s: float,
                cancelled: threading.Event | None = None) -> dict[str, Any] | None:
        """The probe executes `job` in the client namespace; its result document, or None when
        `cancelled` was set first: the block worker is killed mid-block and nothing of the
        block is kept (a block is stored whole or not at all)."""
        message = json.dumps({"job": job, "baseline_origin": list(baseline_origin)})
        worker = self.link.spawn_in_client([sys.executable, "-m", "latencylab_runner.drivers.block_worker"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True)
        deadline = time.monotonic() + timeout_s
        pending_input: str | None = message
        while True:
            try:
                # Retrying communicate() after its timeout loses no output; the input goes once.
                stdout, stderr = worker.communicate(pending_input, timeout=CANCEL_POLL_S)
                break
            except subprocess.TimeoutExpired:
                pending_input = None
                stopped_by_cancel = cancelled is not None and cancelled.is_set()
                if stopped_by_cancel or time.monotonic() > deadline:
                    worker.kill()
                    worker.communicate()
                    if stopped_by_cancel:
                        return None
                    raise subprocess.TimeoutExpired(worker.args, timeout_s) from None
        if worker.returncode != 0:
            raise RuntimeError(f"block worker failed (exit {worker.returncode}): {stderr[-2000:]}")
        return json.loads(stdout)

    def link_report(self, profile_name: str) -> dict[str, Any]:
        try:
            measured = self.link.measure(rtt_samples=10, loss_packets=200, rate_seconds=1.0, time_budget_s=10.0)
            measured_dict = measured.to_dict()
        except Exception as exc:  # the measurement is evidence, not a reason to lose the run
            measured_dict = {"error": f"{type(exc).__name__}: {exc}"}
        return {"profile": profile_name, "backend": self.link.backend_name, "applied": self.link.profile.to_dict(),
                "congestion_control": getattr(self.link, "congestion_control", None),
                "measured": measured_dict, "counters": self.link.stats()}


@contextmanager
def emulated_run(network_profile: dict[str, Any], reference: ReferenceTarget) -> Iterator[EmulatedRun]:
    if os.geteuid() != 0:
        raise LinkUnavailable("network profiles need the link emulator, which needs root (network namespaces)")
    from latencylab_tools.netlab import EmulatedLink, sweep_leftovers

    sweep_leftovers()
    profile = link_profile(network_profile)
    tls_dir = str(Path(reference.ca_file).parent) if reference.ca_file else "var/tls"
    with EmulatedLink(profile) as link:
        server = link.spawn_in_server(
            [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr, "--plain-port",
             str(SERVER_PLAIN_PORT), "--tls-port", str(SERVER_TLS_PORT), "--tls-dir", tls_dir],
            stdout=subprocess.PIPE, text=True)
        ready = server.stdout.readline() if server.stdout else ""
        if not ready.strip().startswith("{"):
            raise LinkUnavailable(f"the target did not start in the server namespace: {ready[:500]!r}")
        info = json.loads(ready)
        target = ReferenceTarget(link.server_addr, int(info["plain_port"]), int(info["tls_port"]), link.server_addr,
                                 reference.ca_file)
        yield EmulatedRun(link=link, target=target)
