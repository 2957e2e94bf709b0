"""Polling for what a worker or another process does in the background."""

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], object], timeout_s: float = 30.0) -> bool:
    """True once `predicate()` is truthy, False if it is not within `timeout_s` (polled every 0.1 s)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False
