"""What a device may never take is not in the queue it walks: the runs of a suspended
organization leave the lease queue (queue_order is empty while it is suspended) and each
platform has its own partial index of the queue, so a device's pick reads the runs ahead that
it might take, not the backlog of another platform or of a suspended organization."""

import json
import threading
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from apps.accounts.suspension import organization_reinstate, organization_suspend
from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.models import Device
from apps.devices.services import pool_get_or_create, runner_hello, runner_register
from apps.scheduler import leasing, wakeups
from testing.factories import SPEC
from testing.waiting import wait_for

from .test_lease_queue_order import plan_nodes

BACKLOG = 500
# Rows of the run table a pick may read whatever the backlog ahead: the one it takes, and
# a few more for the plan's own bookkeeping.
ROWS_READ_MAX = 3


def device_of(pool: Any, platform: str) -> Device:
    runner, _ = runner_register(pool=pool, name=f"lab-{platform}")
    (device,) = runner_hello(runner=runner, info={"version": "test", "drivers": [platform]},
                             devices=[{"serial": f"{platform}-1", "platform": platform, "model": "test",
                                       "os_version": "1"}])
    return device


def planned(org: Any, seed: int, pool: Any = None) -> Comparison:
    """A planned comparison of `org` (SPEC: host devices, one run) in its pool `local`, its runs moved to `pool`."""
    pool_get_or_create(organization=org, slug="local", name="Local")
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "seed": seed})
    comparison_plan(comparison_id=str(comparison.id))
    if pool is not None:
        Run.objects.filter(comparison=comparison).update(pool=pool)
    return comparison


def queue_runs(comparison: Comparison, count: int, platforms: list[str]) -> None:
    """`count` more queued runs of the comparison (its further slots) for `platforms`."""
    template = comparison.runs.order_by("slot").first()
    assert template is not None
    Run.objects.bulk_create([
        Run(comparison=comparison, slot=template.slot + 1 + n, pool_id=template.pool_id, platforms=platforms,
            network_profile=template.network_profile, network_profile_spec=template.network_profile_spec,
            blocks_total=template.blocks_total)
        for n in range(count)])


def analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # fresh statistics, as autovacuum keeps them in production


