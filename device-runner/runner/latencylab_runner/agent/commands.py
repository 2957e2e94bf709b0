"""`latencylab-runner register` and `latencylab-runner run`.

register: enrolls this host in a device pool with a pool enrollment token
(`POST /api/runner/v1/register`, `Authorization: Enroll <token>`) and writes the runner's
own credentials to its config file (mode 0600; never replaced without --force, so a
second `register` cannot orphan an enrolled runner by accident).

run: starts the agent from that config, with the drivers it names.
"""

from __future__ import annotations

import argparse
import logging
import re
import signal
import socket
import sys
from pathlib import Path

from latencylab_tools.netlab.wifi import WifiInterfaces, WifiShaper

from ..devices.android import Adb, AndroidDevices
from ..devices.ios import IDeviceTools, IosDevices
from ..drivers.android import DEVICE_DIR, AndroidDriver
from ..drivers.host import HostDriver
from ..drivers.ios import IosDriver
from ..drivers.ios_harness import IosSigning
from ..drivers.job_exchange import JobExchange
from ..drivers.phone import PhoneSettings
from ..drivers.target_certificate import CertificateProblem
from .agent import Agent
from .client import EnrollmentError, RunnerClient, register
from .config import DRIVERS, ConfigError, RunnerConfig, default_config_path, load_config, write_new_config
from .fleet import Driver
from .journal import journal_dir_from_env
from .lab_capabilities import lab_capabilities

log = logging.getLogger("latencylab.runner")
RUNNER_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


def _drivers_arg(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    bad = [n for n in names if n not in DRIVERS]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"must be a comma-separated list of {', '.join(DRIVERS)}, got {value!r}")
    return names


def _runner_name(value: str) -> str:
    if not RUNNER_NAME.match(value):
        raise argparse.ArgumentTypeError(f"must be 1 to 100 of A-Z a-z 0-9 . _ -, got {value!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="latencylab-runner")
    sub = parser.add_subparsers(dest="command", required=True)
    enroll = sub.add_parser("register", help="enroll this host in a device pool")
    enroll.add_argument("--server", required=True, help="the LatencyLab URL, e.g. https://latencylab.example.com")
    enroll.add_argument("--token", required=True, help="a pool enrollment token (shown once when created)")
    enroll.add_argument("--name", required=True, type=_runner_name,
                        help="this runner's name in the pool, e.g. mac-mini-3")
    enroll.add_argument("--drivers", type=_drivers_arg, default=["android", "ios"],
                        help="comma-separated: host, android, ios (default android,ios)")
    enroll.add_argument("--config", type=Path, default=None,
                        help="config file (default $LATENCYLAB_RUNNER_CONFIG or ~/.config/latencylab/runner.json)")
    enroll.add_argument("--force", action="store_true", help="replace an existing config")
    run = sub.add_parser("run", help="start the agent from the config")
    run.add_argument("--config", type=Path, default=None)
    run.add_argument("--max-runs", type=int, default=None, help="exit after this many runs")
    run.add_argument("--idle-exit", type=float, default=None, help="exit after this many idle seconds")
    return parser


def cmd_register(args: argparse.Namespace) -> int:
    path = args.config or default_config_path()
    if path.exists() and not args.force:
        # Checked before the server is asked: an enrollment token is single-purpose.
        print(f"latencylab-runner: {path} exists (this host is already enrolled); pass --force to replace it",
              file=sys.stderr)
        return 1
    try:
        answer = register(args.server, args.token, name=args.name, hostname=socket.getfqdn(), drivers=args.drivers)
    except EnrollmentError as exc:
        print(f"latencylab-runner: enrollment refused: {exc}", file=sys.stderr)
        return 1
    doc = {"server": args.server.rstrip("/"), "runner_token": answer["runner_token"],
           "runner_id": answer["runner_id"], "name": args.name, "pool": answer.get("pool"), "drivers": args.drivers}
    try:
        write_new_config(path, doc, force=args.force)
    except (ConfigError, OSError) as exc:
        print(f"latencylab-runner: {exc}", file=sys.stderr)
        return 1
    print(f"enrolled {args.name} in pool {answer.get('pool')}; credentials in {path} (mode 0600)")
    print(f"start the agent with: latencylab-runner run --config {path}")
    return 0


def build_drivers(config: RunnerConfig, shaper: WifiShaper | None = None) -> list[Driver]:
    drivers: list[Driver] = []
    settings = PhoneSettings(target=config.target, work_dir=config.work_dir, lane=config.lane, limits=config.gate,
                             link_mode=config.link_mode, shaper=shaper, leases_file=config.link_leases)
    if "host" in config.drivers:
        drivers.append(HostDriver(config.target, serial=f"host-{config.name}"))
    if "android" in config.drivers:
        devices = AndroidDevices(Adb(config.adb), config.gate)
        drivers.append(AndroidDriver(devices, settings, device_dir=config.android_device_dir or DEVICE_DIR))
    if "ios" in config.drivers:
        tools = IDeviceTools(idevice_id=config.idevice_id, ideviceinfo=config.ideviceinfo,
                             idevicediagnostics=config.idevicediagnostics)
        exchange = JobExchange(config.exchange_host, config.exchange_port, advertise=config.lab_address)
        signing = IosSigning(config.ios_team_id, config.ios_bundle_id_prefix) \
            if config.ios_team_id and config.ios_bundle_id_prefix else None
        drivers.append(IosDriver(IosDevices(tools, config.gate), settings, exchange=exchange, signing=signing,
                                 min_free_mb=config.ios_min_free_mb))
    return drivers


def serve(agent: Agent, client: RunnerClient, *, max_runs: int | None = None, idle_exit_s: float | None = None) -> int:
    signal.signal(signal.SIGTERM, agent.signalled)
    try:
        agent.run_forever(max_runs=max_runs, idle_exit_s=idle_exit_s)
    except KeyboardInterrupt:
        pass
    finally:
        client.close()
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    path = args.config or default_config_path()
    try:
        config = load_config(path)
    except ConfigError as exc:
        print(f"latencylab-runner: {exc}", file=sys.stderr)
        return 2
    try:
        capabilities = lab_capabilities(config)
    except CertificateProblem as exc:
        print(f"latencylab-runner: {path}: {exc}", file=sys.stderr)
        return 2
    log.info("runner %s: lab capabilities %s", config.name, capabilities)
    client = RunnerClient(config.server, config.runner_token, journal=journal_dir_from_env())
    # One shaper for the host's AP interface, shared by every phone on it.
    shaper = WifiShaper(WifiInterfaces(ap=config.link_interface)) \
        if config.link_mode == "ap-netem" and config.link_interface else None
    agent = Agent(client, name=config.name, drivers=build_drivers(config, shaper),
                  heartbeat_interval_s=config.heartbeat_interval_s, hosted=config.hosted,
                  lab_capabilities=capabilities)
    log.info("runner %s: drivers %s, server %s", config.name, ", ".join(config.drivers), config.server)
    try:
        return serve(agent, client, max_runs=args.max_runs, idle_exit_s=args.idle_exit)
    finally:
        if shaper is not None:
            shaper.close()


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return cmd_register(args) if args.command == "register" else cmd_run(args)
