"""Waiting runners are woken by PostgreSQL (LISTEN/NOTIFY on a trigger of the run table), heard
by one listener per process, not by a query every half second, and a waiting runner holds no
database connection: counted in looks for work (`_lease_once` calls), wakes and connections,
not in time. That a request was not woken is read once the listener has handled the
notification that must not wake it, while the request still waits; the wait is then ended by
its runner's own key, never left to run out (a deadline that ran out first on a loaded machine
would pass without testing anything)."""

import threading
import uuid

import pytest
from django.db import connection

from apps.comparisons.services import comparison_create, comparison_plan
from apps.core.admission import WorkSlots
from apps.devices.services import pool_get_or_create, runner_heartbeat, runner_hello, runner_register
from apps.scheduler import leasing, wakeups
from apps.scheduler.wakeups import runner_wakeup_key, wake_runner
from testing.factories import SPEC

# Bound on the waits for another thread to reach a state; never part of what is asserted.
PATIENCE_S = 30.0


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


def until(condition, what: str) -> None:
    """Until another thread made `condition()` true; fails naming `what` if it never does."""
    stop = threading.Event()
    for _ in range(int(PATIENCE_S / 0.01)):
        if condition():
            return
        stop.wait(0.01)
    raise AssertionError(f"never: {what}")


def handled_everything_sent_so_far(handled: list) -> None:
    """Until the listener has handled every notification committed before this call: they
    reach its one connection in commit order, so once it handled a marker sent now, it
    handled them all. The marker's key is nobody's: it wakes no one."""
    marker = f"marker:{uuid.uuid4()}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [wakeups.CHANNEL, marker])
    until(lambda: {marker} in handled, "the listener handled the marker")


