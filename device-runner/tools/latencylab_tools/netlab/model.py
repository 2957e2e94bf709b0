"""The per-direction link model, free of I/O so it can be unit-tested with a
synthetic clock.

Order of operations for one packet, mirroring a real bottleneck link:
blackout -> loss -> drop-tail queue -> serialization at `rate_kbit` ->
propagation delay (+ jitter) -> delivery.  Loss is applied on entry (as netem
does) so lost packets do not occupy the queue.
"""
from __future__ import annotations

import collections
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from .profile import Blackout, DirectionProfile


@dataclass
class LinkCounters:
    received: int = 0
    delivered: int = 0
    dropped_loss: int = 0
    dropped_queue: int = 0
    dropped_blackout: int = 0
    bytes_delivered: int = 0
    # Release timing error of the emulator loop (filled in by emulator.pump).
    late_max_s: float = 0.0
    late_over_1ms: int = 0


class DirectionModel:
    def __init__(self, prof: DirectionProfile, blackouts: Sequence[Blackout] = (), *,
                 start: float = 0.0, seed: int | None = None) -> None:
        self.prof = prof
        self.blackouts = tuple(blackouts)
        self.start = start
        self.rng = random.Random(seed)
        self.counters = LinkCounters()
        self._delay_s = prof.delay_ms / 1000.0
        self._jitter_s = prof.jitter_ms / 1000.0
        rho = prof.jitter_correlation_pct / 100.0
        # AR(1) with unit stationary variance: z' = rho*z + sqrt(1-rho^2)*e.
        # (netem's "(1-rho)*new + rho*last" shrinks the variance as rho grows;
        # this keeps the configured standard deviation at any correlation.)
        self._rho = rho
        self._innov = math.sqrt(max(0.0, 1.0 - rho * rho))
        self._z = self.rng.gauss(0.0, 1.0)
        self._sec_per_byte = 8.0 / (prof.rate_kbit * 1000.0) if prof.rate_kbit else 0.0
        self._queue_limit = prof.queue_packets
        # Serialization-finish times of packets still in the bottleneck queue.
        self._in_queue: collections.deque[float] = collections.deque()
        self._link_free_at = 0.0
        self._last_departure = 0.0
        self._loss = prof.loss_pct / 100.0
        self._ge = prof.gilbert if prof.loss_model == "gilbert_elliott" else None
        self._ge_bad = False

    # -- loss -----------------------------------------------------------
    def _lost(self) -> bool:
        ge = self._ge
        if ge is None:
            return self._loss > 0 and self.rng.random() < self._loss
        # Transition first, then decide delivery from the new state (netem order).
        u = self.rng.random() * 100.0
        if self._ge_bad:
            if u < ge.r:
                self._ge_bad = False
        elif u < ge.p:
            self._ge_bad = True
        deliver_pct = ge.h if self._ge_bad else ge.k
        return self.rng.random() * 100.0 >= deliver_pct

    def _blacked_out(self, now: float) -> bool:
        t = now - self.start
        return any(b.active(t) for b in self.blackouts)

    def _delay(self) -> float:
        if self._jitter_s == 0.0:
            return self._delay_s
        self._z = self._rho * self._z + self._innov * self.rng.gauss(0.0, 1.0)
        return max(0.0, self._delay_s + self._jitter_s * self._z)

    # -- the one entry point --------------------------------------------
    def admit(self, now: float, size: int) -> float | None:
        """Return the departure time for a packet of `size` bytes arriving at
        `now`, or None if the link drops it."""
        c = self.counters
        c.received += 1
        if self.blackouts and self._blacked_out(now):
            c.dropped_blackout += 1
            return None
        if self._lost():
            c.dropped_loss += 1
            return None
        t = now
        if self._sec_per_byte:
            q = self._in_queue
            while q and q[0] <= now:
                q.popleft()
            if len(q) >= self._queue_limit:
                c.dropped_queue += 1
                return None
            start = self._link_free_at if self._link_free_at > now else now
            t = start + size * self._sec_per_byte
            self._link_free_at = t
            q.append(t)
        t += self._delay()
        if not self.prof.reorder and t < self._last_departure:
            t = self._last_departure  # FIFO: jitter may delay but never reorder
        self._last_departure = t
        c.delivered += 1
        c.bytes_delivered += size
        return t
