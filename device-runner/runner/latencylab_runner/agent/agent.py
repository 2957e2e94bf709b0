"""The agent loop: device reports, leases, one thread per leased run, draining.

It discovers its devices through every enabled driver (host, android, ios), reports them
(hello, then a heartbeat every 10 s that keeps leases alive), long-polls for work for the
devices that are free and ready, and runs each leased run on its device's driver in a thread
of its own (the runner protocol: device-runner/contract/README.md). It only ever makes
outbound requests: a device lab needs no inbound port from the internet.

Draining (SIGTERM, or a `drain` command from the server): no new lease; the runs held
are finished (heartbeating all the while); then run_forever returns — so upgrading a
runner loses no run. Its first act is a heartbeat reporting the devices without a run
offline ("runner stopping"): the backend then leases them nothing more and answers the
agent's waiting long-poll at once, so an idle agent stops in a moment, not after up to
lease_wait_s."""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any

from .. import __version__
from ..devices.model import DeviceStatus
from ..drivers.host import host_device
from ..target_policy import TargetRefused, TargetUnresolved, pin_targets
from .client import ProtocolError, RunnerClient
from .fleet import Driver, Fleet

log = logging.getLogger("latencylab.runner")

# Why a stopping agent's free devices are offline (the backend shows it on the Devices page).
STOPPING_REASON = "runner stopping"
# How often the watcher thread looks for a signal the handler recorded: a SIGTERM starts the
# drain within this, and a systemd stop waits for the drain anyway.
SIGNAL_POLL_S = 0.2


