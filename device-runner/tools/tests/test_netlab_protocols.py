"""Handshake arithmetic and loss tails over the emulated link (needs root).

The reference target runs in the link's server namespace (198.19.0.1) and the
host probe in its client namespace (198.18.0.1), so every TCP, TLS and QUIC
handshake crosses the emulated delay.  Under a 100 ms RTT:

- cold h1: TCP handshake (1 RTT) + TLS 1.3 (1 RTT) + request (1 RTT) = 3 RTT;
- cold h3: QUIC + TLS 1.3 handshake (1 RTT) + request (1 RTT) = 2 RTT;
- warm h2: request only = 1 RTT.

and with 2 % random loss at 10 Mbit/s the tail of series of concurrent
downloads on one warm h2 connection widens: every stream shares one TCP byte
stream, so one lost segment stalls them all (head-of-line blocking).  Bounds are generous (the host is shared and
noisy); the figures are printed (`pytest -s`) and quoted in
docs/network-conditions.md.  TCP congestion control in both namespaces is
EmulatedLink's choice (CUBIC where the host allows it, else Reno; the test prints which).  All traffic
stays between the two llab-* namespaces of each link, on 198.18.0.0/15.
"""
from __future__ import annotations

import dataclasses
import json
import os
import statistics
from collections.abc import Iterator

import pytest
from latencylab_tools.netlab import EmulatedLink, LinkProfile
from latencylab_tools.netlab.measure import percentile
from netlab_helpers import LinkedTarget, start_target

pytestmark = [pytest.mark.timing, pytest.mark.skipif(
    os.geteuid() != 0,
    reason="netlab protocol tests need root (network namespaces and TUN devices)")]

RTT_MS = 100.0
RTT_US = RTT_MS * 1000


@pytest.fixture(scope="module")
def rtt100(tls_dir) -> Iterator[LinkedTarget]:
    with EmulatedLink(LinkProfile.symmetric("rtt100", rtt_ms=RTT_MS), backend="userspace") as link:
        yield start_target(link, tls_dir.dir)


def _rtts(f: dict, start: str, end: str) -> float:
    return (f[end] - f[start]) / RTT_US


def _show(label: str, samples: list[dict]) -> None:
    keys = ("conn_start", "tls_start", "conn_ready", "req_start", "resp_first_byte", "resp_end")
    for f in samples:
        print(f"{label}: " + "  ".join(f"{k}={f[k] / 1000:.1f}ms" for k in keys if f[k] is not None))


def test_tcp_congestion_control_is_pinned_in_both_namespaces(rtt100):
    # Never the host's inherited default (BBR here): cubic where the host allows
    # it in child namespaces, else reno (see netlab.link.DEFAULT_CONGESTION_CONTROL).
    link = rtt100.link
    assert link.congestion_control in ("cubic", "reno")
    for run in (link.run_in_client, link.run_in_server):
        p = run(["sysctl", "-n", "net.ipv4.tcp_congestion_control"], timeout=10)
        assert p.stdout.strip() == link.congestion_control


# -- handshake arithmetic -------------------------------------------------
def _median_rtts(samples: list[dict], start: str, end: str) -> float:
    # The median of a few requests: one late wake-up on a shared 2-core machine must not
    # decide a test about protocol arithmetic.
    return statistics.median(_rtts(f, start, end) for f in samples)


def test_cold_h1_is_three_rtt(rtt100):
    samples = rtt100.probe({"name": "h1", "protocol": "h1", "connection": "cold", "warmup": 1, "n": 5})["h1"]
    _show("cold h1", samples)
    for f in samples:
        assert f["alpn"] == "http/1.1"
        assert f["tls_version"] == "TLSv1.3"
        assert f["conn_reused"] is False
    assert 2.7 <= _median_rtts(samples, "t0", "resp_end") <= 3.6, samples
    assert 0.9 <= _median_rtts(samples, "conn_start", "tls_start") <= 1.4        # TCP SYN -> SYN/ACK
    assert 0.9 <= _median_rtts(samples, "tls_start", "conn_ready") <= 1.4        # ClientHello -> Finished
    assert 0.9 <= _median_rtts(samples, "req_start", "resp_first_byte") <= 1.4  # request -> first byte


def test_cold_h3_is_two_rtt(rtt100):
    samples = rtt100.probe({"name": "h3", "protocol": "h3", "connection": "cold", "warmup": 1, "n": 5})["h3"]
    _show("cold h3", samples)
    for f in samples:
        assert f["alpn"] == "h3"
        assert f["conn_reused"] is False
    assert 1.8 <= _median_rtts(samples, "t0", "resp_end") <= 2.7, samples
    assert 0.9 <= _median_rtts(samples, "conn_start", "conn_ready") <= 1.5       # QUIC Initial -> handshake done
    assert 0.9 <= _median_rtts(samples, "req_start", "resp_first_byte") <= 1.4


