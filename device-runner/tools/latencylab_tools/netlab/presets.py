"""The preset table of docs/network-conditions.md, "Presets".

RTT is split half per direction; loss applies to each direction; rates are kbit/s (down,
up).  Queue sizes follow the usual netem advice (at least 2 x BDP in packets), with a floor
of 25 packets (quic-interop-runner's bottleneck queue), so slow presets get a realistic but
bounded buffer instead of netem's 1000-packet one, which at 20 kbit/s would hold ten minutes
of traffic.
"""
from __future__ import annotations

import math

from .profile import Blackout, DirectionProfile, GilbertElliott, LinkProfile

MTU = 1500
_MIN_QUEUE = 25


def _queue(rate_kbit: float | None, rtt_ms: float) -> int:
    if rate_kbit is None:
        return 1000
    bdp_bytes = rate_kbit * 1000 / 8 * rtt_ms / 1000
    return max(_MIN_QUEUE, math.ceil(2 * bdp_bytes / MTU))


def _preset(name: str, down: float | None, up: float | None, rtt_ms: float, loss_pct: float = 0.0,
            *, queue: int | None = None, jitter_ms: float = 0.0, jitter_corr: float = 0.0,
            burst: float | None = None, blackouts: tuple[Blackout, ...] = ()) -> LinkProfile:
    def direction(rate: float | None) -> DirectionProfile:
        gilbert = GilbertElliott.from_loss_and_burst(loss_pct, burst) if burst else None
        return DirectionProfile(
            delay_ms=rtt_ms / 2, jitter_ms=jitter_ms, jitter_correlation_pct=jitter_corr,
            loss_pct=loss_pct, loss_model="gilbert_elliott" if gilbert else "random", gilbert=gilbert,
            rate_kbit=rate, queue_packets=queue if queue is not None else _queue(rate, rtt_ms))
    return LinkProfile(name=name, down=direction(down), up=direction(up), blackouts=blackouts)


PRESETS: dict[str, LinkProfile] = {p.name: p for p in (
    # name, down kbit/s, up kbit/s, RTT ms, loss %          origin
    _preset("none", None, None, 0),                          # stack baseline
    _preset("cable", 5000, 1000, 28),                        # WebPageTest
    _preset("dsl", 1500, 384, 50),                           # WebPageTest
    _preset("3g", 1600, 768, 300),                           # WebPageTest
    _preset("3g-fast", 1600, 768, 150),                      # WebPageTest
    _preset("4g", 9000, 9000, 170),                          # WebPageTest
    _preset("lte", 12000, 12000, 70),                        # WebPageTest
    _preset("edge-lossy", 240, 200, 840, 1),                 # Augmented Traffic Control
    _preset("2g-rural", 20, 18, 1300, 2),                    # Augmented Traffic Control
    _preset("qir-default", 10000, 10000, 30, queue=25),      # QUIC interop runner
    _preset("transatlantic", None, None, 95, 0.1),           # seeds/000 Cambridge MA <-> Zurich
    _preset("lossy-wifi", 20000, 10000, 20, 2),              # seeds/000 adverse conditions
    # seeds/003 moving train: 120 ms RTT with +-40 ms jitter (20 ms per
    # direction, correlated so it drifts like a radio link), 1.5 % loss in
    # bursts of 3 packets on average, and a 2 s outage every 30 s.
    _preset("train", 3000, 1000, 120, 1.5, jitter_ms=20, jitter_corr=25, burst=3,
            blackouts=(Blackout(every_s=30, duration_s=2),)),
)}
