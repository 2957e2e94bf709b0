"""Fixtures of the comparison tests: the leasing units counted (the reference target is the
backend's conftest.py's)."""

import pytest

from apps.scheduler import leasing, wakeups


@pytest.fixture
def counted_looks(monkeypatch):
    """Each look for work (runs found) and each wait's outcome (True: woken by the listener)."""
    looks: list[int] = []
    wakes: list[bool] = []
    real_look, real_wait = leasing._lease_once, wakeups.Wakeup.wait  # noqa: SLF001 — the units counted

    def look(**kwargs):
        runs = real_look(**kwargs)
        looks.append(len(runs))
        return runs

    def wait(self, timeout):
        woken = real_wait(self, timeout)
        wakes.append(woken)
        return woken

    monkeypatch.setattr(leasing, "_lease_once", look)
    monkeypatch.setattr(wakeups.Wakeup, "wait", wait)
    return looks, wakes


@pytest.fixture
def listener_wakes(monkeypatch):
    """What the process's listener did: each waiting lease request it woke (by the key that
    woke it; None: everyone, after a lost connection), and each set of keys it handled (a
    notification's payload, a recheck's pools with queued runs), recorded once every request
    of that set was woken. A test that checks a request was not woken reads `woken` once the
    listener has handled the notification in question, not after a wait's deadline."""
    woken: list[str | None] = []
    handled: list[set[str] | None] = []
    real_wake, real_handle = wakeups.Wakeup.wake, wakeups.RunsQueuedListener._wake  # noqa: SLF001 — the units counted

    def wake(self, key):
        woken.append(key)
        real_wake(self, key)

    def handle(self, pools):
        real_handle(self, pools)
        handled.append(pools)

    monkeypatch.setattr(wakeups.Wakeup, "wake", wake)
    monkeypatch.setattr(wakeups.RunsQueuedListener, "_wake", handle)
    return woken, handled
