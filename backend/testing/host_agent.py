"""One real host runner agent (the probe on this machine) and a real Celery worker, taking the
runs of comparisons a test has submitted: what the end-to-end tests of arms with endpoints of
their own share. Imports the device-runner package (installed beside the backend by
infra/bin/bootstrap.sh)."""

from __future__ import annotations

import threading
from typing import Any, TypeVar

from celery.contrib.testing.worker import start_worker

from apps.comparisons.models import Comparison
from apps.devices.services import runner_register
from config.celery import app as celery_app
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.main import Agent
from latencylab_runner.drivers.host import HostDriver
from latencylab_runner.drivers.targets import ReferenceTarget

from .waiting import wait_for

# Every arm names its own endpoint: the reference target the runner knows is never asked.
UNUSED_TARGET = ReferenceTarget("127.0.0.1", 9, 9, "localhost", None)

Client = TypeVar("Client", bound=RunnerClient)


def reference_of(target: Any) -> ReferenceTarget:
    """How the runner knows a reference target the test started (latencylab_tools.target.start_target)."""
    return ReferenceTarget("127.0.0.1", target.plain_port, target.tls_port, "localhost", str(target.ca_file))


def runner_client(server_url: str, pool, name: str, client_class: type[Client] = RunnerClient) -> Client:  # type: ignore[assignment]
    """A runner registered in `pool` as `name`, and a protocol client holding its token."""
    _, token = runner_register(pool=pool, name=name)
    return client_class(server_url, token)


def host_agent(client: RunnerClient, name: str, *, target: ReferenceTarget = UNUSED_TARGET,
               heartbeat_interval_s: float = 1) -> Agent:
    """An agent of one host device (serial `host-<name>`) measuring with the built-in probe."""
    return Agent(client, name=name, serial=f"host-{name}", driver=HostDriver(target),
                 heartbeat_interval_s=heartbeat_interval_s)


def run_on_host_agent(server_url: str, pool, comparison_ids: list[str], *, name: str = "host-agent",
                      timeout_s: float = 120, target: ReferenceTarget = UNUSED_TARGET) -> bool:
    """Registers a runner in `pool`, runs its agent until every comparison is terminal (or
    `timeout_s` passed), stops it; True when all ended in time."""
    client = runner_client(server_url, pool, name)
    agent = host_agent(client, name, target=target)
    try:
        with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": len(comparison_ids)},
                                      daemon=True)
            thread.start()
            ended = wait_for(lambda: all(Comparison.objects.get(pk=c).status in Comparison.TERMINAL
                                         for c in comparison_ids), timeout_s)
            agent.drain()
            thread.join(30)
    finally:
        client.close()
    return ended
