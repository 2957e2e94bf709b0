"""The payload-sweep stall detector (analysis/stalls.py) on synthetic sweeps built the way the
network makes them: RTT + transfer at the path's rate (+ handshakes and slow start on fresh
connections) + a little client time and noise per request. Healthy sweeps at several RTTs
and rates must flag nothing; a 40 ms (Linux delayed ACK) or 200 ms (Apple/Windows) plateau
must flag its sizes and only those; a lone slow request must not flag its size."""

import numpy as np
import pytest

from apps.results.analysis import BlockBaselines, SampleTable, payload_sweep
from apps.results.analysis.stalls import (
    ABOVE_EXPECTED,
    SLOWER_THAN_LARGER_SIZE,
    StallRule,
    series_stalls,
    transfer_ms,
)

# seeds/004's sweep: 1 KB … 2 MB log-spaced (4 per decade) plus 35,000 B and 200–400 KB.
SIZES = sorted({round(1_000 * 2_000 ** (i / 13)) for i in range(14)}
               | {35_000, 200_000, 250_000, 300_000, 350_000, 400_000})
TRAP_SIZES = [n for n in SIZES if n <= 64 * 1024]
MSS = 1448


def healthy_ms(size: int, rtt_ms: float, rate_kbit: float, *, fresh: bool = False, restarts: bool = False) -> float:
    """What a stall-free request takes: request RTT, handshakes when fresh, the transfer at
    the rate with slow start from 10 MSS when fresh or restarted after idle, 1 ms client time."""
    handshake = 2 * rtt_ms if fresh else 0.0
    window = 10 * MSS if fresh or restarts else None
    return 1.0 + rtt_ms + handshake + transfer_ms(size, rtt_ms, rate_kbit, window)


def sweep_table(latency_ms, *, rtt_ms: float, reps: int = 10, seed: int = 1, fresh_every: int = 0,
                noise: float = 0.03, extra: dict | None = None) -> tuple[SampleTable, BlockBaselines]:
    """One arm, one block per repetition; each sample is latency_ms(size) × lognormal noise.
    ``fresh_every``: every n-th request of a block opens its connection (0: never).
    ``extra``: {(size, repetition): ms} added to single requests."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"total_us": [], "resp_bytes": [], "block": [], "first_on_connection": []}
    for rep in range(reps):
        for i, size in enumerate(rng.permutation(SIZES)):
            fresh = bool(fresh_every) and i % fresh_every == 0
            ms = latency_ms(int(size), fresh) * float(rng.lognormal(0.0, noise))
            ms += (extra or {}).get((int(size), rep), 0.0)
            rows["total_us"].append(round(ms * 1000))
            rows["resp_bytes"].append(int(size))
            rows["block"].append(rep)
            rows["first_on_connection"].append(fresh)
    n = len(rows["total_us"])
    table = SampleTable.from_columns(arm=[0] * n, device=[0] * n, profile=[0] * n, **rows,
                                     arm_labels=["build"], device_labels=["pixel"], profile_labels=["link"])
    blocks = np.arange(reps)
    baselines = BlockBaselines(device=np.zeros(reps, np.int32), profile=np.zeros(reps, np.int32), block=blocks,
                               rtt_avg_us=np.full(reps, rtt_ms * 1000.0), rtt_stddev_us=np.zeros(reps),
                               loss_pct=np.zeros(reps))
    return table, baselines


def flagged(rows: list[dict]) -> list[int]:
    return [row["resp_bytes"] for row in rows if row["stall"]]


@pytest.mark.parametrize("rtt_ms, rate_kbit", [
    (0.08, 2_500_000),  # loopback: no link, the rate is the CPU's
    (20, 50_000), (20, 5_000), (100, 10_000), (100, 1_600), (300, 1_600), (70, 12_000),
])
def test_healthy_warm_sweeps_flag_nothing(rtt_ms, rate_kbit):
    table, baselines = sweep_table(lambda size, fresh: healthy_ms(size, rtt_ms, rate_kbit), rtt_ms=rtt_ms)
    rows = payload_sweep(table, baselines)
    assert flagged(rows) == []
    assert all(row["stall"] is False and row["stall_reasons"] == [] for row in rows)
    # The model's time follows the curve: within the margin of every healthy median.
    assert all(row["median_ms"] <= row["expected_ms"] * 1.1 + 5 for row in rows)
    assert {row["expected_rate_source"] for row in rows} == {"sweep"}


@pytest.mark.parametrize("rtt_ms, rate_kbit", [(20, 20_000), (100, 10_000), (300, 1_600)])
def test_healthy_fresh_and_restarting_connections_flag_nothing(rtt_ms, rate_kbit):
    """Cold requests pay the handshakes and slow start; warm ones whose window restarts after
    idle pay slow start: the detector must not call either a stall."""
    cold, cold_base = sweep_table(lambda size, fresh: healthy_ms(size, rtt_ms, rate_kbit, fresh=True),
                                  rtt_ms=rtt_ms, fresh_every=1)
    cold_rows = payload_sweep(cold, cold_base)
    assert flagged(cold_rows) == []
    assert all(row["expected_slow_start"] for row in cold_rows)
    idle, idle_base = sweep_table(lambda size, fresh: healthy_ms(size, rtt_ms, rate_kbit, restarts=True),
                                  rtt_ms=rtt_ms)
    idle_rows = payload_sweep(idle, idle_base)
    assert flagged(idle_rows) == []
    assert all(row["expected_slow_start"] for row in idle_rows)


@pytest.mark.parametrize("rtt_ms, rate_kbit", [(0.08, 2_500_000), (20, 50_000), (100, 10_000)])
def test_a_40_ms_delayed_ack_plateau_flags_its_sizes(rtt_ms, rate_kbit):
    """The Nagle trap with a Linux client: every response up to 64 KiB waits for a delayed
    ACK (40 ms) of its head; the stall disappears at the larger sizes."""

    def trapped(size: int, fresh: bool) -> float:
        return healthy_ms(size, rtt_ms, rate_kbit) + (40.0 if size <= 64 * 1024 else 0.0)

    table, baselines = sweep_table(trapped, rtt_ms=rtt_ms)
    rows = payload_sweep(table, baselines)
    assert flagged(rows) == TRAP_SIZES
    for row in rows:
        if row["stall"]:
            assert ABOVE_EXPECTED in row["stall_reasons"]
            assert row["excess_ms"] > 30


def test_a_200_ms_plateau_at_middle_sizes_is_the_delayed_ack_signature():
    """An Apple/Windows peer's 200 ms delayed ACK on a band in the middle of the sweep: slower
    than the larger sizes that follow it, so flagged whatever the model says."""
    band = {33_385, 35_000, 59_907}

    def trapped(size: int, fresh: bool) -> float:
        return healthy_ms(size, 50, 12_000) + (200.0 if size in band else 0.0)

    table, baselines = sweep_table(trapped, rtt_ms=50)
    rows = payload_sweep(table, baselines)
    assert set(flagged(rows)) == band
    for row in rows:
        if row["stall"]:
            assert row["stall_reasons"] == [ABOVE_EXPECTED, SLOWER_THAN_LARGER_SIZE]


def test_a_lone_slow_request_does_not_flag_its_size():
    """One request of ten at 35,000 B takes 300 ms more (a retransmission, a scheduler
    hiccup): the band's median does not move."""
    table, baselines = sweep_table(lambda size, fresh: healthy_ms(size, 20, 20_000), rtt_ms=20,
                                   extra={(35_000, 4): 300.0})
    rows = payload_sweep(table, baselines)
    assert flagged(rows) == []
    lone = next(row for row in rows if row["resp_bytes"] == 35_000)
    assert lone["slower_than_next_size"] is False