def test_warm_h2_is_one_rtt(rtt100):
    samples = rtt100.probe({"name": "h2", "protocol": "h2", "connection": "warm", "warmup": 1, "n": 5})["h2"]
    _show("warm h2", samples)
    for f in samples:
        assert f["alpn"] == "h2"
        assert f["conn_reused"] is True
        assert f["conn_start"] is None
    assert 0.9 <= _median_rtts(samples, "t0", "resp_end") <= 1.4, samples


# -- loss tail ------------------------------------------------------------
LOSS_PCT = 2.0
RATE_KBIT = 10_000
DOWNLOAD_BYTES = 50_000    # ~35 full-size packets per response; a series ~210 packets (240 ms at 10 Mbit/s)
CONCURRENT = 6             # streams per series, issued at once on one warm connection
SERIES_N = 5


def _series_profile(name: str, loss_pct: float) -> LinkProfile:
    # Queue of 600 packets > BDP (~85 packets) + one whole series (~210): the
    # no-loss arm never drops, so every drop in the lossy arm is the 2 %.
    p = LinkProfile.symmetric(name, rtt_ms=RTT_MS, rate_down_kbit=RATE_KBIT, rate_up_kbit=RATE_KBIT,
                              loss_pct=loss_pct, queue_packets=600)
    return dataclasses.replace(p, seed=7)  # same loss decisions per packet index on every run


def _tail(samples: list[dict]) -> dict[str, float]:
    ms = [(f["resp_end"] - f["req_start"]) / 1000 for f in samples]
    series = sorted({f["series"]: f["series_ms"] for f in samples}.values())
    return {"n": len(ms), "p50": percentile(ms, 50), "p95": percentile(ms, 95), "p99": percentile(ms, 99),
            "max": max(ms), "series_p50": percentile(series, 50), "series_p95": percentile(series, 95),
            "series_max": max(series), "series_s": sum(series) / 1000}


def test_loss_widens_the_h2_tail(tls_dir):
    # h2 only: h3's tail under the same series was printed beside it, never judged, and took
    # half of the test's 30 s (docs/network-conditions.md keeps the figures it printed).
    arms = [{"name": "h2", "protocol": "h2", "connection": "warm", "path": f"/bytes/{DOWNLOAD_BYTES}",
             "warmup": 1, "n": SERIES_N, "concurrent": CONCURRENT}]
    results: dict[str, dict[str, dict]] = {}
    for loss in (0.0, LOSS_PCT):
        with EmulatedLink(_series_profile(f"rtt100-10mbit-loss{loss:g}", loss), backend="userspace") as link:
            target = start_target(link, tls_dir.dir)
            per_arm = target.probe(*arms, timeout_s=20.0, run_timeout_s=75)
            stats = link.stats()
            cc = link.congestion_control
        for name, samples in per_arm.items():
            assert len(samples) == SERIES_N * CONCURRENT
            assert all(f["resp_bytes"] == DOWNLOAD_BYTES and f["conn_reused"] is True for f in samples)
            results.setdefault(name, {})[f"loss{loss:g}"] = _tail(samples)
        results.setdefault("link", {})[f"loss{loss:g}"] = {
            d: {k: stats[d][k] for k in ("received", "dropped_loss", "dropped_queue")} for d in ("up", "down")}
    print(f"\n{SERIES_N} series of {CONCURRENT} concurrent x {DOWNLOAD_BYTES} B on one warm connection, "
          f"RTT {RTT_MS:g} ms, {RATE_KBIT / 1000:g} Mbit/s, TCP congestion control {cc}; "
          "per-request ms (req_start -> resp_end) and per-series ms (all streams done):")
    for name in ("h2",):
        for cond, t in results[name].items():
            print(f"  {name} {cond:<6} p50={t['p50']:7.1f} p95={t['p95']:7.1f} p99={t['p99']:7.1f} "
                  f"max={t['max']:7.1f}  series p50={t['series_p50']:7.1f} p95={t['series_p95']:7.1f} "
                  f"max={t['series_max']:7.1f} total={t['series_s']:.2f}s")
    print(f"  link counters: {json.dumps(results['link'])}")
    clean, lossy = results["h2"]["loss0"], results["h2"][f"loss{LOSS_PCT:g}"]
    assert results["link"]["loss0"]["down"]["dropped_queue"] == 0
    assert results["link"][f"loss{LOSS_PCT:g}"]["down"]["dropped_loss"] > 0
    # Only the robust direction: loss widens h2's tail.
    assert lossy["p95"] > clean["p95"]
    assert lossy["series_p95"] > clean["series_p95"]
