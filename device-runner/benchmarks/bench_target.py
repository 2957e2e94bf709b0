"""Target server cost under load (DESIGN §11: adds <= 1 ms p99 Server-Timing at 100
concurrent connections), requests/s beside nginx serving the same files. No pass/fail.

h2load holds 100 connections busy; meanwhile a probe session on one more connection
samples Server-Timing. Run: ../.venv/bin/python benchmarks/bench_target.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import time

from _servers import Nginx, Target, bench_tls

from latencylab_runner.probe import Origin, ProbeRequest, open_session

PATH = "/files/mid-03"


def h2load(url: str, seconds: int, h1: bool) -> subprocess.Popen[str]:
    args = ["h2load", "-c", "100", "-D", str(seconds), "--warm-up-time=1"]
    if h1:
        args.append("--h1")
    return subprocess.Popen(args + [url], stdout=subprocess.PIPE, text=True)


def rps(output: str) -> float:
    m = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", output)
    return float(m.group(1)) if m else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=5)
    args = ap.parse_args()
    tls = bench_tls()
    target = Target(tls)
    nginx = Nginx(tls)
    try:
        for h1 in (True, False):
            label = "h1 (TLS)" if h1 else "h2"
            load = h2load(f"https://127.0.0.1:{target.tls_port}{PATH}", args.seconds, h1)
            time.sleep(1.2)
            origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
            server_us, ttfb = [], []
            with open_session(protocol="h1" if h1 else "h2", connection="warm", origin=origin,
                              ca_file=str(tls.ca_cert)) as s:
                while load.poll() is None:
                    f = s.fetch(ProbeRequest("GET", PATH))
                    if f["server_time_us"] is not None:
                        server_us.append(f["server_time_us"] / 1000)
                        ttfb.append((f["resp_first_byte"] - f["req_start"]) / 1000)
            out = load.communicate()[0]
            q = statistics.quantiles(server_us, n=100) if len(server_us) > 2 else [float("nan")] * 99
            print(f"target {label:8}: {rps(out):9.0f} req/s at 100 conns; Server-Timing over {len(server_us)} "
                  f"sampled requests: p50 {statistics.median(server_us):.3f} ms, p99 {q[98]:.3f} ms (target <= 1 ms)")
            tq = statistics.quantiles(ttfb, n=100) if len(ttfb) > 2 else [float("nan")] * 99
            # Server-Timing starts when our code reads the request; time queued in the kernel
            # and event loop before that shows only in the client's TTFB.
            print(f"                    probe TTFB under load: p50 {statistics.median(ttfb):.3f} ms, p99 {tq[98]:.3f} ms")
            nload = h2load(f"https://127.0.0.1:{nginx.port}{PATH}", args.seconds, h1)
            print(f"nginx  {label:8}: {rps(nload.communicate()[0]):9.0f} req/s at 100 conns (same file)")
    finally:
        target.stop()
        nginx.stop()


if __name__ == "__main__":
    main()
