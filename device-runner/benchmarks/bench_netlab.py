"""Benchmarks for the userspace link emulator (targets: docs/operations.md, "Targets").

Prints figures; no pass/fail.  Needs root.  Every phase is bounded in packets
and time, and all traffic stays between the two llab-* namespaces of each
link on 198.18.0.0/15.

    sudo ../.venv/bin/python benchmarks/bench_netlab.py [--quick] [--json out.json] [--probe-rt]

Targets: TCP-connect RTT within +-1 ms (p50) and +-2 ms (p95) of the profile
at 20/100/300 ms; 2 % loss -> 2 +- 0.5 % over 10k packets; 10 Mbit/s ->
goodput 9-10 Mbit/s; >= 100 Mbit/s at zero added delay.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from latencylab_tools.netlab import PRESETS, EmulatedLink, LinkProfile, sweep_leftovers
from latencylab_tools.netlab.measure import RttStats, measure_connect_rtt, measure_goodput, measure_loss


def rtt_accuracy(rtt_ms: float, samples: int) -> dict:
    with EmulatedLink(LinkProfile.symmetric(f"rtt{rtt_ms:g}", rtt_ms=rtt_ms), backend="userspace") as link:
        # A few unmeasured handshakes first: first-use costs (ARP-free TUN,
        # but route/socket caches) are not the link's.
        measure_connect_rtt(link.client_netns, link.server_netns, link.client_addr, link.server_addr, 3, 5)
        xs, fails = measure_connect_rtt(link.client_netns, link.server_netns, link.client_addr,
                                        link.server_addr, samples, 5)
        st = link.stats()
    s = RttStats.of(xs, fails)
    return {"profile_rtt_ms": rtt_ms, "n": s.n, "failures": fails, "p50_ms": s.p50, "p95_ms": s.p95,
            "min_ms": s.min, "max_ms": s.max, "stddev_ms": s.stddev,
            "p50_error_ms": s.p50 - rtt_ms, "p95_error_ms": s.p95 - rtt_ms,
            # The emulator's own release lateness, to tell its error from the probe's.
            "emulator_late_max_ms": 1000 * max(st["up"]["late_max_s"], st["down"]["late_max_s"]),
            "emulator_late_over_1ms": st["up"]["late_over_1ms"] + st["down"]["late_over_1ms"]}


def loss_accuracy(loss_pct: float, packets: int) -> dict:
    p = LinkProfile.symmetric(f"loss{loss_pct:g}", loss_pct=loss_pct)
    out = {"configured_pct": loss_pct, "packets_per_direction": packets}
    with EmulatedLink(p, backend="userspace") as link:
        for name, src, dst, sa, da, d in (
                ("up", link.client_netns, link.server_netns, link.client_addr, link.server_addr, p.up),
                ("down", link.server_netns, link.client_netns, link.server_addr, link.client_addr, p.down)):
            r = measure_loss(src, dst, sa, da, d, packets, budget_s=30)
            out[f"{name}_sent"] = r.sent
            out[f"{name}_measured_pct"] = r.loss_pct
    return out


def goodput(profile: LinkProfile, seconds: float) -> dict:
    with EmulatedLink(profile, backend="userspace") as link:
        down = measure_goodput(link.server_netns, link.client_netns, link.server_addr, link.client_addr, seconds)
        up = measure_goodput(link.client_netns, link.server_netns, link.client_addr, link.server_addr, seconds)
        cc = link.congestion_control
    return {"profile": profile.name, "congestion_control": cc,
            "rate_kbit": [profile.down.rate_kbit, profile.up.rate_kbit], "rtt_ms": profile.rtt_ms, "seconds": seconds,
            "down_mbit": down / 1000, "up_mbit": up / 1000}


def main() -> int:
    ap = argparse.ArgumentParser(description="LatencyLab link emulator benchmarks")
    ap.add_argument("--quick", action="store_true", help="fewer samples (about 30 s)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--probe-rt", action="store_true",
                    help="run the measuring process itself at SCHED_FIFO, so host load does not "
                         "inflate the probe's own wake-ups (the emulator always runs at SCHED_FIFO)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bench_netlab needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2
    if args.probe_rt:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
    sweep_leftovers()
    q = args.quick
    res: dict = {"host": {"cpus": os.cpu_count(), "loadavg": os.getloadavg(), "probe_rt": args.probe_rt}}

    print("== emulated RTT accuracy (TCP connect, target p50 +-1 ms, p95 +-2 ms; probe at "
          f"{'SCHED_FIFO' if args.probe_rt else 'normal priority'})")
    res["rtt"] = []
    for rtt, n in ((0, 200), (20, 200), (100, 100), (300, 40)):
        r = rtt_accuracy(rtt, n // 4 if q else n)
        res["rtt"].append(r)
        print(f"  {rtt:>4} ms  n={r['n']:<4} p50={r['p50_ms']:8.3f}  p95={r['p95_ms']:8.3f}  "
              f"err p50={r['p50_error_ms']:+.3f}  p95={r['p95_error_ms']:+.3f}  max={r['max_ms']:.3f}  "
              f"emulator late max={r['emulator_late_max_ms']:.3f} (>1 ms: {r['emulator_late_over_1ms']})"
              + ("   (stack baseline)" if rtt == 0 else ""))

    print("== loss (target 2 +- 0.5 % over 10k packets)")
    r = loss_accuracy(2.0, 2000 if q else 10_000)
    res["loss"] = r
    print(f"  configured 2 %: up {r['up_measured_pct']:.2f} % of {r['up_sent']}, "
          f"down {r['down_measured_pct']:.2f} % of {r['down_sent']}")

    print("== rate (target 10 Mbit/s -> goodput 9-10 Mbit/s)")
    secs = 4 if q else 10
    ten = LinkProfile.symmetric("10mbit-20ms", rtt_ms=20, rate_down_kbit=10_000, rate_up_kbit=10_000,
                                queue_packets=50)
    res["rate"] = [goodput(ten, secs), goodput(PRESETS["qir-default"], secs)]
    for r in res["rate"]:
        print(f"  {r['profile']:<12} goodput down {r['down_mbit']:.2f} Mbit/s, up {r['up_mbit']:.2f} Mbit/s "
              f"(TCP {r['congestion_control']})")

    print("== emulator throughput (target >= 100 Mbit/s at zero added delay, 2 cores)")
    res["throughput"] = [goodput(PRESETS["none"], secs / 2),
                         goodput(LinkProfile.symmetric("100ms-unlimited", rtt_ms=100), secs)]
    for r in res["throughput"]:
        print(f"  {r['profile']:<16} down {r['down_mbit']:.0f} Mbit/s, up {r['up_mbit']:.0f} Mbit/s")

    res["host"]["loadavg_end"] = os.getloadavg()
    print(f"(load average at start {res['host']['loadavg'][0]:.2f}, end {res['host']['loadavg_end'][0]:.2f}; "
          f"other work on the host shares these {os.cpu_count()} cores)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
