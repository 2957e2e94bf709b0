"""Waking runners that wait for work, without polling and without a database connection
each: one listener per process hears PostgreSQL and wakes the waiting lease requests.

A trigger on the run table (migration 0005_run_queued_notify) calls
`pg_notify('latencylab_runs_queued', <pool id>)` whenever a run becomes queued (planned,
requeued after a failure or an expired lease, extended by a sequential look) or comes back
to the queue (its organization reinstated), in the transaction that queues it, so the
notification is delivered only once the run is visible, and once per pool per transaction
however many runs it queued. A run queued while its organization is suspended is not in the
queue (migration 0009_run_queue_eligibility) and wakes nobody.

The listener is a thread with its own connection that LISTENs on that channel and sets
the event of every waiting request (`Wakeup`) of the notified pool. The same channel
carries `runner:<runner id>` (wake_runner), which wakes only that runner's requests: a
heartbeat took one of its devices offline (apps.scheduler.leasing). A waiting request
holds no database connection of its own; it takes one only to look for work. Work can
also appear without a run being queued (a device released from quarantine, a runner's
breaker reset), so every RECHECK_S the listener asks which pools have queued runs that
someone may take and wakes their waiters: one query per process, and none of the
waiters look while the queue is empty. When its connection is lost the listener wakes
everyone (it may have missed a notification), then keeps trying to reconnect, waking
everyone every RECHECK_S meanwhile (polling, as a fallback)."""

import logging
import os
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections

log = logging.getLogger(__name__)

CHANNEL = "latencylab_runs_queued"
RECHECK_S = 5.0
# How long a lease request waits for the listener's first LISTEN before it looks anyway.
_START_WAIT_S = 5.0
# Not the runs of a suspended organization (no queue_order, migration 0009_run_queue_eligibility):
# nobody may take them, and a pool that has only those wakes nobody.
_QUEUED_POOLS_SQL = ("SELECT DISTINCT pool_id::text FROM comparisons_run "
                     "WHERE status = 'queued' AND queue_order IS NOT NULL")


class Wakeup:
    """One waiting lease request: set when a run of one of its pools may be leasable, or its
    runner's key (runner_wakeup_key) was notified."""

    def __init__(self, pools: set[str]) -> None:
        self.pools = pools
        self.event = threading.Event()
        self._lock = threading.Lock()
        self._woken_for: set[str] = set()

    def wait(self, timeout: float) -> bool:
        """Until woken (True) or `timeout` seconds pass (False). Cleared on return, before the
        caller looks for work: a notification after this point wakes the next wait, and a
        run queued before it is visible to that look."""
        woken = self.event.wait(timeout)
        self.event.clear()
        return woken

    def wake(self, key: str | None) -> None:
        """Woken by a notification for `key` (None: by no notification in particular)."""
        if key is not None:
            with self._lock:
                self._woken_for.add(key)
        self.event.set()

    def woken_for(self, key: str) -> bool:
        """Whether a notification for `key` woke it since the last time this was asked."""
        with self._lock:
            found = key in self._woken_for
            self._woken_for.discard(key)
            return found


