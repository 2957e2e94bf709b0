"""Waiting runners are woken by PostgreSQL (LISTEN/NOTIFY on a trigger of the run table), not
by a query every half second: counted in looks for work (`_lease_once` calls), not in time."""

import threading

import pytest
from django.db import connection

from apps.comparisons import leasing, wakeups
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import pool_get_or_create, runner_hello, runner_register
from testing.factories import SPEC


@pytest.fixture
def counted_looks(monkeypatch):
    """Each look for work (runs found) and each wait's outcome (True: woken by a notification)."""
    looks: list[int] = []
    wakes: list[bool] = []
    real_look, real_wait = leasing._lease_once, wakeups.RunsQueued.wait  # noqa: SLF001 — the units counted

    def look(**kwargs):
        runs = real_look(**kwargs)
        looks.append(len(runs))
        return runs

    def wait(self, timeout):
        woken = real_wait(self, timeout)
        wakes.append(woken)
        return woken

    monkeypatch.setattr(leasing, "_lease_once", look)
    monkeypatch.setattr(wakeups.RunsQueued, "wait", wait)
    # Longer than any wait here: a look after the first can only come from a notification or the deadline.
    monkeypatch.setattr(leasing, "LEASE_RECHECK_S", 600.0)
    return looks, wakes


def host_runner(pool, name: str):
    runner, _ = runner_register(pool=pool, name=name)
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": f"host-{name}", "platform": "host", "model": "test", "os_version": "1"}])
    return runner


def wait_for_lease(runner, wait_s: float) -> tuple[threading.Thread, dict]:
    """lease_acquire on its own thread (and so its own database connection), as a web thread would."""
    result: dict = {}

    def wait() -> None:
        try:
            result["runs"] = leasing.lease_acquire(runner=runner, serials=[f"host-{runner.name}"], wait_s=wait_s)
        finally:
            connection.close()

    thread = threading.Thread(target=wait)
    thread.start()
    return thread, result


def until_first_look(looks: list[int]) -> None:
    """The waiting thread has LISTENed and looked once, so a run queued now must wake it."""
    for _ in range(1000):
        if looks:
            return
        threading.Event().wait(0.01)
    raise AssertionError("the lease never looked for work")


@pytest.mark.django_db(transaction=True)
def test_a_waiting_runner_is_woken_by_a_queued_run_and_looks_twice(settings, org, counted_looks):
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    thread, result = wait_for_lease(runner, wait_s=20)
    until_first_look(looks)

    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))  # commits queued runs: the trigger notifies
    thread.join(timeout=30)

    assert not thread.is_alive()
    assert len(result["runs"]) == 1
    assert result["runs"][0]["comparison_id"] == str(comparison.pk)
    # One look before the wait, one when woken: no look per half second in between.
    assert looks == [0, 1]
    assert wakes == [True]


@pytest.mark.django_db(transaction=True)
def test_runs_queued_in_another_pool_do_not_wake_it(settings, org, other_org, counted_looks):
    settings.RUNNER_LEASE_WAIT_MAX_S = 2
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    pool_get_or_create(organization=other_org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    thread, result = wait_for_lease(runner, wait_s=2)
    until_first_look(looks)

    elsewhere = comparison_create(organization=other_org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(elsewhere.pk))
    thread.join(timeout=30)

    assert result["runs"] == []
    assert True not in wakes
    assert looks[0] == 0
    assert looks[-1] == 0


@pytest.mark.django_db(transaction=True)
def test_an_idle_wait_looks_again_only_at_the_recheck_interval(settings, org, monkeypatch):
    """Without notifications a wait still looks again every LEASE_RECHECK_S (work that needs no
    queued run: a released device): 2 s at a 0.5 s recheck is at most 5 looks, and with the
    default 5 s recheck 25 s of waiting are 6 looks where polling made 51."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 2
    monkeypatch.setattr(leasing, "LEASE_RECHECK_S", 0.5)
    looks = []
    real = leasing._lease_once  # noqa: SLF001
    monkeypatch.setattr(leasing, "_lease_once", lambda **kw: looks.append(1) or real(**kw))
    runner = host_runner(pool_get_or_create(organization=org, slug="local", name="Local"), "lab-1")
    assert leasing.lease_acquire(runner=runner, serials=["host-lab-1"], wait_s=2) == []
    assert 2 <= len(looks) <= 6
