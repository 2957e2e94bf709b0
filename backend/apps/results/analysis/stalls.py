"""Payload-sweep stall detector: which size bands take longer than the network explains.

"Slower than 2 × RTT" flags every size on loopback (RTT 0.1 ms) and says nothing about a
Nagle / delayed-ACK stall. This detector compares each band's median with the time the
link explains and flags what is left over:

    expected = RTT × (handshake round trips, on a fresh connection, + 1 for the request)
             + transfer time of the response: size ÷ rate, plus a round trip per window
               while slow start grows the congestion window from ~10 MSS (a fresh connection,
               or a reused one whose window evidently restarts after idle)

and a band is a stall when

  - its median > expected × (1 + margin) + floor ("above_expected"), or
  - it is slower by a step (≥ ~30 ms) than a larger size of the same series
    ("slower_than_larger_size"): latency grows with size, so time that disappears at a
    larger size is not transfer time; it is the delayed-ACK signature (a plateau of
    ≈ 40 ms with Linux peers, 100–200 ms with Apple/Windows peers, absent at the
    neighbouring larger sizes).

The rate is what the sweep's largest response achieved (size ÷ (median − RTT)): the same
client, stack and path, during the run. The link's measured rate is the fallback when no
size can give one: it comes from a separate bulk transfer whose 1-s probe includes slow
start and read 20 % low on the 20 ms / 50 Mbit/s calibration link, which would hide a
real stall; and a phone's radio or CPU may be slower than the link, which would make
healthy large sizes look stalled.

Medians per band make a lone slow request harmless; a band with fewer than
``min_samples`` requests is not judged. Pure numpy, a loop over sizes, never samples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ABOVE_EXPECTED = "above_expected"
SLOWER_THAN_LARGER_SIZE = "slower_than_larger_size"
STALL_REASONS = (ABOVE_EXPECTED, SLOWER_THAN_LARGER_SIZE)

MSS_BYTES = 1448  # Ethernet MTU minus IP, TCP and timestamp option headers


@dataclass(frozen=True)
class StallRule:
    """Thresholds, calibrated on the reference target's Nagle trap at RTT ≈ 0, 20 and
    100 ms (device-runner/benchmarks/bench_nagle.py; docs/methodology.md)."""

    # Relative slack for what the model does not know (queueing, the exact window).
    margin: float = 0.10
    # Absolute slack: scheduler and client-stack time on loopback stays below it.
    floor_ms: float = 5.0
    # The smallest delayed-ACK step: Linux's minimum delayed-ACK timer is 40 ms.
    step_ms: float = 30.0
    # TCP + TLS 1.3 (QUIC needs one, TLS 1.2 three; the sample does not say which).
    handshake_rtts: int = 2
    initial_window_bytes: int = 10 * MSS_BYTES
    min_samples: int = 3


@dataclass(frozen=True)
class SeriesStalls:
    """Per size of one series (sorted by size): the model's time and the verdict."""

    expected_ms: np.ndarray
    stall: list[bool | None]
    reasons: list[list[str]]
    rate_kbit: float | None
    rate_source: str | None  # "link" or "sweep"
    slow_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def transfer_ms(size_bytes: float, rtt_ms: float, rate_kbit: float, window_bytes: float | None) -> float:
    """Time to deliver a response after its first byte left: size ÷ rate, plus one round
    trip per congestion window while the window (doubling each round, from
    ``window_bytes``; None = already open) is smaller than the path's bandwidth-delay
    product."""
    bytes_per_ms = rate_kbit / 8.0
    if window_bytes is None or rtt_ms <= 0:
        return size_bytes / bytes_per_ms
    elapsed, sent, window = 0.0, 0.0, float(window_bytes)
    while size_bytes - sent > window and window / bytes_per_ms < rtt_ms:
        sent += window
        elapsed += rtt_ms
        window *= 2
    return elapsed + (size_bytes - sent) / bytes_per_ms


