"""Probe accuracy and overhead (DESIGN §11). Prints figures; no pass/fail.

1. probe vs curl -w phase timings, same requests (h1, h2 × cold, warm)
2. probe warm h2 per-request time vs h2load on the same server
3. Nagle trap on vs off (h1c warm)

Run: ../.venv/bin/python benchmarks/bench_probe.py [--n 200]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import time

from _servers import Target, bench_tls

from latencylab_runner.probe import Origin, ProbeRequest, open_session

PATH = "/files/mid-03"  # 5 KB: latency-dominated


def probe_phases(origin, protocol, policy, ca, n):
    out = {"connect": [], "tls": [], "ttfb": [], "total": []}
    with open_session(protocol=protocol, connection=policy, origin=origin, ca_file=ca) as s:
        s.fetch(ProbeRequest("GET", PATH))  # warm-up
        for _ in range(n):
            f = s.fetch(ProbeRequest("GET", PATH))
            assert f["error_class"] is None, f
            if f["conn_start"] is not None:
                out["connect"].append((f["tls_start"] - f["conn_start"]) / 1000)
                out["tls"].append((f["conn_ready"] - f["tls_start"]) / 1000)
            out["ttfb"].append((f["resp_first_byte"] - f["req_start"]) / 1000)
            out["total"].append(f["resp_end"] / 1000)
    return out


def curl_phases(port, protocol, policy, ca, n):
    fmt = "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total}\\n"
    url = f"https://localhost:{port}{PATH}"
    base = ["curl", "-s", "--cacert", ca, "--resolve", f"localhost:{port}:127.0.0.1",
            "--http2" if protocol == "h2" else "--http1.1", "-w", fmt]
    lines: list[str] = []
    if policy == "cold":
        for _ in range(n):
            # One process per request: this includes curl's own CA-file load in its TLS phase.
            lines += subprocess.run(base + [url, "-o", "/dev/null"], capture_output=True, text=True, check=True).stdout.split("\n")
    else:
        # One curl process, n+1 URLs: the connection is reused after the first.
        urls = [a for _ in range(n + 1) for a in (url, "-o", "/dev/null")]
        lines = subprocess.run(base + urls, capture_output=True, text=True, check=True).stdout.split("\n")[1:]
    out = {"connect": [], "tls": [], "ttfb": [], "total": []}
    for line in filter(None, lines):
        dns, conn, app, pre, start, total = (float(x) * 1000 for x in line.split())
        if policy == "cold":
            out["connect"].append(conn - dns)
            out["tls"].append(app - conn)
        out["ttfb"].append(start - pre)
        out["total"].append(total)
    return out


def agreement(n, target, ca):
    print(f"\n== probe vs curl -w (median ms, {n} requests each, {PATH}) ==")
    print(f"{'arm':10} {'phase':8} {'probe':>8} {'curl':>8} {'diff':>8} {'diff%':>7}  within 5% or 0.5ms")
    origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
    for protocol in ("h1", "h2"):
        for policy in ("cold", "warm"):
            p = probe_phases(origin, protocol, policy, ca, n)
            c = curl_phases(target.tls_port, protocol, policy, ca, n)
            for phase in ("connect", "tls", "ttfb", "total"):
                if not p[phase] or not c[phase]:
                    continue
                mp, mc = statistics.median(p[phase]), statistics.median(c[phase])
                diff = mp - mc
                pct = 100 * diff / mc if mc else float("nan")
                ok = abs(diff) <= 0.5 or abs(pct) <= 5
                print(f"{protocol + '-' + policy:10} {phase:8} {mp:8.3f} {mc:8.3f} {diff:+8.3f} {pct:+6.1f}%  {'yes' if ok else 'NO'}")


def overhead(n, target, ca):
    print(f"\n== warm h2 per-request time: probe vs h2load ({n} sequential requests, {PATH}) ==")
    origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
    with open_session(protocol="h2", connection="warm", origin=origin, ca_file=ca) as s:
        for _ in range(50):
            s.fetch(ProbeRequest("GET", PATH))
        start = time.perf_counter()
        totals = [s.fetch(ProbeRequest("GET", PATH))["app_done"] / 1000 for _ in range(n)]
        probe_wall = (time.perf_counter() - start) * 1000 / n
    out = subprocess.run(["h2load", "-n", str(n), "-c", "1", "-m", "1", "--warm-up-time=0",
                          f"https://127.0.0.1:{target.tls_port}{PATH}"], capture_output=True, text=True).stdout
    finished = re.search(r"finished in ([\d.]+)(m?s)", out)
    h2load_total = float(finished.group(1)) * (1 if finished.group(2) == "ms" else 1000)
    req_line = re.search(r"time for request:\s+([\d.]+)(us|ms)\s+([\d.]+)(us|ms)\s+([\d.]+)(us|ms)", out)
    to_ms = lambda v, u: float(v) / (1000 if u == "us" else 1)  # noqa: E731
    h2load_mean = to_ms(req_line.group(5), req_line.group(6)) if req_line else float("nan")
    per_req = h2load_total / n
    print(f"probe   median app_done {statistics.median(totals):.3f} ms, wall per request {probe_wall:.3f} ms")
    print(f"h2load  mean time for request {h2load_mean:.3f} ms, wall per request {per_req:.3f} ms (incl. handshake)")
    print(f"ratio probe/h2load (median app_done / h2load mean request): {statistics.median(totals) / h2load_mean:.2f}  (target <= 1.5)")


def nagle(n, tls):
    print(f"\n== Nagle trap: h1c warm GET /bytes/100, {n} requests ==")
    for label, extra in (("off", ()), ("on", ("--nagle-trap",))):
        t = Target(tls, "--no-h3", *extra)
        try:
            with open_session(protocol="h1c", connection="warm", origin=Origin("http", "127.0.0.1", t.plain_port)) as s:
                s.fetch(ProbeRequest("GET", "/bytes/100"))
                totals = [s.fetch(ProbeRequest("GET", "/bytes/100"))["app_done"] / 1000 for _ in range(n)]
        finally:
            t.stop()
        q = statistics.quantiles(totals, n=10)
        print(f"trap {label:3}: median {statistics.median(totals):7.3f} ms  p10 {q[0]:7.3f}  p90 {q[-1]:7.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    tls = bench_tls()
    target = Target(tls)
    try:
        agreement(args.n, target, str(tls.ca_cert))
        overhead(max(args.n, 1000), target, str(tls.ca_cert))
    finally:
        target.stop()
    nagle(min(args.n, 50), tls)


if __name__ == "__main__":
    main()
