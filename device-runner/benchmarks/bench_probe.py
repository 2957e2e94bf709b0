"""Probe accuracy and overhead (targets: docs/operations.md, "Targets"). Prints figures; no pass/fail.

1. probe vs libcurl (pycurl, the engine behind curl -w) phase timings, interleaved
   requests (h1, h2 × cold, warm); see docs/methodology.md for the phase mapping
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
from latencylab_tools.probe import Origin, ProbeRequest, open_session

PATH = "/files/mid-03"  # 5 KB: latency-dominated


PHASES = ("connect", "tls", "pretransfer", "send", "ttfb", "tls+ttfb", "total")


def _probe_phases(f) -> dict[str, float]:
    assert f["error_class"] is None, f
    out = {"pretransfer": f["req_start"] / 1000, "send": (f["req_end"] - f["req_start"]) / 1000,
           "ttfb": (f["resp_first_byte"] - f["req_start"]) / 1000, "total": f["resp_end"] / 1000}
    if f["conn_start"] is not None:
        out["connect"] = (f["tls_start"] - f["conn_start"]) / 1000
        out["tls"] = (f["conn_ready"] - f["tls_start"]) / 1000
        # Immune to where each client draws the handshake-done line (see methodology.md).
        out["tls+ttfb"] = (f["resp_first_byte"] - f["tls_start"]) / 1000
    return out


class LibCurl:
    """libcurl (via pycurl) in this process: one easy handle for the whole run, so the CA
    store is loaded once (libcurl's CA cache) exactly like the probe's one SSLContext.
    cold = FRESH_CONNECT + FORBID_REUSE + no TLS session cache; warm = reuse."""

    def __init__(self, port: int, protocol: str, policy: str, ca: str):
        import pycurl

        self.pycurl = pycurl
        c = self.c = pycurl.Curl()
        c.setopt(pycurl.URL, f"https://localhost:{port}{PATH}")
        c.setopt(pycurl.RESOLVE, [f"localhost:{port}:127.0.0.1"])
        c.setopt(pycurl.CAINFO, ca)
        c.setopt(pycurl.HTTP_VERSION,
                 pycurl.CURL_HTTP_VERSION_2TLS if protocol == "h2" else pycurl.CURL_HTTP_VERSION_1_1)
        c.setopt(pycurl.WRITEFUNCTION, lambda b: None)
        if policy == "cold":
            c.setopt(pycurl.FRESH_CONNECT, 1)
            c.setopt(pycurl.FORBID_REUSE, 1)
            c.setopt(pycurl.SSL_SESSIONID_CACHE, 0)
        self.cold = policy == "cold"

    def fetch(self) -> dict[str, float]:
        p, c = self.pycurl, self.c
        c.perform()
        us = lambda opt: c.getinfo(opt) / 1000  # noqa: E731 - *_TIME_T are µs
        dns, conn, app, pre, post, start, total = (us(o) for o in (
            p.NAMELOOKUP_TIME_T, p.CONNECT_TIME_T, p.APPCONNECT_TIME_T, p.PRETRANSFER_TIME_T,
            p.POSTTRANSFER_TIME_T, p.STARTTRANSFER_TIME_T, p.TOTAL_TIME_T))
        out = {"pretransfer": pre, "send": post - pre, "ttfb": start - pre, "total": total}
        if self.cold:
            out["connect"], out["tls"], out["tls+ttfb"] = conn - dns, app - conn, start - conn
        return out

    def close(self) -> None:
        self.c.close()


def agreement(n, target, ca):
    try:
        import pycurl  # noqa: F401
    except ImportError:
        print("\n== probe vs curl: skipped (pip install pycurl: libcurl in-process keeps the comparison fair) ==")
        return
    print(f"\n== probe vs libcurl (pycurl) timings, median ms, {n} interleaved requests each, GET {PATH} ==")
    print(f"{'arm':10} {'phase':12} {'probe':>8} {'curl':>8} {'diff':>8} {'diff%':>7}  within 5% or 0.5ms")
    origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
    for protocol in ("h1", "h2"):
        for policy in ("cold", "warm"):
            probe = {k: [] for k in PHASES}
            curl = {k: [] for k in PHASES}
            lc = LibCurl(target.tls_port, protocol, policy, ca)
            with open_session(protocol=protocol, connection=policy, origin=origin, ca_file=ca) as s:
                s.fetch(ProbeRequest("GET", PATH))  # warm-up both
                lc.fetch()
                for i in range(n):
                    # Alternate who goes first (ABBA) so drift hits both alike.
                    pairs = [("probe", lambda: _probe_phases(s.fetch(ProbeRequest("GET", PATH)))), ("curl", lc.fetch)]
                    for who, fn in (pairs if i % 2 == 0 else pairs[::-1]):
                        for k, v in fn().items():
                            (probe if who == "probe" else curl)[k].append(v)
            lc.close()
            for phase in PHASES:
                if not probe[phase] or not curl[phase]:
                    continue
                mp, mc = statistics.median(probe[phase]), statistics.median(curl[phase])
                diff = mp - mc
                pct = 100 * diff / mc if mc else float("nan")
                ok = abs(diff) <= 0.5 or abs(pct) <= 5
                print(f"{protocol + '-' + policy:10} {phase:12} {mp:8.3f} {mc:8.3f} {diff:+8.3f} {pct:+6.1f}%  "
                      f"{'yes' if ok else 'NO'}")


def _h2load_mean_ms(n: int, port: int) -> float:
    out = subprocess.run(["h2load", "-n", str(n), "-c", "1", "-m", "1", "--warm-up-time=0",
                          f"https://127.0.0.1:{port}{PATH}"], capture_output=True, text=True).stdout
    req_line = re.search(r"time for request:\s+([\d.]+)(us|ms)\s+([\d.]+)(us|ms)\s+([\d.]+)(us|ms)", out)
    return float(req_line.group(5)) / (1000 if req_line.group(6) == "us" else 1) if req_line else float("nan")


def overhead(n, target, ca, rounds=3):
    """Rounds of probe and h2load alternate so machine drift hits both; best round reported
    (the machine is shared: the least disturbed round is the closest to the true cost)."""
    print(f"\n== warm h2 per-request time: probe vs h2load ({rounds} alternating rounds of {n} sequential "
          f"requests, {PATH}) ==")
    origin = Origin("https", "127.0.0.1", target.tls_port, "localhost")
    results = []
    with open_session(protocol="h2", connection="warm", origin=origin, ca_file=ca) as s:
        for _ in range(100):
            s.fetch(ProbeRequest("GET", PATH))
        for _ in range(rounds):
            cpu0 = time.process_time()
            fs = [s.fetch(ProbeRequest("GET", PATH)) for _ in range(n)]
            cpu_us = (time.process_time() - cpu0) * 1e6 / n
            app_done = statistics.median(f["app_done"] for f in fs) / 1000
            span = statistics.median(f["resp_end"] - f["req_start"] for f in fs) / 1000
            h2l = _h2load_mean_ms(n, target.tls_port)
            results.append((app_done / h2l, app_done, span, cpu_us, h2l))
            print(f"round: probe median app_done {app_done:.3f} ms (req_start..resp_end {span:.3f} ms, "
                  f"client CPU {cpu_us:.0f} µs/request); h2load mean time for request {h2l:.3f} ms; "
                  f"ratio {app_done / h2l:.2f}")
    best = min(results)
    print(f"best round: probe {best[1]:.3f} ms / h2load {best[4]:.3f} ms = {best[0]:.2f}  (target <= 1.5); "
          f"req_start..resp_end / h2load = {best[2] / best[4]:.2f}")


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
    ap.add_argument("--only", choices=("agreement", "overhead", "nagle"), default=None)
    args = ap.parse_args()
    tls = bench_tls()
    # One worker: the probe is compared on one connection, like h2load -c 1.
    target = Target(tls, "--workers", "1")
    try:
        if args.only in (None, "agreement"):
            agreement(args.n, target, str(tls.ca_cert))
        if args.only in (None, "overhead"):
            overhead(max(args.n, 1000), target, str(tls.ca_cert))
    finally:
        target.stop()
    if args.only in (None, "nagle"):
        nagle(min(args.n, 50), tls)


if __name__ == "__main__":
    main()
