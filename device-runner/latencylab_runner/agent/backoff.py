"""When the runner calls the backend again after a connection error or a 5xx: exponential
backoff with jitter, within a time budget.

The budget outlasts what an operator does to the backend on purpose — a web process
restarted, PostgreSQL restarted, Redis restarted: about a minute — so a block's upload
rides through it and is retried with the same batch_seq (the backend stores a block once).
Jitter keeps a farm of runners that lost the backend together from calling back in step
when it returns ("equal jitter": each wait is between half and all of its exponential step,
so it never collapses to zero)."""

from __future__ import annotations

import random
from collections.abc import Iterator

BASE_S = 0.5
CAP_S = 10.0
BUDGET_S = 75.0


def backoff_delays(*, rng: random.Random, base_s: float = BASE_S, cap_s: float = CAP_S,
                   budget_s: float = BUDGET_S) -> Iterator[float]:
    """The waits before each retry, in seconds; it ends when the next wait would take the
    waiting past `budget_s`. Step k is min(cap, base · 2^k); its wait is drawn from
    [step / 2, step]."""
    waited = 0.0
    step = base_s
    while True:
        delay = rng.uniform(step / 2, step)
        if waited + delay > budget_s:
            return
        waited += delay
        yield delay
        step = min(step * 2, cap_s)
