"""The runner's one retry policy: which answers of the backend are worth asking again, and
how long to wait before each new try. Every call the agent makes goes through it
(client.py); tests/test_retry_policy.py holds the cases as one table of vectors.

- 1xx-3xx: done.
- 429 (the backend's per-runner rate limit, apps/core/throttling.py): asked again after
  what its `Retry-After` says, delta-seconds or an HTTP-date, at most RETRY_AFTER_CAP_S
  and at least MIN_WAIT_S; without a usable `Retry-After`, backed off like a 5xx.
- 408, 5xx, no answer at all (refused, reset, timed out): asked again after exponential
  backoff with jitter (a `Retry-After` on them is honoured as on a 429).
- 409: final. In the runner protocol every 409 says the lease is gone or the request can
  never succeed (contract/README.md's table): asking again gets the same answer, and the
  driver must stop working on that run at once (client.LeaseLost).
- Any other 4xx: final; the same request would be refused again.

Every wait of one call counts against one budget: when the next wait would take the
waiting past `budget_s`, the call gives up. The budget outlasts what an operator does to the
backend on purpose — a web process restarted, PostgreSQL restarted, Redis restarted: about
a minute — so a block's upload rides through it and is sent again unchanged, with its
batch_seq (the backend stores a block once and acknowledges a repeat).

The backoff's jitter keeps a farm of runners that lost the backend together from calling
back in step when it returns ("equal jitter": each wait is between half and all of its
exponential step, so it never collapses to zero). A `Retry-After` is taken as said: the
rate limit counts each runner on its own, so runners do not come back in step from it."""

from __future__ import annotations

import enum
import random
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

BASE_S = 0.5
CAP_S = 10.0
BUDGET_S = 75.0
# A Retry-After longer than this is waited only this long before asking again: a proxy's
# "come back in an hour" must not park a run's upload past its lease (60 s, extended only
# by uploads and heartbeats, which the same rate limit counts). The backend's own limit is
# per minute, so its Retry-After is at most 60 s and a second try after 30 s is cheap.
RETRY_AFTER_CAP_S = 30.0
# "Retry-After: 0" or a date already past must not make a tight loop that never spends the
# budget: every wait is at least this long.
MIN_WAIT_S = BASE_S

RETRIED_STATUSES = frozenset({408, 429})
DELTA_SECONDS = re.compile(r"^\s*(\d+)\s*$")


class Outcome(enum.Enum):
    DONE = "done"
    RETRY = "retry"
    LEASE_LOST = "lease_lost"
    REFUSED = "refused"


def outcome_of(status: int | None) -> Outcome:
    """What an answer means for the call; `None` is no answer at all (a connection refused or
    reset, a timeout)."""
    if status is None or status >= 500 or status in RETRIED_STATUSES:
        return Outcome.RETRY
    if status == 409:
        return Outcome.LEASE_LOST
    if status >= 400:
        return Outcome.REFUSED
    return Outcome.DONE


def retry_after_s(value: str | None, *, date: str | None = None, now: datetime | None = None) -> float | None:
    """The seconds a `Retry-After` header asks for (RFC 9110 §10.2.3), or None when there is
    none or it is neither form. An HTTP-date is measured from the answer's own `Date` header
    when it has one — both are the backend's clock, so a runner whose clock is off still waits
    what was meant — else from `now` (this host's clock); a date already past is 0."""
    if value is None:
        return None
    if match := DELTA_SECONDS.match(value):
        return float(match.group(1))
    when = _http_date(value)
    if when is None:
        return None
    reference = _http_date(date) if date is not None else None
    if reference is None:
        reference = now or datetime.now(UTC)
    return max(0.0, (when - reference).total_seconds())


def _http_date(value: str) -> datetime | None:
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    # HTTP-dates are GMT; a date without a zone is taken as such rather than as local time.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


class RetrySchedule:
    """One call's waits: the exponential step so far and the time already waited."""

    def __init__(self, *, rng: random.Random, budget_s: float = BUDGET_S, base_s: float = BASE_S,
                 cap_s: float = CAP_S, retry_after_cap_s: float = RETRY_AFTER_CAP_S):
        self._rng = rng
        self.budget_s = budget_s
        self._step = base_s
        self._cap_s = cap_s
        self._retry_after_cap_s = retry_after_cap_s
        self.waited_s = 0.0

    def next_wait(self, retry_after: float | None = None) -> float | None:
        """The wait before the next try after a retried answer (with the seconds its
        `Retry-After` asked for, if any), or None when that wait would spend more than the
        budget: give up."""
        if retry_after is not None:
            wait = max(MIN_WAIT_S, min(retry_after, self._retry_after_cap_s))
        else:
            # Step k is min(cap, base · 2^k); its wait is drawn from [step / 2, step].
            wait = self._rng.uniform(self._step / 2, self._step)
            self._step = min(self._step * 2, self._cap_s)
        if self.waited_s + wait > self.budget_s:
            return None
        self.waited_s += wait
        return wait
