"""A lease request that arrives while its runner's heartbeat is being written gets its devices'
runs when that heartbeat commits — it does not come away empty and wait for the next recheck
of the queue (up to RECHECK_S, 5 s), which is what a farm's lease latency showed: the heartbeat
locks the runner's devices and its runner row, and the lease skipped every locked row."""

import threading
from typing import Any

import pytest
from django.db import connection, transaction

from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import pool_get_or_create
from apps.scheduler import leasing
from testing.factories import SPEC
from testing.waiting import wait_for

from .test_lease_queue_order import runner_with_devices

PATIENCE_S = 30.0


def waiting_on_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


@pytest.mark.django_db(transaction=True)
def test_a_lease_during_its_runners_heartbeat_waits_for_it_and_gets_every_free_device(org):
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner, serials = runner_with_devices(pool, "lab-1", count=2)
    for n in range(2):
        comparison_plan(comparison_id=str(comparison_create(organization=org, submitted_spec={**SPEC, "seed": n}).pk))
    devices = [{"serial": s, "platform": "host", "model": "test", "os_version": "1", "state": "available"}
               for s in serials]
    heartbeat_open, heartbeat_may_commit = threading.Event(), threading.Event()
    lease: dict[str, Any] = {}

    def heartbeat() -> None:
        try:
            with transaction.atomic():
                leasing.heartbeat_receive(runner=runner, devices=devices, runs=[])
                heartbeat_open.set()
                assert heartbeat_may_commit.wait(PATIENCE_S)
        finally:
            connection.close()

    def look() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                lease["pid"] = cursor.fetchone()[0]
            lease["runs"] = leasing._lease_once(runner=runner, serials=serials)  # noqa: SLF001 — the unit under test
        finally:
            connection.close()

    writing = threading.Thread(target=heartbeat)
    writing.start()
    assert heartbeat_open.wait(PATIENCE_S)
    looking = threading.Thread(target=look)
    looking.start()
    # The look either came back (it did not wait for the heartbeat) or waits on its locks.
    assert wait_for(lambda: not looking.is_alive() or ("pid" in lease and waiting_on_a_lock(lease["pid"])),
                    PATIENCE_S)
    heartbeat_may_commit.set()
    writing.join(PATIENCE_S)
    looking.join(PATIENCE_S)
    assert not looking.is_alive()
    assert sorted(run.device.serial for run in lease["runs"]) == sorted(serials)
