"""Calibration of the payload-sweep stall detector on the Nagle trap, at RTT ≈ 0, 20 and 100 ms.
Prints figures; no pass/fail (runner/tests/test_stall_calibration.py judges counts).

Two reference targets (separate processes), one with --nagle-trap (Nagle on, response head
and body in separate writes: every response up to the target's inline limit of 64 KiB
waits for the client's ACK of the head, a delayed ACK on Linux), one without. The same
payload sweep (seeds/004) against both on a warm h1c connection: POST /bytes/{n} with an
800-byte body, response sizes log-spaced 1 KB … 2 MB plus 35,000 B and 200–400 KB
(20 sizes, 9 of them at most 64 KiB: the trap's sizes), sizes shuffled per repetition,
arms alternated (ABBA).

Paths: loopback (RTT ≈ 0.1 ms, no rate: the detector estimates it from the sweep), and the
userspace link emulator (needs root; skipped otherwise) at RTT 20 ms / 50 Mbit/s and
100 ms / 10 Mbit/s, the targets in the link's server namespace, the client in its client
namespace, all traffic inside them (198.18.0.0/15). The baseline RTT and the rate are what
a run stores: the TCP-connect RTT before the sweep and the link's measured goodput.

Each arm's samples go through the service's analysis (apps.results.analysis.sweeps, the
backend installed in the venv as the package `apps`) exactly as a stored run would:
`stall` is the detector, `slow` the old "median > 2 × RTT" rule printed beside it.

Run: ../.venv/bin/python benchmarks/bench_nagle.py [--reps 5] [--only loopback|20|100]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _servers import Target, bench_tls
from latencylab_tools.probe import Origin, ProbeRequest, open_session
from latencylab_tools.target.http1 import SMALL_RESPONSE

from apps.results.analysis.sweeps import payload_sweep
from apps.results.analysis.table import BlockBaselines, SampleTable
from latencylab_runner.agent.baseline import tcp_connect_rtt

REQUEST_BYTES = 800
ARMS = ("trap-off", "trap-on")
DEVICE_RUNNER = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class LinkCase:
    name: str
    rtt_ms: float  # 0: loopback
    rate_kbit: float | None


PATHS = {"loopback": LinkCase("loopback", 0, None), "20": LinkCase("20 ms / 50 Mbit/s", 20, 50_000),
         "100": LinkCase("100 ms / 10 Mbit/s", 100, 10_000)}


def sweep_sizes() -> list[int]:
    # 1 KB … 2 MB log-spaced (4 per decade), plus the seed's 35,000 B and a 200–400 KB band.
    lo, hi, per_decade = 1_000, 2_000_000, 4
    steps = round(per_decade * math.log10(hi / lo))
    sizes = {round(lo * (hi / lo) ** (i / steps)) for i in range(steps + 1)}
    sizes |= {35_000, 200_000, 250_000, 300_000, 350_000, 400_000}
    return sorted(sizes)


def trap_sizes(sizes: list[int]) -> list[int]:
    """Sizes the trap stalls: the target writes head and body separately up to its inline limit."""
    return [n for n in sizes if n <= SMALL_RESPONSE]


def run_sweep(host: str, ports: dict[str, int], sizes: list[int], reps: int, seed: int) -> dict:
    """{arm: {size: [[total ms, conn_reused], ...]}}: one warm h1c connection per arm."""
    body = bytes(REQUEST_BYTES)
    results: dict[str, dict[int, list]] = {arm: {n: [] for n in sizes} for arm in ports}
    sessions = {arm: open_session(protocol="h1c", connection="warm", origin=Origin("http", host, port))
                for arm, port in ports.items()}
    try:
        for s in sessions.values():
            for _ in range(2):  # warm-up: the first request is served in quick-ACK mode
                s.fetch(ProbeRequest("POST", f"/bytes/{sizes[0]}", body))
        arms = list(ports)
        for rep in range(reps):
            order = list(sizes)
            random.Random(f"{seed}:{rep}").shuffle(order)
            for step, n in enumerate(order):
                for arm in (arms if (rep + step) % 2 == 0 else arms[::-1]):
                    f = sessions[arm].fetch(ProbeRequest("POST", f"/bytes/{n}", body, op="bytes"))
                    if f["error_class"] is None and f["resp_bytes"] == n:
                        results[arm][n].append([f["app_done"] / 1000, bool(f["conn_reused"])])
                    else:
                        print(f"  {arm} {n}: {f['error_class']} {f['error_detail']}", file=sys.stderr)
    finally:
        for s in sessions.values():
            s.close()
    return results


def measure_loopback(sizes: list[int], reps: int, seed: int) -> tuple[dict, float, float | None]:
    tls = bench_tls()
    targets = {"trap-off": Target(tls, "--no-h3"), "trap-on": Target(tls, "--no-h3", "--nagle-trap")}
    try:
        ports = {arm: t.plain_port for arm, t in targets.items()}
        rtt = statistics.median(tcp_connect_rtt("127.0.0.1", p, count=20)["avg_ms"] for p in ports.values())
        return run_sweep("127.0.0.1", ports, sizes, reps, seed), rtt, None
    finally:
        for t in targets.values():
            t.stop()


def measure_emulated(path: LinkCase, reps: int, seed: int) -> tuple[dict, float, float | None]:
    from latencylab_tools.netlab import DirectionProfile, EmulatedLink, LinkProfile

    direction = DirectionProfile(delay_ms=path.rtt_ms / 2, rate_kbit=path.rate_kbit, queue_packets=1000)
    tls = bench_tls()
    with EmulatedLink(LinkProfile(name=f"nagle-{path.rtt_ms:g}", down=direction, up=direction),
                      backend="userspace") as link:
        ports = {}
        for arm in ARMS:
            trap = ["--nagle-trap"] if arm == "trap-on" else []
            server = link.spawn_in_server(
                [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr, "--plain-port", "0",
                 "--tls-port", "0", "--tls-dir", str(tls.dir), "--no-h3", *trap],
                stdout=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
            assert server.stdout is not None
            ports[arm] = json.loads(server.stdout.readline())["plain_port"]
        measured = link.measure(rtt_samples=10, loss_packets=0, rate_seconds=1.0)
        rtt = measured.rtt_ms.avg if measured.rtt_ms else float("nan")
        job = json.dumps({"host": link.server_addr, "ports": ports, "sizes": sweep_sizes(), "reps": reps,
                          "seed": seed})
        done = link.run_in_client([sys.executable, __file__, "--client", job], timeout=1800)
        if done.returncode != 0:
            raise RuntimeError(f"the sweep in the client namespace failed: {done.stderr[-2000:]}")
        raw = json.loads(done.stdout)
        results = {arm: {int(n): v for n, v in by_size.items()} for arm, by_size in raw.items()}
        return results, rtt, measured.goodput_kbit.get("down")


def service_rows(results: dict, rtt_ms: float, rate_kbit: float | None) -> dict[tuple[str, int], dict]:
    """The service's payload-sweep rows (sweeps.payload_sweep) for the arms' samples, one
    block with its baseline RTT and, where measured, the link's rate."""
    arms = list(results)
    arm_codes, totals, sizes, fresh = [], [], [], []
    for code, arm in enumerate(arms):
        for n, values in results[arm].items():
            for total_ms, reused in values:
                arm_codes.append(code)
                totals.append(round(total_ms * 1000))
                sizes.append(n)
                fresh.append(not reused)
    table = SampleTable.from_columns(arm=arm_codes, device=[0] * len(totals), profile=[0] * len(totals),
                                     total_us=totals, resp_bytes=sizes, first_on_connection=fresh, arm_labels=arms,
                                     device_labels=["host"], profile_labels=["link"])
    one = np.zeros(1, dtype=np.int64)
    baselines = BlockBaselines(device=one, profile=one, block=one, rtt_avg_us=np.array([rtt_ms * 1000]),
                               rtt_stddev_us=np.zeros(1), loss_pct=np.zeros(1))
    rates = {("host", "link"): rate_kbit} if rate_kbit else None
    return {(row["arm"], row["resp_bytes"]): row for row in payload_sweep(table, baselines, link_rates=rates)}


