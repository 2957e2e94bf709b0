"""The MID image series with concurrency on the emulated transatlantic link (95 ms RTT),
LatencyLab's host probe beside curl doing the same (issue 10, "Measured"). Prints figures;
no pass/fail. Needs root (network namespaces).

    sudo ../.venv/bin/python benchmarks/bench_series_concurrency.py [--runs 5]

Each run is a cold start: the 24 MID images (period 24) fetched on fresh connections,
    sequential HTTP/1.1, sequential HTTP/2, HTTP/1.1 over 4 parallel connections,
    HTTP/2 multiplexed (every request on one connection).
The probe goes through the runner's workload path: a spec with `concurrency` (what the
service sends a runner) is planned into one job per block (workloads/plan.py →
workloads/job.py) and executed by the host harness (drivers/probe_harness.py), one
block per run, so each run starts without connections. curl 7.88 runs one process per run:
`--parallel --parallel-max 4` for HTTP/1.1, and also with `--parallel-immediate` (see
below), `--http2 --parallel` for multiplexing.

Series time = first request issued → last response completed: for the probe from the
samples' wall_time and app_done, exactly as the service's analysis computes it
(apps/results/analysis: series_span); for curl the wall time of the process minus its
start-up (measured with `curl --version`, subtracted). All traffic stays between the
link's two namespaces on 198.18.0.0/15.

Why curl needs --parallel-immediate for HTTP/1.1: without it, curl's parallel mode waits
for the first connection to finish its handshake to learn whether the next transfers can
be multiplexed on it (pipewait); only then does it open the other three HTTP/1.1
connections — about 2 RTT later than an app's HTTP stack, which opens them at once.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import replace
from pathlib import Path

from latencylab_tools.netlab import EmulatedLink
from latencylab_tools.netlab.presets import PRESETS

DEVICE_RUNNER = Path(__file__).resolve().parent.parent
IMAGES = [f"/files/mid-{i:02d}" for i in range(1, 25)]
# mode → (arm protocol, the spec's workload.concurrency)
MODES = {
    "h1 sequential": ("h1", "sequential"), "h2 sequential": ("h2", "sequential"),
    "h1 parallel 4": ("h1", {"parallel": 4}), "h2 parallel 4": ("h2", {"parallel": 4}),
}

# Runs in the client namespace: the spec → plan → job → host harness, one block per run.
# Both arms of a mode share a spec (h1 and h2 interleaved in each block, as in a comparison);
# each block starts without connections (sessions never outlive a block).
PROBE_SCRIPT = textwrap.dedent("""
    import json, sys
    from latencylab_runner.drivers.probe_harness import execute_job
    from latencylab_runner.drivers.targets import ReferenceTarget
    from latencylab_runner.workloads.job import build_job
    cfg = json.loads(sys.argv[1])
    spec = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": cfg["runs"],
                         "warmup": 0, "gap_ms": 0, "concurrency": cfg["concurrency"]},
            "arms": [{"label": p, "protocol": p, "connection": "warm"} for p in ("h1", "h2")],
            "blocks": cfg["runs"], "seed": 24, "timeout_s": 60}
    target = ReferenceTarget(cfg["host"], 9, cfg["port"], cfg["host"], cfg["ca_file"])
    out = {"h1": [], "h2": []}
    for block in range(cfg["runs"]):
        job = build_job(spec, run_id="bench", block=block, attempt=1, target=target)
        samples = execute_job(job)["samples"]
        assert all(s["error_class"] is None for s in samples), [s["error_detail"] for s in samples]
        for arm in out:
            mine = [s for s in samples if s["arm"] == arm]
            start = min(s["wall_time"] for s in mine)
            end = max(s["wall_time"] + s["app_done"] for s in mine)
            out[arm].append({"series_ms": (end - start) / 1000, "connections": len({s["conn_id"] for s in mine}),
                             "peak_in_flight": max(s.get("in_flight") or 1 for s in mine),
                             "bytes": sum(s["resp_bytes"] for s in mine)})
    print(json.dumps(out))
