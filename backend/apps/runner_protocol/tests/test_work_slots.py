"""A web process works on a few runner-protocol requests at once and queues the rest,
each queued request holding no database connection (apps.core.admission); a
long-poll lends its slot back while it waits, so waiting runners never take the process's
capacity from the ones with work to report."""

import threading

import pytest
from django.db import connection

from apps.core.admission import WorkSlots
from apps.scheduler import leasing, wakeups
from apps.scheduler.tests.test_lease_wakeups import until
from testing.device_farm import heartbeat, phone, runner_client

# Bound on the waits for another thread to reach a state; never part of what is asserted.
PATIENCE_S = 30.0


def test_at_most_size_requests_work_at_once_and_the_rest_wait():
    slots = WorkSlots(2)
    inside, most, waited = [0], [0], []
    lock, go = threading.Lock(), threading.Event()

    def request(n: int) -> None:
        with slots.held(before_waiting=lambda: waited.append(n)):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            assert go.wait(PATIENCE_S)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=request, args=(n,)) for n in range(5)]
    for thread in threads:
        thread.start()
    until(lambda: inside[0] == 2 and len(waited) == 3, "two working, three queued")
    go.set()
    for thread in threads:
        thread.join(PATIENCE_S)
    assert not any(thread.is_alive() for thread in threads)
    assert most[0] == 2


def test_a_slot_is_kept_by_a_thread_that_asks_again_and_lent_while_it_waits():
    slots = WorkSlots(1)
    waited: list[str] = []
    other_done = threading.Event()

    def other() -> None:
        with slots.held(before_waiting=lambda: waited.append("other")):
            pass
        other_done.set()

    with slots.held():
        with slots.held(before_waiting=lambda: waited.append("again")):  # re-entrant: no wait
            assert slots.holding()
        assert slots.holding()
        thread = threading.Thread(target=other)
        thread.start()
        until(lambda: waited == ["other"], "the other request queued behind this one")
        with slots.lent():
            assert not slots.holding()
            assert other_done.wait(PATIENCE_S)  # it worked while this one waited
        assert slots.holding()
    thread.join(PATIENCE_S)
    assert not slots.holding()


def test_lending_outside_a_slot_changes_nothing_and_no_wait_gives_nothing_back():
    slots = WorkSlots(1)
    with slots.lent():
        assert not slots.holding()
    called: list[bool] = []
    with slots.held(before_waiting=lambda: called.append(True)):
        assert slots.holding()
    assert called == []
    with pytest.raises(ValueError, match="at least 1"):
        WorkSlots(0)


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_waiting_for_work_leaves_its_slot_to_a_heartbeat(settings, pool, monkeypatch, slow_recheck):
    """One slot: a runner's long-poll finds no work and waits; another runner's heartbeat
    is answered meanwhile, through the same process, while the long-poll still waits. Then its
    own runner's heartbeat takes its phone offline, which answers it (with no run)."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    slots = WorkSlots(1)
    monkeypatch.setattr(leasing, "RUNNER_WORK", slots)
    waiting_lab = runner_client(pool, "lab-a", [phone("A1")])
    busy_lab = runner_client(pool, "lab-b", [phone("B1")])
    answered: dict[str, int] = {}

    def long_poll() -> None:
        try:
            response = waiting_lab.post("/api/runner/v1/lease", {"devices": ["A1"], "wait_s": 20}, format="json")
            answered["lease"] = response.status_code
        finally:
            connection.close()

    polling = threading.Thread(target=long_poll)
    polling.start()
    until(lambda: wakeups.listener.waiting_count() == 1, "the long-poll waits for work")
    response = heartbeat(busy_lab, [phone("B1")])
    assert response.status_code == 200, response.content
    # Still waiting, its slot lent: with the slot held, the heartbeat would have waited out the poll.
    assert polling.is_alive()
    assert "lease" not in answered
    assert heartbeat(waiting_lab, [phone("A1", state="offline")]).status_code == 200
    polling.join(PATIENCE_S)
    assert answered["lease"] == 204