def report(path: LinkCase, results: dict, rtt: float, rate: float | None) -> dict[str, str]:
    sizes = sorted(results["trap-off"])
    trapped = trap_sizes(sizes)
    rows = service_rows(results, rtt, rate)
    rate_text = f"link rate {rate:,.0f} kbit/s" if rate else "no link rate"
    print(f"\n== {path.name}: baseline TCP-connect RTT {rtt:.3f} ms, {rate_text}, "
          f"{len(results['trap-off'][sizes[0]])} reps/size ==")
    print(f"{'bytes':>9} | {'off ms':>8} {'expect':>8} {'stall':>5} {'2xRTT':>5} | {'on ms':>8} {'expect':>8} "
          f"{'stall':>5} {'2xRTT':>5} {'on-off':>8}  why (trap-on)")
    for n in sizes:
        off, on = rows[("trap-off", n)], rows[("trap-on", n)]

        def yes(flag: bool | None) -> str:
            return "-" if flag is None else ("YES" if flag else "no")

        print(f"{n:9d} | {off['median_ms']:8.2f} {off['expected_ms'] or math.nan:8.2f} {yes(off['stall']):>5} "
              f"{yes(off['slow']):>5} | {on['median_ms']:8.2f} {on['expected_ms'] or math.nan:8.2f} "
              f"{yes(on['stall']):>5} {yes(on['slow']):>5} {on['median_ms'] - off['median_ms']:+8.2f}  "
              f"{'trap ' if n in trapped else '     '}{', '.join(on['stall_reasons'])}")
    healthy = sum(bool(rows[("trap-off", n)]["stall"]) for n in sizes)
    caught = sum(bool(rows[("trap-on", n)]["stall"]) for n in trapped)
    beyond = sum(bool(rows[("trap-on", n)]["stall"]) for n in sizes if n not in trapped)
    old_healthy = sum(bool(rows[("trap-off", n)]["slow"]) for n in sizes)
    old_caught = sum(bool(rows[("trap-on", n)]["slow"]) for n in trapped)
    summary = {
        "path": path.name,
        "detector": f"healthy flagged {healthy}/{len(sizes)}, trap flagged {caught}/{len(trapped)}"
                    f" (+{beyond} trap-on sizes above 64 KiB)",
        "old 2xRTT": f"healthy flagged {old_healthy}/{len(sizes)}, trap flagged {old_caught}/{len(trapped)}",
    }
    print(f"stall detector: {summary['detector']}   |   old 2 x RTT rule: {summary['old 2xRTT']}")
    return summary


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--only", choices=list(PATHS))
    ap.add_argument("--client", help=argparse.SUPPRESS)  # the sweep, run inside the link's client namespace
    args = ap.parse_args()
    if args.client:
        job = json.loads(args.client)
        print(json.dumps(run_sweep(job["host"], job["ports"], job["sizes"], job["reps"], job["seed"])))
        return
    print(f"== Nagle trap calibration of the payload-sweep stall detector, h1c warm, POST {REQUEST_BYTES} B "
          f"({time.strftime('%Y-%m-%d')}) ==")
    print("expect = the detector's expected median (RTT, handshakes, slow start, rate); "
          "stall = the detector; 2xRTT = the old rule (median > 2 x RTT)")
    summaries = []
    for key, path in PATHS.items():
        if args.only and key != args.only:
            continue
        if path.rtt_ms and os.geteuid() != 0:
            print(f"\n== {path.name}: skipped (the link emulator needs root for network namespaces) ==")
            continue
        if path.rtt_ms:
            results, rtt, rate = measure_emulated(path, args.reps, args.seed)
        else:
            results, rtt, rate = measure_loopback(sweep_sizes(), args.reps * 2, args.seed)
        summaries.append(report(path, results, rtt, rate))
    print("\n== summary (target: healthy 0/20 and trap >= 8/9 at each RTT) ==")
    for s in summaries:
        print(f"{s['path']:>20}: detector {s['detector']}; old 2 x RTT rule {s['old 2xRTT']}")


if __name__ == "__main__":
    main()