def pick_plan(device: Device) -> tuple[uuid.UUID | None, dict[str, Any]]:
    """The device's pick, and the plan of its query as PostgreSQL ran it (EXPLAIN ANALYZE)."""
    with CaptureQueriesContext(connection) as captured:
        picked = leasing._next_run_for(device, taken=[])  # noqa: SLF001 — the unit measured
    (pick,) = [query["sql"] for query in captured.captured_queries
               if 'OF "comparisons_run" SKIP LOCKED' in query["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {pick}")
        (plan,), = cursor.fetchone()
    return picked, plan


def run_scans(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's scans of the queue (not the subquery's lookups of the device's own runs, alias u0)."""
    return [node for node in plan_nodes(plan["Plan"])
            if node.get("Relation Name") == "comparisons_run" and node.get("Alias") != "u0"]


def rows_read(plan: dict[str, Any]) -> int:
    """Rows of the queue the pick read: those its scans returned and those their filters removed."""
    return sum((node["Actual Rows"] + node.get("Rows Removed by Filter", 0)) * node["Actual Loops"]
               for node in run_scans(plan))


@pytest.mark.django_db
def test_an_android_pick_reads_no_ios_run_of_the_backlog_ahead(org, pool):
    ios = planned(org, 1)
    Run.objects.filter(comparison=ios).update(platforms=["ios"])
    queue_runs(ios, BACKLOG - 1, ["ios"])
    android = planned(org, 2)
    Run.objects.filter(comparison=android).update(platforms=["android"])
    device = device_of(pool, "android")  # after planning: SPEC asks for a host device, which a pool must have
    analyze()

    picked, plan = pick_plan(device)

    described = json.dumps(plan, indent=1)
    assert picked == android.runs.get().pk
    assert [node.get("Index Name") for node in run_scans(plan)] == ["run_queue_android_idx"], described
    assert rows_read(plan) <= ROWS_READ_MAX, described


@pytest.mark.django_db
def test_a_pick_reads_no_run_of_a_suspended_organization_ahead(org, other_org, pool):
    device = device_of(pool, "host")
    suspended = planned(other_org, 1, pool=pool)  # the other organization's runs in this pool (a hosted pool's case)
    queue_runs(suspended, BACKLOG - 1, ["host"])
    organization_suspend(organization=other_org, reason="abuse report", suspended_by=User.objects.create(username="op"))
    active = planned(org, 2)
    analyze()

    picked, plan = pick_plan(device)

    described = json.dumps(plan, indent=1)
    assert picked == active.runs.get().pk
    assert rows_read(plan) <= ROWS_READ_MAX, described


@pytest.mark.django_db
@pytest.mark.parametrize("platform", Device.Platform.values)
def test_each_platforms_pick_walks_its_own_index(org, pool, platform):
    """The pick's literal platform (bound on the client) lets the planner prove its platform's
    partial index: a queue of every platform, and the pick walks its own platform's."""
    # Server-side binding would hide the platform from the planner's generic plans.
    assert not connection.settings_dict["OPTIONS"].get("server_side_binding")
    for seed, each in enumerate(Device.Platform.values):
        comparison = planned(org, seed)
        Run.objects.filter(comparison=comparison).update(platforms=[each])
        queue_runs(comparison, 300, [each])
    device = device_of(pool, platform)
    analyze()

    picked, plan = pick_plan(device)

    assert picked is not None
    assert [node.get("Index Name") for node in run_scans(plan)] == [f"run_queue_{platform}_idx"], json.dumps(plan)


def queue_orders(*comparisons: Comparison) -> list[Any]:
    return list(Run.objects.filter(comparison__in=comparisons).order_by("comparison__created_at", "slot")
                .values_list("queue_order", flat=True))


@pytest.mark.django_db
def test_a_suspended_organizations_runs_leave_the_queue_and_come_back_in_their_place(org, other_org, pool):
    operator = User.objects.create(username="op")
    device = device_of(pool, "host")
    first = planned(org, 1)
    queue_runs(first, 2, ["host"])
    organization_suspend(organization=org, reason="abuse report", suspended_by=operator)
    assert queue_orders(first) == [None, None, None]
    # Planned while suspended: queued, out of the queue.
    second = planned(org, 2)
    assert queue_orders(second) == [None]
    # Another organization's run in the same pool is leased meanwhile.
    elsewhere = planned(other_org, 3, pool=pool)
    assert leasing._next_run_for(device, taken=[]) == elsewhere.runs.get().pk  # noqa: SLF001
    Run.objects.filter(comparison=elsewhere).update(status=Run.Status.DONE)
    assert leasing._next_run_for(device, taken=[]) is None  # noqa: SLF001

    organization_reinstate(organization=org)

    assert queue_orders(first, second) == [first.created_at] * 3 + [second.created_at]
    order = list(Run.objects.filter(comparison__in=[first, second]).order_by("queue_order", "slot")
                 .values_list("pk", flat=True))
    taken: list[uuid.UUID] = []
    for _ in order:
        run_id = leasing._next_run_for(device, taken=taken)  # noqa: SLF001
        assert run_id is not None
        taken.append(run_id)
    assert taken == order


@pytest.mark.django_db
def test_a_run_requeued_while_its_organization_is_suspended_stays_out_of_the_queue(org, pool):
    run = planned(org, 1).runs.get()
    Run.objects.filter(pk=run.pk).update(status=Run.Status.LEASED)
    organization_suspend(organization=org, reason="abuse report", suspended_by=User.objects.create(username="op"))
    run.refresh_from_db()
    assert run.queue_order is not None  # a leased run keeps its place: it is not queued

    run.status = Run.Status.QUEUED  # requeued after a failed attempt or an expired lease, as _requeue_or_fail does
    run.save()
    run.refresh_from_db()
    assert run.queue_order is None

    organization_reinstate(organization=org)
    run.refresh_from_db()
    assert run.queue_order == run.comparison.created_at


def notifications_until_marker(pg: psycopg.Connection[Any]) -> list[str]:
    """The payloads of the run-queued channel heard before a marker sent now (notifications
    reach a listener in commit order, so the marker comes after every earlier one)."""
    marker = f"marker:{uuid.uuid4()}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [wakeups.CHANNEL, marker])
    heard = []
    for notify in pg.notifies():
        if notify.payload == marker:
            return heard
        heard.append(notify.payload)
    raise AssertionError("the notification stream ended")


@pytest.mark.django_db(transaction=True)
def test_runs_nobody_may_take_wake_no_runner_and_a_reinstatement_does(org, pool):
    operator = User.objects.create(username="op")
    with psycopg.Connection.connect(**connections["default"].get_connection_params(), autocommit=True) as pg:
        pg.execute(f"LISTEN {wakeups.CHANNEL}")
        organization_suspend(organization=org, reason="abuse report", suspended_by=operator)
        run = planned(org, 1).runs.get()  # planned while suspended
        Run.objects.filter(pk=run.pk).update(status=Run.Status.LEASED)
        run.refresh_from_db()
        run.status = Run.Status.QUEUED  # requeued while suspended
        run.save()
        assert notifications_until_marker(pg) == []
        with connection.cursor() as cursor:
            cursor.execute(wakeups._QUEUED_POOLS_SQL)  # noqa: SLF001 — the listener's recheck
            assert cursor.fetchall() == []

        organization_reinstate(organization=org)

        assert notifications_until_marker(pg) == [str(pool.pk)]
        with connection.cursor() as cursor:
            cursor.execute(wakeups._QUEUED_POOLS_SQL)  # noqa: SLF001
            assert cursor.fetchall() == [(str(pool.pk),)]


def in_thread(work: Callable[[], object]) -> tuple[threading.Thread, dict[str, Any]]:
    """`work` on a thread of its own (its own database connection); `state["pid"]` its backend."""
    state: dict[str, Any] = {}

    def run() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                state["pid"] = cursor.fetchone()[0]
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, state


def waits_for_a_lock(state: dict[str, Any]) -> bool:
    if "pid" not in state:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT cardinality(pg_blocking_pids(%s)) > 0", [state["pid"]])
        return bool(cursor.fetchone()[0])


def leased_run(org: Any) -> Run:
    run = planned(org, 1).runs.get()
    Run.objects.filter(pk=run.pk).update(status=Run.Status.LEASED)
    run.refresh_from_db()
    return run


@pytest.mark.django_db(transaction=True)
def test_a_suspension_waits_for_a_run_being_queued_then_takes_it_out_of_the_queue(org, pool):
    run = leased_run(org)
    operator = User.objects.create(username="op")
    with psycopg.Connection.connect(**connections["default"].get_connection_params()) as requeue:
        requeue.execute("UPDATE comparisons_run SET status = 'queued' WHERE id = %s", [run.pk])  # not committed
        thread, state = in_thread(lambda: organization_suspend(organization=org, reason="abuse report",
                                                               suspended_by=operator))
        # Without the run's lock on its organization the suspension would end here, not see the
        # run (not queued yet for it), and leave it in the queue.
        assert wait_for(lambda: waits_for_a_lock(state) or not thread.is_alive())
        requeue.commit()
    thread.join(timeout=30)
    assert not thread.is_alive()
    run.refresh_from_db()
    assert (run.status, run.queue_order) == (Run.Status.QUEUED, None)


@pytest.mark.django_db(transaction=True)
def test_a_run_being_queued_waits_for_a_suspension_then_stays_out_of_the_queue(org, pool):
    run = leased_run(org)
    with psycopg.Connection.connect(**connections["default"].get_connection_params()) as suspension:
        suspension.execute("UPDATE accounts_organization SET suspended_at = now() WHERE id = %s", [org.pk])

        def requeue() -> None:
            run.status = Run.Status.QUEUED
            run.save()

        thread, state = in_thread(requeue)
        # Without the lock the run would read the organization as it was, not suspended.
        assert wait_for(lambda: waits_for_a_lock(state) or not thread.is_alive())
        suspension.commit()
    thread.join(timeout=30)
    assert not thread.is_alive()
    run.refresh_from_db()
    assert (run.status, run.queue_order) == (Run.Status.QUEUED, None)
