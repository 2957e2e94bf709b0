"""Waking runners that wait for work, without polling: PostgreSQL tells them.

A trigger on the run table (migration 0005_run_queued_notify) calls
`pg_notify('latencylab_runs_queued', <pool id>)` whenever a run becomes queued (planned,
requeued after a failure or an expired lease, extended by a sequential look), in the
transaction that queues it, so the notification is delivered only once the run is visible,
and once per pool per transaction however many runs it queued. A waiting lease long-poll
LISTENs on its own database connection before it looks for work, so a run queued between
its look and its wait is not missed (psycopg keeps notifications that arrive meanwhile).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

CHANNEL = "latencylab_runs_queued"


class RunsQueued:
    """Notifications about runs queued in `pools` (ids as text), on one connection."""

    def __init__(self, pools: set[str]) -> None:
        self.pools = pools
        self.pg = connection.connection  # psycopg's connection under Django's

    def wait(self, timeout: float) -> bool:
        """Until a run of one of the pools is queued (True) or `timeout` seconds pass (False).
        psycopg keeps what arrived while the lease queries ran and yields it first."""
        for notify in self.pg.notifies(timeout=timeout):
            if notify.channel == CHANNEL and notify.payload in self.pools:
                return True
        return False


@contextmanager
def runs_queued_in(pools: set[str]) -> Iterator[RunsQueued]:
    """LISTEN for the duration (autocommit: it takes effect at once); UNLISTEN after, as the
    connection goes back to serve other requests."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute(f"LISTEN {CHANNEL}")
    listener = RunsQueued(pools)
    try:
        yield listener
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"UNLISTEN {CHANNEL}")
        for _ in listener.pg.notifies(timeout=0):
            pass  # what arrived meanwhile must not wake the connection's next long-poll
