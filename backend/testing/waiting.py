"""Polling for what a worker or another process does in the background."""

from collections.abc import Callable

from conditions import poll_until


def wait_for(predicate: Callable[[], object], timeout_s: float = 30.0) -> bool:
    """True once `predicate()` is truthy, False if it is not within `timeout_s` (polled every 0.1 s)."""
    return bool(poll_until(predicate, timeout_s, every_s=0.1))