def other_connections() -> int:
    """Sessions on the test database besides this test's own."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_a_waiting_runner_is_woken_by_a_queued_run_and_looks_twice(settings, org, counted_looks, slow_recheck):
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    thread, result = wait_for_lease(runner, wait_s=20)
    until(lambda: looks, "the lease looked for work")  # registered with the listener before that look

    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))  # commits queued runs: the trigger notifies
    thread.join(timeout=PATIENCE_S)

    assert not thread.is_alive()
    assert len(result["runs"]) == 1
    assert result["runs"][0]["comparison_id"] == str(comparison.pk)
    # One look before the wait, one when woken: no look per half second in between.
    assert looks == [0, 1]
    assert wakes == [True]


@pytest.mark.django_db(transaction=True)
def test_runs_queued_in_another_pool_do_not_wake_it(settings, org, other_org, counted_looks, listener_wakes,
                                                    slow_recheck):
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    other_pool = pool_get_or_create(organization=other_org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    woken, handled = listener_wakes
    thread, result = wait_for_lease(runner, wait_s=20)
    until(lambda: looks, "the lease looked for work")

    elsewhere = comparison_create(organization=other_org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(elsewhere.pk))
    until(lambda: {str(other_pool.pk)} in handled, "the listener heard the other pool's queued run")
    assert wakeups.listener.waiting_count() == 1  # heard while the runner waited
    assert woken == []  # and it woke no one

    wake_runner(runner.pk)  # ends the wait
    thread.join(timeout=PATIENCE_S)
    assert result["runs"] == []
    assert looks == [0]
    assert wakes == [True]
    assert woken == [runner_wakeup_key(runner.pk)]


@pytest.mark.django_db(transaction=True)
def test_waiting_runners_hold_no_database_connection(settings, org, counted_looks, slow_recheck):
    """Four runners wait on four threads: the database sees the listener's one connection, not
    four more. Queued work wakes each once, and each takes a connection again to lease."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runners = [host_runner(pool, f"lab-{n}") for n in range(4)]
    looks, wakes = counted_looks
    waiting = [wait_for_lease(runner, wait_s=20) for runner in runners]
    until(lambda: wakeups.listener.waiting_count() == 4 and len(looks) == 4, "four runners waiting")
    until(lambda: other_connections() == 1, "the waiting runners gave their connections back")
    assert wakeups.listener.backend_pid() is not None

    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "devices": {"count": 4}})
    comparison_plan(comparison_id=str(comparison.pk))
    for thread, _ in waiting:
        thread.join(timeout=PATIENCE_S)

    assert [len(result["runs"]) for _, result in waiting] == [1, 1, 1, 1]
    assert wakes == [True] * 4
    assert sorted(looks) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert wakeups.listener.waiting_count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_lost_listener_connection_wakes_the_waiters_and_listens_again(settings, org, counted_looks,
                                                                        slow_recheck):
    """A notification may be lost while the listener's connection is down: everyone waiting
    looks again, and the reconnected listener hears the next queued run."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    thread, result = wait_for_lease(runner, wait_s=20)
    until(lambda: looks, "the lease looked for work")
    connects = wakeups.listener.connects

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [wakeups.listener.backend_pid()])
    until(lambda: wakes and wakeups.listener.connects == connects + 1, "woken by the reconnect")
    until(lambda: len(looks) == 2, "the second look")
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))
    thread.join(timeout=PATIENCE_S)

    assert len(result["runs"]) == 1
    assert looks == [0, 0, 1]
    assert wakes == [True, True]


@pytest.mark.django_db(transaction=True)
def test_the_recheck_wakes_only_waiters_of_pools_with_queued_runs(settings, org, other_org, monkeypatch,
                                                                  counted_looks, listener_wakes):
    """Work can appear without a run being queued (a released device), so the listener asks
    every RECHECK_S which pools have queued runs, and wakes only their waiters: a runner of
    an empty pool is not woken however many rechecks pass."""
    monkeypatch.setattr(wakeups, "RECHECK_S", 0.05)
    wakeups.listener.stop()
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    busy_pool = pool_get_or_create(organization=other_org, slug="local", name="Local")
    # Queued runs that no waiting device can take: android runs, host devices.
    busy = comparison_create(organization=other_org, submitted_spec={
        **SPEC, "devices": {"platforms": ["android"]}})
    comparison_plan(comparison_id=str(busy.pk))
    looks, wakes = counted_looks
    woken, handled = listener_wakes
    busy_runner = host_runner(busy_pool, "busy")
    idle = host_runner(pool_get_or_create(organization=org, slug="local", name="Local"), "idle")
    recheck = {str(busy_pool.pk)}  # the pools a recheck finds with queued runs

    thread, result = wait_for_lease(idle, wait_s=20)
    until(lambda: looks and handled.count(recheck) >= 3, "three rechecks while the idle runner waits")
    assert woken == []
    wake_runner(idle.pk)
    thread.join(timeout=PATIENCE_S)
    assert (result["runs"], looks, wakes) == ([], [0], [True])

    looks.clear()
    wakes.clear()
    woken.clear()
    thread, result = wait_for_lease(busy_runner, wait_s=20)
    until(lambda: woken.count(str(busy_pool.pk)) >= 2, "the busy pool's runner woken by two rechecks")
    wake_runner(busy_runner.pk)
    thread.join(timeout=PATIENCE_S)
    assert result["runs"] == []
    # A look before the first wait and after each recheck's wake; none after its own key's.
    assert len(looks) == len(wakes)
    wakeups.listener.stop()


@pytest.mark.django_db(transaction=True)
def test_a_woken_herd_looks_a_few_at_a_time(settings, org, monkeypatch, counted_looks, slow_recheck):
    """Six runners woken by one queued backlog look for work at most RUNNER_WORK_SLOTS (here 2)
    at a time, so a farm's herd does not open a database connection each; all six get work."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    monkeypatch.setattr(leasing, "RUNNER_WORK", WorkSlots(2))
    looks, wakes = counted_looks
    looking, most = [0], [0]
    lock, queued = threading.Lock(), threading.Event()
    real = leasing._lease_once  # noqa: SLF001

    def look(**kwargs):
        with lock:
            looking[0] += 1
            most[0] = max(most[0], looking[0])
        if queued.is_set():
            # The looks after the wake stay open until all six runners are woken, each then
            # looking or queued for a look: the herd has piled up, however the threads were scheduled.
            until(lambda: len(wakes) == 6, "all six runners woken")
        try:
            return real(**kwargs)
        finally:
            with lock:
                looking[0] -= 1

    monkeypatch.setattr(leasing, "_lease_once", look)
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    waiting = [wait_for_lease(host_runner(pool, f"lab-{n}"), wait_s=20) for n in range(6)]
    until(lambda: wakeups.listener.waiting_count() == 6 and len(looks) == 6, "six runners looked and wait")

    queued.set()
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "devices": {"count": 6}})
    comparison_plan(comparison_id=str(comparison.pk))
    for thread, _ in waiting:
        thread.join(timeout=PATIENCE_S)

    assert [len(result["runs"]) for _, result in waiting] == [1] * 6
    assert most[0] == 2