class RunsQueuedListener:
    """The process's listener thread and its waiting requests, by pool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, set[Wakeup]] = defaultdict(set)
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._started = threading.Event()
        self._stop = threading.Event()
        self._pg: psycopg.Connection[Any] | None = None
        self.connects = 0  # for tests and the benchmark: how often it (re)connected

    def ensure_running(self) -> None:
        """Start the thread in this process (a forked web worker starts its own) and wait, up
        to _START_WAIT_S, for its first LISTEN: a request registered after that misses no
        notification."""
        with self._lock:
            if self._pid != os.getpid():
                self._waiting.clear()  # a forked child inherits its parent's waiters, not their threads
            if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                self._pid = os.getpid()
                self._stop.clear()
                self._started.clear()
                self._thread = threading.Thread(target=self._run, name="runs-queued-listener", daemon=True)
                self._thread.start()
        self._started.wait(_START_WAIT_S)

    def stop(self) -> None:
        """Stop the thread and close its connection (tests, before the test database is dropped)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._poke()
            thread.join(timeout=RECHECK_S + 5)
        self._thread = None

    def backend_pid(self) -> int | None:
        """The PostgreSQL backend of the listener's connection (tests cut it)."""
        pg = self._pg
        return pg.info.backend_pid if pg is not None else None

    @staticmethod
    def _poke() -> None:
        """A notification nobody waits for, so that the listener sees it should stop now
        rather than at the end of its current wait."""
        try:
            with psycopg.Connection.connect(**connections[DEFAULT_DB_ALIAS].get_connection_params(),
                                            autocommit=True) as pg:
                pg.execute(f"NOTIFY {CHANNEL}, ''")
        except psycopg.Error:  # the database is gone: the listener stops at its next timeout
            log.debug("could not poke the listener", exc_info=True)

    @contextmanager
    def waiting(self, pools: set[str]) -> Iterator[Wakeup]:
        self.ensure_running()
        wakeup = Wakeup(pools)
        with self._lock:
            for pool in pools:
                self._waiting[pool].add(wakeup)
        try:
            yield wakeup
        finally:
            with self._lock:
                for pool in pools:
                    self._waiting[pool].discard(wakeup)
                    if not self._waiting[pool]:
                        del self._waiting[pool]

    def waiting_count(self) -> int:
        with self._lock:
            return len({w for ws in self._waiting.values() for w in ws})

    def _wake(self, pools: set[str] | None) -> None:
        """Wake the waiters of `pools` (pool ids or runner keys), or all of them (None)."""
        with self._lock:
            targets = [(w, key) for key, ws in self._waiting.items() if pools is None or key in pools for w in ws]
        for wakeup, key in targets:
            wakeup.wake(key if pools is not None else None)

    def _run(self) -> None:
        listened = False
        while not self._stop.is_set():
            try:
                pg = self._connect()
            except Exception:  # noqa: BLE001 — the database is unreachable: poll until it is back
                log.warning("runs-queued listener cannot connect; waiters look every %s s", RECHECK_S, exc_info=True)
                self._close()
                self._started.set()  # waiters must not hang on a database that is down
                self._wake(None)
                self._stop.wait(RECHECK_S)
                continue
            if listened:
                self._wake(None)  # a notification may have come while the connection was down
            listened = True
            self._started.set()
            try:
                self._listen(pg)
            except Exception:  # noqa: BLE001 — any failure of the connection: reconnect, never die
                if not self._stop.is_set():
                    log.warning("runs-queued listener lost its database connection; reconnecting", exc_info=True)
            self._close()

    def _connect(self) -> psycopg.Connection[Any]:
        # A connection of its own, straight from psycopg: never one of Django's per-thread
        # connections nor one of its pool's (either would be handed to a request still
        # LISTENing); autocommit, so LISTEN takes effect at once.
        params = connections[DEFAULT_DB_ALIAS].get_connection_params()
        self._pg = pg = psycopg.Connection.connect(**params, autocommit=True)
        pg.execute(f"LISTEN {CHANNEL}")
        self.connects += 1
        return pg

    def _listen(self, pg: psycopg.Connection[Any]) -> None:
        while not self._stop.is_set():
            # psycopg keeps notifications that arrive between two notifies() generators (while
            # the recheck query runs) and yields them first.
            for notify in pg.notifies(timeout=RECHECK_S):
                if self._stop.is_set():
                    return
                if notify.channel == CHANNEL and notify.payload:
                    self._wake({notify.payload})
            if self.waiting_count():
                self._wake({row[0] for row in pg.execute(_QUEUED_POOLS_SQL).fetchall()})

    def _close(self) -> None:
        if self._pg is not None:
            try:
                self._pg.close()
            except Exception:  # noqa: BLE001 — closing a broken connection may fail; it is gone either way
                log.debug("closing the listener's connection failed", exc_info=True)
            self._pg = None


listener = RunsQueuedListener()


def runner_wakeup_key(runner_id: object) -> str:
    """What a runner's waiting requests also wait on, beside their pool's id."""
    return f"runner:{runner_id}"


def wake_runner(runner_id: object) -> None:
    """Wake the runner's waiting lease requests in every process, once the caller's
    transaction commits (NOTIFY is transactional)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, runner_wakeup_key(runner_id)])


def runs_queued_in(pools: set[str]) -> AbstractContextManager[Wakeup]:
    """A Wakeup for runs queued in `pools` (ids as text; a runner_wakeup_key too), registered
    for the duration."""
    return listener.waiting(pools)