def sweep_rate_kbit(sizes: np.ndarray, medians_ms: np.ndarray, rtt_ms: np.ndarray, usable: np.ndarray) -> float | None:
    """The rate the series itself shows, kbit/s: its largest response's size ÷ (median − RTT).
    The largest is where transfer time outweighs per-request costs; slower than the path
    at worst (slow start, load on the client), so it never makes a size look faster than
    it can be. The best throughput over all sizes would not do: on a CPU-bound path
    (loopback) a mid size can be quick by chance and make the largest look stalled."""
    spare = medians_ms - rtt_ms
    ok = np.flatnonzero(usable & (spare > 0) & (sizes > 0))
    if not len(ok):
        return None
    largest = ok[np.argmax(sizes[ok])]
    return float(sizes[largest] * 8.0 / spare[largest])


def series_stalls(
    sizes: np.ndarray,
    medians_ms: np.ndarray,
    counts: np.ndarray,
    fresh_share: np.ndarray,
    rtt_ms: np.ndarray,
    *,
    link_rate_kbit: float | None = None,
    rule: StallRule = StallRule(),
) -> SeriesStalls:
    """Judge one series (one profile × device × arm), its sizes ascending.

    ``fresh_share``: per size, the share of requests that opened their connection
    (``not conn_reused``); ``rtt_ms``: per size, the baseline RTT of its blocks (NaN
    where none was measured: such sizes are not judged).
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    medians_ms = np.asarray(medians_ms, dtype=np.float64)
    rtt_ms = np.asarray(rtt_ms, dtype=np.float64)
    usable = np.isfinite(rtt_ms) & np.isfinite(medians_ms) & (np.asarray(counts) >= rule.min_samples)
    rate, source = sweep_rate_kbit(sizes, medians_ms, rtt_ms, usable), "sweep"
    if rate is None and link_rate_kbit is not None and link_rate_kbit > 0:
        rate, source = float(link_rate_kbit), "link"
    n = len(sizes)
    if rate is None:
        return SeriesStalls(np.full(n, np.nan), [None] * n, [[] for _ in range(n)], None, None, np.zeros(n, bool))
    path_rate: float = rate

    def expected(fresh: bool, restarts: bool) -> np.ndarray:
        window = rule.initial_window_bytes if fresh or restarts else None
        handshake = rule.handshake_rtts if fresh else 0
        return np.array([r * (1 + handshake) + transfer_ms(s, r, path_rate, window) if np.isfinite(r) else np.nan
                         for s, r in zip(sizes, rtt_ms, strict=True)])

    # A reused connection keeps its window unless the kernel restarted slow start after
    # idle (Linux does after an RTO of idle, halving the window per RTO: how far it falls
    # depends on the window before, which no sample records). The series tells: its
    # window restarts if the restarting model is the closer one for most of its sizes.
    # A stall moves a minority of sizes, not the median distance.
    warm, restarting = expected(False, False), expected(False, True)
    reused_sizes = usable & (fresh_share < 0.5)
    restarts = bool(reused_sizes.any() and np.median(np.abs(medians_ms - restarting)[reused_sizes])
                    < np.median(np.abs(medians_ms - warm)[reused_sizes]))
    reused = restarting if restarts else warm
    fresh = expected(True, True)
    # The band's median is over its requests: the model's median too (a two-valued mix).
    expected_ms = np.where(fresh_share > 0.5, fresh, np.where(fresh_share < 0.5, reused, (fresh + reused) / 2))
    slow_start = (fresh_share >= 0.5) | restarts

    # Each size against the fastest larger size of the series (inf for the largest).
    later = np.where(usable, medians_ms, np.inf)
    fastest_larger = np.append(np.minimum.accumulate(later[::-1])[::-1][1:], np.inf)
    stall: list[bool | None] = []
    reasons: list[list[str]] = []
    for i in range(n):
        if not usable[i]:
            stall.append(None)
            reasons.append([])
            continue
        why = []
        if medians_ms[i] > _threshold(expected_ms[i], rule):
            why.append(ABOVE_EXPECTED)
        if medians_ms[i] >= fastest_larger[i] * (1 + rule.margin) + rule.step_ms:
            why.append(SLOWER_THAN_LARGER_SIZE)
        stall.append(bool(why))
        reasons.append(why)
    return SeriesStalls(expected_ms, stall, reasons, rate, source, slow_start)


def _threshold(expected_ms: np.ndarray | float, rule: StallRule) -> np.ndarray | float:
    return expected_ms * (1 + rule.margin) + rule.floor_ms
