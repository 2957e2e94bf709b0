"""`latencylab-runner`: the runner agent's command line.

    latencylab-runner register --server URL --token ENROLL --name NAME [--config PATH]
    latencylab-runner run [--config PATH]
    latencylab-runner --server URL --token TOKEN [--name …] [--target-host …]   (a host runner)

`register` enrolls this host in a device pool and stores the runner's own credentials
(mode 0600); `run` starts the agent from that config with the drivers it names. The bare
form runs a host-only runner from flags (the local stack starts it so). SIGTERM drains:
no new leases, the runs in progress finish, then the process exits 0.
"""

import argparse
import logging
import os
import socket
import sys
from pathlib import Path

from ..drivers.host import HostDriver
from ..drivers.targets import ReferenceTarget
from . import commands
from .agent import Agent, SingleDevice
from .client import RunnerClient
from .journal import JOURNAL_ENV, journal_dir_from_env

__all__ = ["Agent", "SingleDevice", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="latencylab-runner", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=env("LATENCYLAB_SERVER", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=env("LATENCYLAB_RUNNER_TOKEN"), help="or LATENCYLAB_RUNNER_TOKEN")
    parser.add_argument("--name", default=env("LATENCYLAB_RUNNER_NAME", socket.gethostname()))
    parser.add_argument("--serial", default=None, help="host device serial (default host-<name>)")
    parser.add_argument("--target-host", default=env("LATENCYLAB_TARGET_HOST", "127.0.0.1"))
    parser.add_argument("--target-plain-port", type=int, default=int(env("LATENCYLAB_TARGET_PLAIN_PORT", "8080")))
    parser.add_argument("--target-tls-port", type=int, default=int(env("LATENCYLAB_TARGET_TLS_PORT", "8443")))
    parser.add_argument("--target-server-name", default=env("LATENCYLAB_TARGET_SERVER_NAME", "localhost"))
    parser.add_argument("--ca-file", default=env("LATENCYLAB_TARGET_CA"), help="CA of the reference target")
    parser.add_argument("--hosted", action="store_true", default=env("LATENCYLAB_RUNNER_HOSTED") == "1",
                        help="a hosted pool's host: check and pin every customer host (or LATENCYLAB_RUNNER_HOSTED=1)")
    parser.add_argument("--journal", type=Path, default=journal_dir_from_env(),
                        help=f"keep every uploaded batch in this directory (or {JOURNAL_ENV})")
    parser.add_argument("--max-runs", type=int, default=None, help="exit after this many runs")
    parser.add_argument("--idle-exit", type=float, default=None, help="exit after this many idle seconds")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["register"], ["run"]):
        return commands.main(argv)
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.token:
        build_parser().error("a runner token is required (--token or LATENCYLAB_RUNNER_TOKEN)")
    client = RunnerClient(args.server, args.token, journal=args.journal)
    target = ReferenceTarget(args.target_host, args.target_plain_port, args.target_tls_port, args.target_server_name,
                             args.ca_file)
    agent = Agent(client, name=args.name, serial=args.serial or f"host-{args.name}", driver=HostDriver(target),
                  hosted=args.hosted)
    return commands.serve(agent, client, max_runs=args.max_runs, idle_exit_s=args.idle_exit)


if __name__ == "__main__":
    raise SystemExit(main())
