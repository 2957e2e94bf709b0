"""How many requests of a kind a web process works on at once; the rest wait their turn here,
in memory, in about the order they came (threading.Semaphore wakes its waiters first come,
first served, but a request arriving as a slot frees may take it first), holding no database
connection.

A gthread worker has many threads (a farm's long-polls each hold one while they wait) but one
interpreter lock, and a pool of database connections smaller than its threads. When a farm's
agents, each with its own HTTP client, send their heartbeats, uploads and leases at once,
every thread would otherwise start its request: they take turns on the interpreter lock a few
milliseconds at a time and queue for the pool, and each request's few milliseconds of work
stretch over seconds (measured: a lease's median from 0.1 s to 1.4 s). Working on a few at a
time and queueing the rest keeps each request's time close to its work.

A request that waits for something else (a lease's long-poll) lends its slot back for the
wait (`lent`), so waiting runners never hold the process's capacity."""

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class WorkSlots:
    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"work slots: at least 1, not {size}")
        self.size = size
        self._free = threading.Semaphore(size)
        self._held = threading.local()

    def holding(self) -> bool:
        """Whether this thread holds a slot."""
        return bool(getattr(self._held, "slot", False))

    @contextmanager
    def held(self, *, before_waiting: Callable[[], None] | None = None) -> Iterator[None]:
        """Work inside a slot, waiting for one if all are taken (`before_waiting` first: give
        back what a queued request must not keep, its database connection). Re-entrant: a
        thread that already holds one keeps it."""
        if self.holding():
            yield
            return
        if not self._free.acquire(blocking=False):
            if before_waiting is not None:
                before_waiting()
            self._free.acquire()
        self._held.slot = True
        try:
            yield
        finally:
            self._held.slot = False
            self._free.release()

    @contextmanager
    def lent(self) -> Iterator[None]:
        """Give this thread's slot back while it waits, and take one again after (nothing to
        give when it holds none, as outside a request)."""
        if not self.holding():
            yield
            return
        self._held.slot = False
        self._free.release()
        try:
            yield
        finally:
            self._free.acquire()
            self._held.slot = True
