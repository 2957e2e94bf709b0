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


class IdleClient(ScriptedClient):
    """No work, ever; its long-poll answers at once (a fast fake of an empty queue)."""

    def __init__(self) -> None:
        super().__init__()
        self.leases = []
        self.heartbeats: list[list[dict[str, Any]]] = []

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        self.heartbeats.append(devices)
        return {"commands": []}

    def lease(self, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
        threading.Event().wait(0.01)  # the poll interval of a loop that waits for the drain
        return []


def test_sigterm_is_only_recorded_in_the_handler_and_drained_by_the_watcher():
    """The handler runs on whatever the main thread was doing, possibly holding the lock of the
    Event or Condition draining uses: it must take none. Here the interrupted thread holds both,
    and the handler still returns (before the fix it set the Event itself and waited forever)."""
    client = IdleClient()
    agent = Agent(client, name="t", serial="host-t", driver=FailingFirstDriver(client), heartbeat_interval_s=60)
    returned = threading.Event()

    def interrupted_while_holding_the_locks() -> None:
        with agent.stopping._cond, agent._changed:  # noqa: SLF001 — the locks a handler could meet
            agent.signalled(15)
        returned.set()

    holder = threading.Thread(target=interrupted_while_holding_the_locks, daemon=True)
    holder.start()
    assert returned.wait(30), "the SIGTERM handler waited for a lock"
    assert not agent.stopping.is_set()  # recorded only: the watcher drains

    # The agent's own loop: its watcher sees the record, drains, and the loop ends.
    assert agent.run_forever() == 0
    assert agent.stopping.is_set()
    # The stopping heartbeat (a thread of its own) reported the idle device offline, so the
    # backend ends its long-poll.
    for thread in threading.enumerate():
        if thread.name == "stopping-heartbeat":
            # enumerate() lists a thread that is still starting too, which join() refuses.
            assert thread._started.wait(30)  # noqa: SLF001 — threading has no public "has started"
            thread.join(30)
    assert [d["state"] for d in client.heartbeats[-1]] == ["offline"]
