"""Physics over an emulated 100 ms RTT link (needs root): a warm request for eleven of the 24
MID objects, from the smallest to the largest, takes, over HTTP/2 and HTTP/3, what it takes
over HTTP/1.1 (within 5 % or 2 ms; HTTP/3 within 15 %, the two pacers' difference, below),
and our probe + reference target agree with a production client + server on every protocol
(within 5 % or 2 ms). Judged by per-object medians, and an object that disagrees is measured
again with more rounds, so a noisy machine does not fail it.

Like for like: quic-go paces QUIC and a default Linux server does not pace TCP, so the
physics comparison runs against the target with --tcp-pacing (the same sender policy on every
protocol); the peer comparison runs the target as it serves comparisons (peer_matrix.py).

Why this holds: on a warm connection whose congestion window has grown past the largest
object (the warm-ups fetch it first), every protocol delivers an object in one round trip
plus its serialisation time; anything more (a flow-control window, a window update per RTT,
a client that reads too slowly, a server that paces) is the stack being measured instead of
the protocol. benchmarks/bench_peers.py prints the same matrix on more links.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import pytest
from latencylab_tools.netlab import EmulatedLink
from latencylab_tools.netlab.presets import PRESETS
from latencylab_tools.target import content

pytestmark = [pytest.mark.timing, pytest.mark.skipif(
    os.geteuid() != 0, reason="the emulated link needs root (network namespaces and TUN devices)")]

# The peer matrix lives with the benchmarks, which print it on four links; here it is judged.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from peer_matrix import measure, peer_combos, start_servers, workdir  # noqa: E402

_ALL_MID = sorted((n for n in content.file_sizes() if n.startswith("mid-")), key=lambda n: content.file_sizes()[n])
# Eleven sizes span the set (5 KB to 309 KB): every third object by size, the two either side of
# HTTP/2's default 65,535-byte flow-control window (where a window update would show) and the
# largest (the warm-ups fetch it first to grow the congestion window). All 24 took ~65 s of the
# timing suite, mostly round trips; a stack that is slower on some size shows on these.
MID = sorted({*_ALL_MID[::3], _ALL_MID[13], _ALL_MID[14], _ALL_MID[-1]},
             key=lambda n: content.file_sizes()[n])
_base = PRESETS["transatlantic"]
RTT_100_LOSSLESS = replace(_base, name="rtt-100-lossless", down=replace(_base.down, delay_ms=50.0, loss_pct=0.0),
                           up=replace(_base.up, delay_ms=50.0, loss_pct=0.0))


def close_enough(value: float, reference: float, share: float = 0.05) -> bool:
    return abs(value - reference) <= max(share * reference, 2.0)


# HTTP/3 against HTTP/1.1 compares two pacers, not only two protocols: quic-go paces at 1.25 ×
# cwnd/srtt in bursts of up to 10 packets, Linux's TCP pacing at 2 × cwnd/srtt in slow start and
# 1.2 × after it, so an object about a window's size is serialised at different rates (the
# workload-path table of benchmarks/bench_peers.py with the sender policy aligned measured h3/h1
# 1.067 at 154 KB and 1.109 at 95 KB on one run; a clean-clone run of this test saw 112.9 against
# 119.3 ms at 154 KB). What the physics claim is about, an extra round trip, is +100 %; 15 % is
# the pacers' difference with room. Our HTTP/3 stack is held to 5 % by the peer comparison
# (our probe and target against quic-go's own client and server), and HTTP/2 against HTTP/1.1
# (the same kernel pacer) to 5 % here.
PHYSICS_SHARE = {"h2": 0.05, "h3": 0.15}


@pytest.fixture(scope="module")
def medians() -> dict[tuple[str, str, str], dict[str, float]]:
    # Each combo (client, protocol, server) of the judged pairs, in the pairs' groups.
    groups = [sorted({combo for pair in group for combo in pair}) for group in PAIR_GROUPS]
    combos = sorted(combo for group in groups for combo in group)
    with ExitStack() as stack, workdir() as wd:
        link = stack.enter_context(EmulatedLink(RTT_100_LOSSLESS, backend="userspace"))
        servers = start_servers(link, stack, Path(wd))
        # Two clients at a time over the link (it has no rate limit, so they do not share a
        # bottleneck): the combos are sequential within a group, and every judged pair lies in
        # one group, so both its sides were measured beside the same kind of neighbour. The
        # run is mostly waiting on round trips (~13 s per combo); this halves it.
        with ThreadPoolExecutor(len(groups)) as pool:
            parts = list(pool.map(lambda group: measure(link, servers, group, MID, rounds=5, warmups=3), groups))
        medians = {combo: values for part in parts for combo, values in part.items()}
        # A busy machine can push one object's median of 5 past the tolerance (the Python
        # probe loses the CPU, the peer's C client does not; the userspace link's own forwarding
        # shares the CPU too, which the largest object, ~215 packets, feels most: a clean-clone
        # run saw 107.6 against 102.3 ms at 309 KB once). Objects that disagree in any judged
        # pair are measured again with more rounds, up to twice; a real difference stays.
        for _ in range(2):
            again = sorted({name for ours, reference, share in JUDGED_PAIRS for name in MID
                            if not close_enough(medians[ours][name], medians[reference][name], share)})
            if not again:
                break
            # With the largest object, so the warm-ups grow the window as the first time; one
            # client at a time, so a neighbour's CPU cannot be what a real difference hides behind.
            remeasured = measure(link, servers, combos, sorted({*again, MID[-1]}), rounds=9, warmups=3)
            for combo, values in remeasured.items():
                medians[combo].update(values)
        return medians


def _physics_pair(protocol: str) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """(ours, HTTP/1.1) with the same sender policy: h2 against the paced target, h3 paced anyway."""
    return ("probe", protocol, "target-paced" if protocol == "h2" else "target"), ("probe", "h1", "target-paced")


def _peer_pair(protocol: str) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    ways = peer_combos(protocol)
    return ways["a"], ways["d"]


# The judged pairs in the two groups measured side by side (see `medians`); no pair is split,
# and no combo is in both groups (the physics h3 pair's probe side is the h3 peer pair's, so
# those go together). Physics with the sender policy aligned: TCP paced like QUIC (h3 is paced
# on either instance, so the peer comparison's h3 measurement serves both); peers as the
# target runs.
PAIR_GROUPS = [[_physics_pair("h2"), _physics_pair("h3"), _peer_pair("h3")], [_peer_pair("h1"), _peer_pair("h2")]]
# Each judged pair with its tolerance: the physics pairs by protocol, the peer pairs 5 %.
JUDGED_PAIRS = [(*_physics_pair(p), PHYSICS_SHARE[p]) for p in ("h2", "h3")] + [
    (*_peer_pair(p), 0.05) for p in ("h1", "h2", "h3")]


def _off(values: dict[str, float], references: dict[str, float], share: float = 0.05
         ) -> dict[str, tuple[float, float]]:
    return {f"{name} ({content.file_sizes()[name]:,} B)": (round(values[name], 1), round(references[name], 1))
            for name in MID if not close_enough(values[name], references[name], share)}


@pytest.mark.parametrize("protocol", ["h2", "h3"])
def test_a_warm_request_takes_what_http1_takes(medians: dict, protocol: str) -> None:
    ours_combo, http1_combo = _physics_pair(protocol)
    ours, http1 = medians[ours_combo], medians[http1_combo]
    assert all(95 <= ms for ms in http1.values()), http1  # at least the round trip: the link is really there
    assert _off(ours, http1, PHYSICS_SHARE[protocol]) == {}, f"{protocol} vs h1, ms (ours, h1)"


@pytest.mark.parametrize("protocol", ["h1", "h2", "h3"])
def test_probe_and_target_agree_with_the_production_peer(medians: dict, protocol: str) -> None:
    ours, peer = _peer_pair(protocol)
    assert _off(medians[ours], medians[peer]) == {}, f"{protocol}: probe→target vs {peer}, ms"
