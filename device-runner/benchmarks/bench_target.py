"""Target server cost under load (target, docs/operations.md: adds <= 1 ms p99 Server-Timing at 100
concurrent connections), requests/s beside nginx serving the same files. No pass/fail.

h2load holds 100 connections busy; meanwhile a probe session on one more connection
samples Server-Timing and its own TTFB. The target runs with --workers 1 and with one
worker per CPU (SO_REUSEPORT); nginx likewise with worker_processes 1 and N, so each
row compares like with like. Run: ../.venv/bin/python benchmarks/bench_target.py
[--seconds 5] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import time

from _servers import Nginx, Target, bench_tls
from latencylab_tools.probe import Origin, ProbeRequest, open_session

PATH = "/files/mid-03"


def h2load(url: str, seconds: int, h1: bool) -> subprocess.Popen[str]:
    args = ["h2load", "-c", "100", "-D", str(seconds), "--warm-up-time=1"]
    if h1:
        args.append("--h1")
    return subprocess.Popen(args + [url], stdout=subprocess.PIPE, text=True)


def rps(output: str) -> float:
    m = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", output)
    return float(m.group(1)) if m else float("nan")


def _q(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100)[p - 1] if len(values) > 2 else float("nan")


def nginx_workers(nginx: Nginx, n: int) -> None:
    """Reload nginx with worker_processes n (SIGHUP re-reads the config)."""
    conf = nginx.dir / "nginx.conf"
    conf.write_text(re.sub(r"worker_processes \d+;", f"worker_processes {n};", conf.read_text()))
    nginx.proc.send_signal(signal.SIGHUP)
    time.sleep(1.0)


def target_row(tls, workers: int, seconds: int) -> None:
    target = Target(tls, "--no-h3", "--workers", str(workers))
    try:
        for h1 in (True, False):
            label = "h1 (TLS)" if h1 else "h2"
            load = h2load(f"https://127.0.0.1:{target.tls_port}{PATH}", seconds, h1)
            time.sleep(1.2)
            origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
            server_ms, ttfb = [], []
            with open_session(protocol="h1" if h1 else "h2", connection="warm", origin=origin,
                              ca_file=str(tls.ca_cert)) as s:
                while load.poll() is None:
                    f = s.fetch(ProbeRequest("GET", PATH))
                    if f["server_time_us"] is not None:
                        server_ms.append(f["server_time_us"] / 1000)
                        ttfb.append((f["resp_first_byte"] - f["req_start"]) / 1000)
            out = load.communicate()[0]
            print(f"target {workers}w {label:8}: {rps(out):9.0f} req/s at 100 conns; Server-Timing over "
                  f"{len(server_ms)} sampled requests: p50 {statistics.median(server_ms):.3f} ms, "
                  f"p99 {_q(server_ms, 99):.3f} ms (target <= 1 ms)")
            # Server-Timing starts when our code reads the request; time queued in the kernel
            # and event loop before that shows only in the client's TTFB.
            print(f"{'':22}probe TTFB under load: p50 {statistics.median(ttfb):.3f} ms, p99 {_q(ttfb, 99):.3f} ms")
    finally:
        target.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    tls = bench_tls()
    for workers in sorted({1, args.workers}):
        target_row(tls, workers, args.seconds)
    nginx = Nginx(tls)
    try:
        for workers in sorted({1, args.workers}):
            nginx_workers(nginx, workers)
            for h1 in (True, False):
                label = "h1 (TLS)" if h1 else "h2"
                nload = h2load(f"https://127.0.0.1:{nginx.port}{PATH}", args.seconds, h1)
                print(f"nginx  {workers}w {label:8}: {rps(nload.communicate()[0]):9.0f} req/s at 100 conns (same file)")
    finally:
        nginx.stop()


if __name__ == "__main__":
    main()
