"""The runner agent: registers its devices, long-polls for leases, executes each run
with the device's driver, and heartbeats every 10 s so leases stay alive (DESIGN §5.3).
It only ever makes outbound requests: a device lab needs no inbound port."""

import argparse
import logging
import os
import signal
import socket
import threading
import time
from typing import Any

from .. import __version__
from ..drivers.host import HostDriver, host_fingerprint
from ..drivers.targets import ReferenceTarget
from .client import ProtocolError, RunnerClient

log = logging.getLogger("latencylab.runner")


class Agent:
    def __init__(self, client: RunnerClient, *, name: str, serial: str, driver: HostDriver,
                 heartbeat_interval_s: float = 10.0):
        self.client = client
        self.name = name
        self.serial = serial
        self.driver = driver
        self.heartbeat_interval_s = heartbeat_interval_s
        self.stopping = threading.Event()
        self._active: dict[str, dict[str, Any]] = {}
        self._cancel: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def device_descriptor(self) -> dict[str, Any]:
        fp = host_fingerprint()
        return {"serial": self.serial, "platform": "host", "model": fp["model"], "os_version": fp["os_version"],
                "capabilities": {"protocols": ["h1c", "h1", "h2", "h3", "grpc"]}}

    def hello(self) -> dict[str, Any]:
        return self.client.hello(
            {"name": self.name, "version": __version__, "drivers": ["host"], "hostname": socket.gethostname()},
            [self.device_descriptor()],
        )

    def _heartbeat_loop(self) -> None:
        while not self.stopping.wait(self.heartbeat_interval_s):
            self.heartbeat_once()

    def heartbeat_once(self) -> None:
        with self._lock:
            runs = [{"run_id": r["run_id"], "lease_token": r["lease_token"]} for r in self._active.values()]
        state = "busy" if runs else "available"
        try:
            answer = self.client.heartbeat([{"serial": self.serial, "state": state}], runs)
        except Exception as exc:  # a missed heartbeat is retried next interval
            log.warning("heartbeat failed: %s", exc)
            return
        for command in answer.get("commands", []):
            if command.get("type") == "cancel_run" and command.get("run_id") in self._cancel:
                log.info("server cancelled run %s", command["run_id"])
                self._cancel[command["run_id"]].set()

    def run_forever(self, *, max_runs: int | None = None, idle_exit_s: float | None = None) -> int:
        self.hello()
        threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True).start()
        done = 0
        idle_since = time.monotonic()
        while not self.stopping.is_set():
            try:
                leases = self.client.lease([self.serial], wait_s=25 if idle_exit_s is None else min(25, idle_exit_s))
            except ProtocolError as exc:
                log.error("lease failed: %s", exc)
                self.stopping.wait(5)
                continue
            except Exception as exc:
                log.warning("backend unreachable (%s); retrying", exc)
                self.stopping.wait(2)
                continue
            if not leases:
                if idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s:
                    break
                continue
            for lease in leases:
                self._execute(lease)
                done += 1
                idle_since = time.monotonic()
            if max_runs is not None and done >= max_runs:
                break
        self.stopping.set()
        return done

    def _execute(self, lease: dict[str, Any]) -> None:
        run_id = lease["run_id"]
        cancelled = threading.Event()
        with self._lock:
            self._active[run_id] = lease
            self._cancel[run_id] = cancelled
        log.info("leased run %s (attempt %s, from block %s)", run_id, lease["attempt"], lease["next_block"])
        try:
            self.driver.execute(lease, self.client, cancelled)
        except Exception:
            # The backend was unreachable even after the client's retries: the lease will
            # expire and the run resume at its first unstored block, on this runner or
            # another. The agent itself must survive to take the next lease.
            log.exception("run %s abandoned; the backend will requeue it when its lease expires", run_id)
        finally:
            with self._lock:
                self._active.pop(run_id, None)
                self._cancel.pop(run_id, None)


def build_parser() -> argparse.ArgumentParser:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="latencylab-runner", description=__doc__)
    parser.add_argument("--server", default=env("LATENCYLAB_SERVER", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=env("LATENCYLAB_RUNNER_TOKEN"), help="or LATENCYLAB_RUNNER_TOKEN")
    parser.add_argument("--name", default=env("LATENCYLAB_RUNNER_NAME", socket.gethostname()))
    parser.add_argument("--serial", default=None, help="host device serial (default host-<name>)")
    parser.add_argument("--target-host", default=env("LATENCYLAB_TARGET_HOST", "127.0.0.1"))
    parser.add_argument("--target-plain-port", type=int, default=int(env("LATENCYLAB_TARGET_PLAIN_PORT", "8080")))
    parser.add_argument("--target-tls-port", type=int, default=int(env("LATENCYLAB_TARGET_TLS_PORT", "8443")))
    parser.add_argument("--target-server-name", default=env("LATENCYLAB_TARGET_SERVER_NAME", "localhost"))
    parser.add_argument("--ca-file", default=env("LATENCYLAB_TARGET_CA"), help="CA of the reference target")
    parser.add_argument("--max-runs", type=int, default=None, help="exit after this many runs")
    parser.add_argument("--idle-exit", type=float, default=None, help="exit after this many idle seconds")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.token:
        build_parser().error("a runner token is required (--token or LATENCYLAB_RUNNER_TOKEN)")
    client = RunnerClient(args.server, args.token)
    target = ReferenceTarget(args.target_host, args.target_plain_port, args.target_tls_port, args.target_server_name,
                             args.ca_file)
    agent = Agent(client, name=args.name, serial=args.serial or f"host-{args.name}", driver=HostDriver(target))
    signal.signal(signal.SIGTERM, lambda *_: agent.stopping.set())
    try:
        agent.run_forever(max_runs=args.max_runs, idle_exit_s=args.idle_exit)
    except KeyboardInterrupt:
        pass
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
