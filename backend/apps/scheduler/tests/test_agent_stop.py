"""An idle agent stops at once (the real agent against the live server): draining, it reports
its free device offline ("runner stopping"), the backend answers its waiting lease long-poll
then, with no runs, and run_forever returns — counted in the listener's wakes, not timed. Before,
an idle agent waited out its long-poll (up to 25 s) on SIGTERM."""

import threading

import pytest

from apps.devices.models import Device
from apps.scheduler import wakeups
from latencylab_runner.agent.agent import STOPPING_REASON
from testing.host_agent import host_agent, runner_client
from testing.waiting import wait_for

LEASE_WAIT_S = 20  # the agent's long-poll: far longer than the test waits for it to stop


@pytest.mark.django_db(transaction=True)
def test_an_idle_agent_told_to_drain_ends_its_long_poll_and_stops(live_server, settings, pool, counted_looks):
    settings.RUNNER_LEASE_WAIT_MAX_S = LEASE_WAIT_S
    _, wakes = counted_looks
    client = runner_client(live_server.url, pool, "stopping-runner")
    agent = host_agent(client, "stopping-runner", heartbeat_interval_s=3600)
    agent.lease_wait_s = LEASE_WAIT_S
    runs: list[int] = []
    thread = threading.Thread(target=lambda: runs.append(agent.run_forever()), daemon=True)
    try:
        thread.start()
        assert wait_for(lambda: wakeups.listener.waiting_count() == 1, 30), "the agent never long-polled"

        agent.drain()  # what SIGTERM calls
        thread.join(LEASE_WAIT_S * 3)
        assert not thread.is_alive()
    finally:
        client.close()
    assert runs == [0]
    # Its one long-poll was woken (by its own heartbeat), not ended by its deadline.
    assert wakes == [True]
    device = Device.objects.get(serial="host-stopping-runner")
    assert (device.state, device.state_reason) == (Device.State.OFFLINE, STOPPING_REASON)

