"""Fixtures of the comparison tests: the leasing units counted (the reference target is the
backend's conftest.py's)."""

import pytest

from apps.comparisons import leasing, wakeups


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
