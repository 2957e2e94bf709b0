"""Issuing one arm's concurrency group the way an app's HTTP stack does (issue: requests
concurrently, like NSURLSession or a browser).

HTTP/2, HTTP/3 and gRPC multiplex every request of the group on the arm's one connection
per origin (`fetch_concurrent`: all streams written at once; a gRPC call is a stream). HTTP/1.1 (h1, h1c) has one
request in flight per connection, so the group is spread over up to `max_parallel`
connections per origin, each taking the next waiting request when its previous one
completes — the browser's and URLSession's per-host connection limit. One thread per
connection: the probe's clients block on their socket, and the GIL is released while
they wait.

Samples come back in the group's order, each stamped with its own t0 (the moment it was
issued), its connection (`conn_id`) and `in_flight`: how many requests of the group were
in flight when it was issued, itself included."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from latencylab_tools.probe import ProbeRequest

MULTIPLEXED = ("h2", "h3", "grpc")
ONE_PER_CONNECTION = ("h1c", "h1")


def run_group(protocol: str, requests: list[tuple[str, ProbeRequest]], *, max_parallel: int,
              lane: Callable[[str, int], Any]) -> list[dict[str, Any]]:
    """requests: (origin, request) in plan order. lane(origin, i) is the session of the
    i-th connection to that origin (i = 0 is the arm's own; the caller keeps them for the
    block, so a warm policy reuses them as an app's pool does)."""
    if protocol not in MULTIPLEXED + ONE_PER_CONNECTION:
        raise ValueError(f"concurrent groups need h1c, h1, h2, h3 or grpc, not {protocol!r}")
    out: list[dict[str, Any] | None] = [None] * len(requests)
    by_origin: dict[str, list[int]] = {}
    for index, (origin, _) in enumerate(requests):
        by_origin.setdefault(origin, []).append(index)
    if protocol in MULTIPLEXED:
        workers = [threading.Thread(target=_multiplexed, args=(lane(origin, 0), indexes, requests, out))
                   for origin, indexes in by_origin.items()]
    else:
        state = _Pending([i for indexes in by_origin.values() for i in indexes])
        workers = [threading.Thread(target=_one_connection, args=(lane(origin, n), origin, requests, out, state))
                   for origin, indexes in by_origin.items() for n in range(min(max_parallel, len(indexes)))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    missing = [i for i, fields in enumerate(out) if fields is None]
    if missing:
        raise RuntimeError(f"concurrent group: no sample for requests {missing}")
    return [fields for fields in out if fields is not None]


def _multiplexed(session: Any, indexes: list[int], requests: list[tuple[str, ProbeRequest]],
                 out: list[dict[str, Any] | None]) -> None:
    for position, fields in enumerate(session.fetch_concurrent([requests[i][1] for i in indexes])):
        # All streams are written at once: the n-th one finds n−1 before it still in flight.
        fields["in_flight"] = position + 1
        out[indexes[position]] = fields


class _Pending:
    """The group's waiting requests (plan order) and how many are in flight."""

    def __init__(self, order: list[int]):
        self.order = order
        self.in_flight = 0
        self.lock = threading.Lock()

    def take(self, origin: str, requests: list[tuple[str, ProbeRequest]]) -> tuple[int, int] | None:
        with self.lock:
            for position, index in enumerate(self.order):
                if requests[index][0] == origin:
                    del self.order[position]
                    self.in_flight += 1
                    return index, self.in_flight
            return None

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1


def _one_connection(session: Any, origin: str, requests: list[tuple[str, ProbeRequest]],
                    out: list[dict[str, Any] | None], pending: _Pending) -> None:
    while (taken := pending.take(origin, requests)) is not None:
        index, in_flight = taken
        try:
            fields = session.fetch(requests[index][1])
        finally:
            pending.done()
        fields["in_flight"] = in_flight
        out[index] = fields
