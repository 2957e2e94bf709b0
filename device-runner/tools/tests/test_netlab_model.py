"""The per-direction link model on a synthetic clock (no namespaces needed)."""
import statistics

import pytest
from latencylab_tools.netlab import Blackout, DirectionProfile, GilbertElliott
from latencylab_tools.netlab.model import DirectionModel


def test_constant_delay():
    m = DirectionModel(DirectionProfile(delay_ms=50))
    assert m.admit(10.0, 1500) == pytest.approx(10.05)


def test_rate_serializes_each_packet_then_delays():
    m = DirectionModel(DirectionProfile(delay_ms=10, rate_kbit=1200, queue_packets=10))
    # 1500 bytes at 1.2 Mbit/s = 10 ms on the wire.
    deps = [m.admit(0.0, 1500) for _ in range(3)]
    assert deps == pytest.approx([0.02, 0.03, 0.04])


def test_drop_tail_queue():
    m = DirectionModel(DirectionProfile(rate_kbit=1200, queue_packets=5))
    results = [m.admit(0.0, 1500) for _ in range(8)]
    assert sum(r is None for r in results) == 3
    assert m.counters.dropped_queue == 3
    # Once the queue drains, packets are accepted again.
    assert m.admit(1.0, 1500) is not None


def test_random_loss_rate():
    m = DirectionModel(DirectionProfile(loss_pct=2), seed=1)
    lost = sum(m.admit(i * 1e-3, 100) is None for i in range(100_000))
    assert lost / 100_000 == pytest.approx(0.02, abs=0.002)


def test_gilbert_elliott_is_bursty_with_right_mean():
    g = GilbertElliott.from_loss_and_burst(2.0, 4.0)
    m = DirectionModel(DirectionProfile(loss_model="gilbert_elliott", gilbert=g), seed=3)
    outcome = [m.admit(i * 1e-3, 100) is None for i in range(200_000)]
    assert sum(outcome) / len(outcome) == pytest.approx(0.02, abs=0.004)
    bursts, run = [], 0
    for lost in outcome:
        if lost:
            run += 1
        elif run:
            bursts.append(run)
            run = 0
    assert statistics.fmean(bursts) == pytest.approx(4.0, rel=0.15)


def test_jitter_has_configured_spread_and_never_reorders():
    m = DirectionModel(DirectionProfile(delay_ms=100, jitter_ms=10, jitter_correlation_pct=25), seed=5)
    deps = [m.admit(i * 0.02, 100) for i in range(5000)]
    assert deps == sorted(deps)
    delays = [d - i * 0.02 for i, d in enumerate(deps)]
    assert statistics.fmean(delays) == pytest.approx(0.1, abs=0.002)
    assert statistics.stdev(delays) == pytest.approx(0.010, rel=0.15)


def test_jitter_may_reorder_when_asked():
    m = DirectionModel(DirectionProfile(delay_ms=100, jitter_ms=10, reorder=True), seed=5)
    deps = [m.admit(i * 1e-3, 100) for i in range(1000)]
    assert deps != sorted(deps)


def test_blackout_windows():
    m = DirectionModel(DirectionProfile(), [Blackout(every_s=30, duration_s=2)], start=100.0)
    assert m.admit(100.0 + 27.9, 100) is not None
    assert m.admit(100.0 + 28.1, 100) is None
    assert m.admit(100.0 + 29.9, 100) is None
    assert m.admit(100.0 + 30.1, 100) is not None
    assert m.admit(100.0 + 58.5, 100) is None
    assert m.counters.dropped_blackout == 3
