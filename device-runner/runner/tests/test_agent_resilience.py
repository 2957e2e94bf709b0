"""The agent survives a backend that disappears in the middle of a run: the run is
abandoned (the backend requeues it when the lease expires) and the agent carries on."""

import threading
from typing import Any

from latencylab_runner.agent.client import ProtocolError
from latencylab_runner.agent.main import Agent


class ScriptedClient:
    """Speaks the runner protocol's client interface; the second lease's upload fails as
    an unreachable backend would after its retries."""

    def __init__(self) -> None:
        self.leases = [[{"run_id": "r1", "lease_token": "t1", "attempt": 1, "next_block": 0}],
                       [{"run_id": "r2", "lease_token": "t2", "attempt": 1, "next_block": 0}]]
        self.executed: list[str] = []

    def hello(self, runner: dict[str, Any], devices: list[dict[str, Any]]) -> dict[str, Any]:
        return {"runner_id": "x", "devices": []}

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        return {"commands": []}

    def lease(self, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
        return self.leases.pop(0) if self.leases else []


class FailingFirstDriver:
    def __init__(self, client: ScriptedClient) -> None:
        self.client = client

    def execute(self, lease: dict[str, Any], client: Any, cancelled: threading.Event) -> None:
        self.client.executed.append(lease["run_id"])
        if lease["run_id"] == "r1":
            raise ProtocolError("/runs/r1/samples: HTTP 503 after 6 tries")


def test_agent_keeps_going_after_a_run_fails_on_the_backend():
    client = ScriptedClient()
    agent = Agent(client, name="t", serial="host-t", driver=FailingFirstDriver(client), heartbeat_interval_s=60)
    assert agent.run_forever(max_runs=2) == 2
    assert client.executed == ["r1", "r2"]