class SingleDevice:
    """One host device with a driver that only executes (the host runner's shape)."""

    def __init__(self, driver: Any, serial: str):
        self.driver = driver
        self.serial = serial
        self.name = getattr(driver, "name", "host")

    def discover(self, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        return [host_device(self.serial)]

    def execute(self, lease: dict[str, Any], client: Any, cancelled: threading.Event) -> None:
        self.driver.execute(lease, client, cancelled)


class Agent:
    def __init__(self, client: RunnerClient, *, name: str, serial: str | None = None, driver: Any = None,
                 drivers: list[Driver] | None = None, heartbeat_interval_s: float = 10.0, lease_wait_s: float = 25.0,
                 hosted: bool = False, lab_capabilities: dict[str, dict[str, Any]] | None = None):
        if drivers is None:
            if driver is None or serial is None:
                raise ValueError("an agent needs drivers, or one driver and its device serial")
            drivers = [SingleDevice(driver, serial)]
        self.client = client
        self.name = name
        self.fleet = Fleet(drivers, lab_capabilities)
        self.heartbeat_interval_s = heartbeat_interval_s
        self.lease_wait_s = lease_wait_s
        # A hosted pool's host (config `hosted: true`): customer hosts are checked and pinned
        # on every run, whatever a lease says (target_policy.py).
        self.hosted = hosted
        # Set by SIGTERM or a `drain` command: no new leases; running runs finish.
        self.stopping = threading.Event()
        # What the SIGTERM handler records, and all it does: the watcher thread drains.
        self._signalled: list[int] = []
        self._stopped = threading.Event()
        self._active: dict[str, dict[str, Any]] = {}
        self._cancel: dict[str, threading.Event] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._started = 0
        self._finished = 0
        self._changed = threading.Condition()

    # -- reporting -----------------------------------------------------------
    def runner_info(self) -> dict[str, Any]:
        return {"name": self.name, "version": __version__, "drivers": self.fleet.driver_names(),
                "hostname": socket.gethostname()}

    def hello(self) -> dict[str, Any]:
        self.fleet.refresh()
        answer = self.client.hello(self.runner_info(), self.fleet.descriptors())
        self.fleet.effective_states(answer.get("devices") or [])
        return answer

    def _heartbeat_loop(self) -> None:
        while not self._stopped.wait(self.heartbeat_interval_s):
            self.heartbeat_once()

    def heartbeat_once(self) -> None:
        try:
            if not self.fleet.refresh_within(self.heartbeat_interval_s / 2):
                log.warning("device discovery is slow; this heartbeat reports the last known devices")
            with self._changed:
                runs = [{"run_id": r["run_id"], "lease_token": r["lease_token"]} for r in self._active.values()]
            answer = self.client.heartbeat(self._descriptors(), runs)
        except Exception as exc:  # a missed heartbeat is retried next interval
            log.warning("heartbeat failed: %s", exc)
            return
        self.fleet.effective_states(answer.get("devices") or [])
        with self._changed:
            self._changed.notify_all()  # a device may have become free or ready
        for command in answer.get("commands", []):
            if command.get("type") == "cancel_run" and command.get("run_id") in self._cancel:
                log.info("server cancelled run %s", command["run_id"])
                self._cancel[command["run_id"]].set()
            elif command.get("type") == "drain":
                log.info("server asked this runner to drain")
                self.drain()

    def _descriptors(self) -> list[dict[str, Any]]:
        """The devices as a heartbeat reports them: once stopping, those without a run are
        offline, so the backend offers them no lease and shows why."""
        descriptors = self.fleet.descriptors()
        if self.stopping.is_set():
            for descriptor in descriptors:
                if descriptor.get("state") != "busy":
                    descriptor["state"], descriptor["reason"] = "offline", STOPPING_REASON
        return descriptors

    # -- leasing -------------------------------------------------------------
    def run_forever(self, *, max_runs: int | None = None, idle_exit_s: float | None = None) -> int:
        """Until stopped (then drained), `max_runs` runs, or `idle_exit_s` without work;
        the number of runs executed."""
        self.hello()
        heartbeat = threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True)
        heartbeat.start()
        threading.Thread(target=self._signal_watch, name="signal-watch", daemon=True).start()
        idle_since = time.monotonic()
        try:
            while not self.stopping.is_set():
                if max_runs is not None and self._started >= max_runs:
                    break
                free = self.fleet.free()
                busy = bool(self._active)
                if idle_exit_s is not None and not busy and time.monotonic() - idle_since > idle_exit_s:
                    break
                if not free:
                    with self._changed:
                        self._changed.wait(timeout=1.0)
                    continue
                # Short polls while runs are going, so a device that frees up is leased soon.
                wait = self.lease_wait_s if not busy else min(self.lease_wait_s, 5.0)
                if idle_exit_s is not None:
                    wait = min(wait, idle_exit_s)
                try:
                    leases = self.client.lease(free, wait_s=wait)
                except ProtocolError as exc:
                    log.error("lease failed: %s", exc)
                    self.stopping.wait(5)
                    continue
                except Exception as exc:
                    log.warning("backend unreachable (%s); retrying", exc)
                    self.stopping.wait(2)
                    continue
                for lease in leases:
                    self._start(lease, free)
                    idle_since = time.monotonic()
        finally:
            self._drain()
            self._stopped.set()
        return self._finished

    def _start(self, lease: dict[str, Any], free: list[str]) -> None:
        run_id = lease["run_id"]
        serial = lease.get("device_serial") or (free[0] if len(free) == 1 else None)
        driver = self.fleet.claim(serial) if serial else None
        if driver is None:
            # Not ours to run (or no longer free): its lease expires and the backend requeues it.
            log.error("run %s was leased for device %r, which this runner cannot run now", run_id, serial)
            return
        cancelled = threading.Event()
        with self._changed:
            self._active[run_id] = lease
            self._cancel[run_id] = cancelled
            self._started += 1
        log.info("leased run %s on %s (attempt %s, from block %s)", run_id, serial, lease.get("attempt"),
                 lease.get("next_block"))
        thread = threading.Thread(target=self._execute, args=(driver, serial, lease, cancelled),
                                  name=f"run-{serial}", daemon=True)
        self._threads[run_id] = thread
        thread.start()

    def _execute(self, driver: Driver, serial: str, lease: dict[str, Any], cancelled: threading.Event) -> None:
        run_id = lease["run_id"]
        try:
            if self._targets_pinned(lease):
                driver.execute(lease, self.client, cancelled)
        except Exception:
            # The backend was unreachable even after the client's retries: the lease will
            # expire and the run resume at its first unstored block, on this runner or
            # another. The agent itself must survive to take the next lease.
            log.exception("run %s abandoned; the backend will requeue it when its lease expires", run_id)
        finally:
            self.fleet.release(serial)
            # Look at the device now rather than at the next heartbeat: it is offered
            # for the next run once discovery has seen it (fleet.py).
            self.fleet.refresh_within(self.heartbeat_interval_s / 2)
            with self._changed:
                self._active.pop(run_id, None)
                self._cancel.pop(run_id, None)
                self._threads.pop(run_id, None)
                self._finished += 1
                self._changed.notify_all()

    def _targets_pinned(self, lease: dict[str, Any]) -> bool:
        """Before any driver runs a hosted run: every customer host resolved once, checked,
        and its address put in the lease for the jobs (`pinned_addresses`). A refused host
        ends the run `failed` (the spec's target, not the lab, is at fault; retrying on
        another device would not change the answer), naming the field and the reason: a
        host that does not resolve as `target_unreachable`, a refused address as `test_failure`."""
        try:
            lease["pinned_addresses"] = pin_targets(lease, configured_hosted=self.hosted)
        except TargetRefused as exc:
            log.warning("run %s refused: %s", lease["run_id"], exc)
            kind = "target_unreachable" if isinstance(exc, TargetUnresolved) else "test_failure"
            # Nothing ran: no fingerprint or link to report.
            self.client.finish(lease["run_id"], {"lease_token": lease["lease_token"], "status": "failed",
                                                 "error_kind": kind, "error": str(exc)[:4000],
                                                 "fingerprint": None, "link": None})
            return False
        return True

    def _drain(self) -> None:
        with self._changed:
            if self._active:
                log.info("draining: waiting for %d run(s) to finish", len(self._active))
            while self._active:
                self._changed.wait(timeout=1.0)

    def signalled(self, signum: int, _frame: Any = None) -> None:
        """The SIGTERM handler: records the signal, nothing more. Python runs a handler on
        the main thread between two of its steps, wherever it is — maybe holding the lock of
        the very Event, Condition or log handler that draining uses, which a handler taking
        it again would wait for forever. The watcher thread drains (`_signal_watch`)."""
        self._signalled.append(signum)

    def _signal_watch(self) -> None:
        """Drains once a signal was recorded; looks every SIGNAL_POLL_S until the agent stops."""
        while not self._stopped.wait(SIGNAL_POLL_S):
            if self._signalled:
                log.info("signal %d received", self._signalled[0])
                self.drain()
                return

    def drain(self) -> None:
        """Stop leasing (on SIGTERM, through the watcher, or the server's `drain` command); the
        loop ends once running runs are done."""
        if self.stopping.is_set():
            return
        log.info("draining: no new leases; finishing the runs in progress")
        self.stopping.set()
        # On a thread of its own: the caller may be the heartbeat thread (a `drain` command),
        # and the main thread may be inside the lease request this heartbeat is meant to end.
        threading.Thread(target=self.heartbeat_once, name="stopping-heartbeat", daemon=True).start()