def test_too_few_requests_or_no_baseline_are_not_judged():
    table, baselines = sweep_table(lambda size, fresh: healthy_ms(size, 20, 20_000) + 100, rtt_ms=20, reps=2)
    assert {row["stall"] for row in payload_sweep(table, baselines)} == {None}
    assert {row["stall"] for row in payload_sweep(table, None)} == {None}


def test_the_link_rate_is_the_fallback_when_no_size_shows_one():
    sizes = np.array([1_000.0, 35_000.0])
    judged = series_stalls(sizes, np.array([19.9, 20.0]), np.array([10, 10]), np.zeros(2), np.array([20.0, 20.0]),
                           link_rate_kbit=10_000)
    # Sizes no slower than the RTT show no rate: 20 ms + 28 ms at 10 Mbit/s is expected.
    assert (judged.rate_source, judged.rate_kbit) == ("link", 10_000)
    assert judged.expected_ms[1] == pytest.approx(20 + 35_000 * 8 / 10_000)
    assert judged.stall == [False, False]


def test_slow_start_costs_a_round_trip_per_window_below_the_bandwidth_delay_product():
    # 10 MSS, then 20, 40: 100,000 B takes 3 windows, 2 round trips beyond the request's.
    assert transfer_ms(100_000, 100, 1e9, 10 * MSS) == pytest.approx(200, abs=1)
    assert transfer_ms(100_000, 100, 1e9, None) == pytest.approx(100_000 * 8 / 1e9)
    # A window as large as the path's BDP stops growing the count: 10 Mbit/s × 100 ms = 125 KB.
    assert transfer_ms(2_000_000, 100, 10_000, 10 * MSS) < 2_000_000 * 8 / 10_000 + 4 * 100


def test_the_old_slow_flag_keeps_its_meaning_beside_the_stall():
    table, baselines = sweep_table(lambda size, fresh: healthy_ms(size, 0.08, 2_500_000), rtt_ms=0.08)
    rows = payload_sweep(table, baselines)
    assert all(row["slow"] for row in rows)  # every size is "slower than 2 × RTT" on loopback
    assert not any(row["stall"] for row in rows)
    assert StallRule().floor_ms > 1.0 + 0.08 * 2  # the floor covers loopback's client time
