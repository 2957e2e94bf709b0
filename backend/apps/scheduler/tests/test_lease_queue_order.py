"""A lease costs the same whatever the backlog: the runs carry their queue order (queue_order,
set by the database whenever a run is queued) and the pick of each device walks the partial
index of its platform's queue (run_queue_<platform>_idx) from the front instead of sorting the
pool's queue."""

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_create, comparison_extend_runs, comparison_plan
from apps.devices.models import Device, Runner
from apps.devices.services import runner_hello, runner_register
from apps.scheduler import leasing
from testing.factories import SPEC

DEVICES = 4


def runner_with_devices(pool: Any, name: str, count: int = DEVICES) -> tuple[Runner, list[str]]:
    runner, _ = runner_register(pool=pool, name=name)
    serials = [f"{name}-d{i}" for i in range(count)]
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": s, "platform": "host", "model": "test", "os_version": "1"} for s in serials])
    return runner, serials


def queue_backlog(org: Any, runs: int, comparisons: int = 10) -> None:
    """`runs` queued runs over `comparisons` comparisons (oldest first in the queue): the
    comparisons planned by the service, the rest of their slots bulk-created as further queued runs."""
    created = [comparison_create(organization=org, submitted_spec={**SPEC, "seed": n}) for n in range(comparisons)]
    for comparison in created:
        comparison_plan(comparison_id=str(comparison.id))
    template = created[0].runs.get()
    extra = runs - comparisons
    Run.objects.bulk_create([
        Run(comparison=created[n % comparisons], slot=1 + n // comparisons, pool_id=template.pool_id,
            platforms=template.platforms, network_profile=template.network_profile,
            network_profile_spec=template.network_profile_spec, blocks_total=template.blocks_total)
        for n in range(extra)])
    assert Run.objects.filter(status=Run.Status.QUEUED).count() == runs
    with connection.cursor() as cursor:
        # Fresh statistics, as autovacuum keeps them in production: without them the planner
        # guesses one row per comparison and any plan looks as cheap as another.
        cursor.execute("ANALYZE")


def lease_queries(runner: Runner, serials: list[str]) -> tuple[int, list[str]]:
    """The number of queries of one lease for the runner's devices (not counting the
    transaction's savepoints), and the picks' SQL."""
    with CaptureQueriesContext(connection) as captured:
        leased = leasing._lease_once(runner=runner, serials=serials)  # noqa: SLF001 — the unit measured
    assert len(leased) == len(serials)
    queries = [query["sql"] for query in captured.captured_queries
               if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    return len(queries), [sql for sql in queries if 'OF "comparisons_run" SKIP LOCKED' in sql]


@pytest.mark.django_db
def test_a_lease_makes_as_many_queries_with_500_queued_runs_as_with_10(org, pool):
    small_runner, small_serials = runner_with_devices(pool, "small")
    queue_backlog(org, 10)
    small, picks = lease_queries(small_runner, small_serials)
    assert len(picks) == DEVICES  # one pick per device

    Run.objects.all().delete()
    large_runner, large_serials = runner_with_devices(pool, "large")
    queue_backlog(org, 500)
    large, picks = lease_queries(large_runner, large_serials)
    assert len(picks) == DEVICES
    assert large == small == DEVICES + 8  # the bound _lease_once's docstring gives, no run passed over


def plan_nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(node for child in plan.get("Plans", []) for node in plan_nodes(child))]


@pytest.mark.django_db
def test_the_pick_walks_the_queue_order_index_and_sorts_nothing(org, pool):
    runner, serials = runner_with_devices(pool, "plan")
    queue_backlog(org, 2000, comparisons=40)
    device = Device.objects.get(serial=serials[0])
    with CaptureQueriesContext(connection) as captured:
        assert leasing._next_run_for(device, taken=[]) is not None  # noqa: SLF001 — the unit measured
    (pick,) = [query["sql"] for query in captured.captured_queries
                if 'OF "comparisons_run" SKIP LOCKED' in query["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {pick}")
        (plan,), = cursor.fetchone()
    nodes = plan_nodes(plan["Plan"])
    described = json.dumps(plan, indent=1)
    assert not [node for node in nodes if node["Node Type"] in ("Sort", "Incremental Sort")], described
    scans = [node for node in nodes if node.get("Relation Name") == "comparisons_run" and node.get("Alias") != "u0"]
    assert [(node["Node Type"], node.get("Index Name")) for node in scans] == [
        ("Index Scan", "run_queue_host_idx")], described


@pytest.mark.django_db
def test_queue_order_is_the_comparisons_whenever_a_run_is_queued(org, pool):
    """Planned, requeued after a failed attempt, extended by run-until-decided, and a model
    instance saved again before it was read back: each leaves the run in its comparison's place."""
    older, newer = (comparison_create(organization=org, submitted_spec={**SPEC, "seed": n}) for n in (1, 2))
    for comparison in (older, newer):
        comparison_plan(comparison_id=str(comparison.id))
    run = newer.runs.get()
    assert run.queue_order == newer.created_at

    # Leased, with a stale order (a leased run's is not read); requeued by a save(), as
    # _requeue_or_fail (a failed attempt, an expired lease) does.
    Run.objects.filter(pk=run.pk).update(queue_order=older.created_at - timedelta(days=1), status=Run.Status.LEASED)
    run.refresh_from_db()
    run.status = Run.Status.QUEUED
    run.save()
    run.refresh_from_db()
    assert run.queue_order == newer.created_at

    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    Comparison.objects.filter(pk=newer.pk).update(status=Comparison.Status.ANALYSING)
    assert comparison_extend_runs(comparison_id=str(newer.id), blocks_total=run.blocks_total + 2) == 1
    run.refresh_from_db()
    assert (run.status, run.queue_order) == (Run.Status.QUEUED, newer.created_at)

    created = Run.objects.create(comparison=older, slot=1, pool=pool, blocks_total=2, network_profile="none")
    assert created.queue_order is None  # set by the database, not read back
    created.save()  # an update that writes the empty value
    created.refresh_from_db()
    assert created.queue_order == older.created_at
    assert list(Run.objects.filter(status=Run.Status.QUEUED).order_by("queue_order", "slot")
                .values_list("comparison_id", "slot")) == [(older.pk, 0), (older.pk, 1), (newer.pk, 0)]
