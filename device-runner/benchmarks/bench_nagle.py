"""Nagle / delayed-ACK calibration with the payload sweep (seeds/004). Prints figures; no pass/fail.

Two targets (separate processes and ports): one with --nagle-trap (Nagle on, response
head and body in separate writes), one without. Same sweep against both, warm h1c
connection: POST /bytes/{n} with an 800-byte body, response sizes log-spaced 1 KB … 2 MB
plus 35,000 B and 200–400 KB, sizes shuffled per repetition, arms alternated (ABBA).

Flagging. On loopback the baseline TCP-connect RTT is ~0.05 ms, so almost every size is
"slower than 2 × RTT": that rule (the service's, DESIGN §1) is printed as computed by
backend/apps/results/analysis/sweeps.py (the backend is installed in the venv as a
package, `apps`), but the stall detector used
here is a size band that is >= 2 × RTT AND >= 20 ms slower than the trap-off arm's
median for the same size (a delayed-ACK stall is ~40 ms on Linux).

Run: ../.venv/bin/python benchmarks/bench_nagle.py [--reps 10]
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import statistics
import sys
import time

import numpy as np
from _servers import Target, bench_tls

from apps.results.analysis.sweeps import payload_sweep
from apps.results.analysis.table import BlockBaselines, SampleTable
from latencylab_runner.probe import Origin, ProbeRequest, open_session

REQUEST_BYTES = 800
STALL_FLOOR_MS = 20.0


def sweep_sizes() -> list[int]:
    # 1 KB … 2 MB log-spaced (4 per decade), plus the seed's 35,000 B and a 200–400 KB band.
    lo, hi, per_decade = 1_000, 2_000_000, 4
    steps = round(per_decade * math.log10(hi / lo))
    sizes = {round(lo * (hi / lo) ** (i / steps)) for i in range(steps + 1)}
    sizes |= {35_000, 200_000, 250_000, 300_000, 350_000, 400_000}
    return sorted(sizes)


def tcp_rtt_ms(port: int, n: int = 20) -> float:
    """Baseline TCP-connect RTT (median of n connects), as the runner measures it."""
    out = []
    for _ in range(n):
        t = time.perf_counter_ns()
        socket.create_connection(("127.0.0.1", port), 2).close()
        out.append((time.perf_counter_ns() - t) / 1e6)
    return statistics.median(out)


def run_sweep(ports: dict[str, int], sizes: list[int], reps: int, seed: int) -> dict[str, dict[int, list[float]]]:
    body = bytes(REQUEST_BYTES)
    results: dict[str, dict[int, list[float]]] = {arm: {n: [] for n in sizes} for arm in ports}
    sessions = {arm: open_session(protocol="h1c", connection="warm", origin=Origin("http", "127.0.0.1", port))
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
                        results[arm][n].append(f["app_done"] / 1000)
                    else:
                        print(f"  {arm} {n}: {f['error_class']} {f['error_detail']}", file=sys.stderr)
    finally:
        for s in sessions.values():
            s.close()
    return results


def service_flags(results: dict[str, dict[int, list[float]]], rtt_ms: float) -> dict[tuple[str, int], dict]:
    """The service's own payload-sweep rows (sweeps.payload_sweep)."""
    arms = list(results)
    arm_codes, totals, sizes = [], [], []
    for code, arm in enumerate(arms):
        for n, values in results[arm].items():
            for v in values:
                arm_codes.append(code)
                totals.append(round(v * 1000))
                sizes.append(n)
    table = SampleTable.from_columns(arm=arm_codes, device=[0] * len(totals), profile=[0] * len(totals),
                                     total_us=totals, resp_bytes=sizes, arm_labels=arms, device_labels=["host"],
                                     profile_labels=["none"])
    one = np.zeros(1, dtype=np.int64)
    baselines = BlockBaselines(device=one, profile=one, block=one, rtt_avg_us=np.array([rtt_ms * 1000]),
                               rtt_stddev_us=np.zeros(1), loss_pct=np.zeros(1))
    return {(row["arm"], row["resp_bytes"]): row for row in payload_sweep(table, baselines)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    tls = bench_tls()
    sizes = sweep_sizes()
    targets = {"trap-off": Target(tls, "--no-h3"), "trap-on": Target(tls, "--no-h3", "--nagle-trap")}
    try:
        ports = {arm: t.plain_port for arm, t in targets.items()}
        rtt = statistics.median(tcp_rtt_ms(p) for p in ports.values())
        results = run_sweep(ports, sizes, args.reps, args.seed)
    finally:
        for t in targets.values():
            t.stop()
    service = service_flags(results, rtt)
    print(f"== payload sweep, h1c warm, POST {REQUEST_BYTES} B, {args.reps} reps/size, "
          f"baseline TCP-connect RTT {rtt:.3f} ms ({time.strftime('%Y-%m-%d')}) ==")
    print("stall = median >= 2 x RTT and >= 20 ms slower than the trap-off median for the size")
    print(f"{'bytes':>9} | {'off ms':>8} {'xRTT':>7} {'svc slow':>8} | {'on ms':>8} {'xRTT':>7} {'svc slow':>8} "
          f"{'on-off':>8}  stall(on) stall(off)")
    stalls = {"trap-on": 0, "trap-off": 0}
    for n in sizes:
        off, on = statistics.median(results["trap-off"][n]), statistics.median(results["trap-on"][n])
        # Each arm is judged against the other arm's median: a stall is extra time that the
        # other configuration of the same server does not have.
        stall_on = on >= 2 * rtt and on - off >= STALL_FLOOR_MS
        stall_off = off >= 2 * rtt and off - on >= STALL_FLOOR_MS
        stalls["trap-on"] += stall_on
        stalls["trap-off"] += stall_off
        svc = lambda arm, n=n: "yes" if service[(arm, n)]["slow"] else "no"  # noqa: E731
        print(f"{n:9d} | {off:8.3f} {off / rtt:7.0f} {svc('trap-off'):>8} | {on:8.3f} {on / rtt:7.0f} "
              f"{svc('trap-on'):>8} {on - off:+8.3f}  {'STALL' if stall_on else '-':9} {'STALL' if stall_off else '-'}")
    print("svc slow = sweeps.payload_sweep's 'slow' (median > 2 x baseline RTT), the service's rule as is")
    print(f"sizes flagged as stalled: trap-on {stalls['trap-on']}/{len(sizes)}, "
          f"trap-off {stalls['trap-off']}/{len(sizes)}")


if __name__ == "__main__":
    main()
