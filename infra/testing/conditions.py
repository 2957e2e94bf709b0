"""Waiting for a condition that another process or thread brings about: the one poll loop the
backend, device-runner and infra test suites share (each has ../infra/testing on its path).

A test orders its steps by conditions (a port answering, a process gone, a file written), never
by how long something usually takes; `timeout_s` only ends a wait that would never end, so it is
generous and never what a test asserts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL_S = 0.05  # between two looks: short beside anything a test waits for


def poll_until(check: Callable[[], T], timeout_s: float, *, every_s: float = POLL_S) -> T | None:
    """The first truthy value `check()` returns, looked at every `every_s`; None if there is none
    within `timeout_s`. An exception `check` raises ends the wait (a server that exited, say)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(every_s)