@pytest.mark.django_db(transaction=True)
def test_a_lease_request_queued_behind_the_looks_gives_its_connection_back(settings, org, monkeypatch,
                                                                           slow_recheck):
    """The request's connection (its authentication used one) is given back while it queues
    for a look: a herd queued there holds no connections."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    slots = WorkSlots(1)
    monkeypatch.setattr(leasing, "RUNNER_WORK", slots)
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runners = [host_runner(pool, f"lab-{n}") for n in range(3)]
    wakeups.listener.ensure_running()
    queued = []

    def authenticated_lease(runner) -> None:
        try:
            with connection.cursor() as cursor:  # as authentication does, before the view
                cursor.execute("SELECT 1")
            queued.append(runner.name)
            leasing.lease_acquire(runner=runner, serials=[f"host-{runner.name}"], wait_s=0)
        finally:
            connection.close()

    taken = slots.held()
    taken.__enter__()  # every slot taken: the requests queue
    threads = [threading.Thread(target=authenticated_lease, args=(runner,)) for runner in runners]
    for thread in threads:
        thread.start()
    until(lambda: len(queued) == 3, "three requests authenticated")
    until(lambda: other_connections() == 1, "the queued requests gave their connections back")
    taken.__exit__(None, None, None)
    for thread in threads:
        thread.join(timeout=PATIENCE_S)
    assert not any(thread.is_alive() for thread in threads)


@pytest.mark.django_db(transaction=True)
def test_a_heartbeat_taking_the_runners_device_offline_answers_its_waiting_lease_at_once(settings, org, counted_looks,
                                                                                      listener_wakes, slow_recheck):
    """A stopping agent reports its free devices offline: its long-poll answers then, with no
    runs, rather than at the end of its wait; another runner of the pool sleeps on."""
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    stopping, staying = host_runner(pool, "lab-1"), host_runner(pool, "lab-2")
    looks, wakes = counted_looks
    woken, handled = listener_wakes
    thread, result = wait_for_lease(stopping, wait_s=20)
    other_thread, other_result = wait_for_lease(staying, wait_s=20)
    until(lambda: len(looks) == 2, "both runners looked for work")

    leasing.heartbeat_receive(runner=stopping, runs=[],
                              devices=[{"serial": "host-lab-1", "state": "offline", "reason": "runner stopping"}])
    thread.join(timeout=PATIENCE_S)
    assert not thread.is_alive()
    assert result["runs"] == []
    assert wakes == [True]  # woken, and answered without waiting out its 20 s
    stopping_key = runner_wakeup_key(stopping.pk)
    until(lambda: {stopping_key} in handled, "the listener handled the stopping runner's key")
    assert woken == [stopping_key]  # the other runner of the pool sleeps on
    assert looks == [0, 0]  # the woken one did not look again

    wake_runner(staying.pk)  # ends the other runner's wait
    other_thread.join(timeout=PATIENCE_S)
    assert other_result["runs"] == []
    assert wakes == [True, True]

    # Nothing is leased to the device it took offline.
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))
    assert leasing.lease_acquire(runner=stopping, serials=["host-lab-1"], wait_s=0) == []


@pytest.mark.django_db(transaction=True)
def test_a_heartbeat_that_takes_nothing_offline_wakes_no_one(settings, org, counted_looks, listener_wakes,
                                                             slow_recheck):
    settings.RUNNER_LEASE_WAIT_MAX_S = 20
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner = host_runner(pool, "lab-1")
    looks, wakes = counted_looks
    woken, handled = listener_wakes
    thread, result = wait_for_lease(runner, wait_s=20)
    until(lambda: looks, "the lease looked for work")

    leasing.heartbeat_receive(runner=runner, runs=[], devices=[{"serial": "host-lab-1", "state": "available"}])
    handled_everything_sent_so_far(handled)
    assert wakeups.listener.waiting_count() == 1  # while the runner waited
    assert woken == []

    wake_runner(runner.pk)  # ends the wait
    thread.join(timeout=PATIENCE_S)
    assert result["runs"] == []
    assert (looks, wakes) == ([0], [True])


@pytest.mark.django_db
def test_a_report_names_the_devices_it_took_offline(org):
    """Reported offline or no longer listed, and only a change: a device offline already is not named again."""
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner, _ = runner_register(pool=pool, name="lab")
    phones = [{"serial": s, "platform": "android", "model": "Pixel 8", "os_version": "15"} for s in "abcd"]
    runner_hello(runner=runner, info={"version": "test", "drivers": ["android"]}, devices=phones)
    leasing.heartbeat_receive(runner=runner, runs=[], devices=[
        {"serial": "a", "state": "available"}, {"serial": "b", "state": "available"},
        {"serial": "c", "state": "offline"}, {"serial": "d", "state": "available"}])

    went_offline: set[str] = set()
    runner_heartbeat(runner=runner, went_offline=went_offline, devices=[
        {"serial": "a", "state": "available"}, {"serial": "b", "state": "offline", "reason": "runner stopping"},
        {"serial": "c", "state": "offline"}])  # d no longer listed: disconnected

    assert went_offline == {"b", "d"}