""")


def curl_argv(protocol: str, concurrency: object, origin: str, ca_file: str, *, immediate: bool = False) -> list[str]:
    argv = ["curl", "-sS", "--fail", "--cacert", ca_file, "--http2" if protocol == "h2" else "--http1.1"]
    if isinstance(concurrency, dict):
        argv += ["--parallel", "--parallel-max", str(concurrency["parallel"] if protocol == "h1" else len(IMAGES))]
        if immediate:
            argv.append("--parallel-immediate")
    for path in IMAGES:
        argv += [f"{origin}{path}", "-o", "/dev/null"]
    return argv


def timed(link: EmulatedLink, argv: list[str]) -> float:
    start = time.perf_counter()
    p = link.run_in_client(argv, timeout=120)
    elapsed = (time.perf_counter() - start) * 1000
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {p.returncode}: {p.stderr[-500:]}")
    return elapsed


def probe_runs(link: EmulatedLink, cfg: dict) -> dict[str, list[dict]]:
    p = link.run_in_client([sys.executable, "-c", PROBE_SCRIPT, json.dumps(cfg)], timeout=600, cwd=DEVICE_RUNNER)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout)


def fmt(xs: list[float]) -> str:
    return " ".join(f"{x:5.0f}" for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lossless", action="store_true",
                        help="the transatlantic RTT without its 0.1 %% loss: the control that tells loss from client")
    args = parser.parse_args()
    profile = PRESETS["transatlantic"]
    if args.lossless:
        profile = replace(profile, name="transatlantic-lossless", down=replace(profile.down, loss_pct=0.0),
                          up=replace(profile.up, loss_pct=0.0))
    with tempfile.TemporaryDirectory() as tls_dir, EmulatedLink(profile, backend="userspace") as link:
        srv = link.spawn_in_server(
            [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr, "--plain-port", "-1",
             "--tls-port", "8443", "--tls-dir", tls_dir, "--no-h3"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
        ready = json.loads(srv.stdout.readline())
        origin = f"https://{link.server_addr}:{ready['tls_port']}"
        ca_file = str(ready["ca_file"])
        startup = statistics.median(timed(link, ["curl", "--version"]) for _ in range(3))
        print(f"== MID series, period 24, {profile.name} (95 ms RTT), cold start, {args.runs} runs each ==")
        width = 6 * args.runs
        print(f"{'mode':16} {'probe ms (runs)':{width}} {'curl ms (runs)':{width}} {'probe/curl':>10}")
        medians: dict[str, tuple[float, float]] = {}
        by_concurrency: dict[str, dict] = {}
        for concurrency in ("sequential", {"parallel": 4}):
            key = json.dumps(concurrency)
            by_concurrency[key] = probe_runs(link, {"concurrency": concurrency, "runs": args.runs,
                                                    "host": link.server_addr, "port": ready["tls_port"],
                                                    "ca_file": ca_file})
        curl_immediate: list[float] = []
        for name, (protocol, concurrency) in MODES.items():
            runs = by_concurrency[json.dumps(concurrency)][protocol]
            probe = [r["series_ms"] for r in runs]
            curl = [timed(link, curl_argv(protocol, concurrency, origin, ca_file)) - startup for _ in range(args.runs)]
            if name == "h1 parallel 4":
                curl_immediate = [timed(link, curl_argv(protocol, concurrency, origin, ca_file, immediate=True))
                                  - startup for _ in range(args.runs)]
            pm, cm = statistics.median(probe), statistics.median(curl)
            medians[name] = (pm, cm)
            print(f"{name:16} {fmt(probe):{width}} {fmt(curl):{width}} {pm / cm:10.3f}  "
                  f"connections={sorted({r['connections'] for r in runs})} "
                  f"peak_in_flight={sorted({r['peak_in_flight'] for r in runs})}")
            if curl_immediate and name == "h1 parallel 4":
                im = statistics.median(curl_immediate)
                medians["h1 parallel 4 (curl --parallel-immediate)"] = (pm, im)
                print(f"{'  curl --parallel-immediate':{17 + width}} {fmt(curl_immediate):{width}} {pm / im:10.3f}")
        h1, h2 = medians["h1 parallel 4 (curl --parallel-immediate)"], medians["h2 parallel 4"]
        print(f"gain of h2 multiplexed over h1 parallel 4 (series time): probe {100 * (h1[0] - h2[0]) / h1[0]:.1f} %, "
              f"curl (--parallel-immediate) {100 * (h1[1] - h2[1]) / h1[1]:.1f} %")
        h1s, h2s = medians["h1 sequential"], medians["h2 sequential"]
        print(f"gain of h2 over h1, sequential: probe {100 * (h1s[0] - h2s[0]) / h1s[0]:.1f} %, "
              f"curl {100 * (h1s[1] - h2s[1]) / h1s[1]:.1f} %")
        print(f"(curl start-up {startup:.0f} ms subtracted; the probe's figures come from its samples)")
        print("link:", json.dumps({d: {k: v for k, v in s.items() if k in ("delivered", "dropped_loss", "late_max_s")}
                                    for d, s in link.stats().items() if isinstance(s, dict)}))


if __name__ == "__main__":
    main()
