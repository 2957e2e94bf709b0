"""The MID image series with concurrency on the emulated transatlantic link (95 ms RTT),
LatencyLab's host probe beside curl doing the same (issue: customers' own requests,
"Measured"). Prints figures; no pass/fail. Needs root (network namespaces).

    sudo ../.venv/bin/python benchmarks/bench_series_concurrency.py [--runs 3]

Each run is a cold start: the 24 MID images (period 24) fetched on fresh connections,
    sequential HTTP/1.1, sequential HTTP/2, HTTP/1.1 over 4 parallel connections,
    HTTP/2 multiplexed (every request on one connection),
by the probe (a job document through the host harness, like a runner executes a block)
and by curl 7.88 (`--parallel --parallel-max 4` / `--http2 --parallel`), one process per
run. Series time = first request issued → last response completed: for the probe from
the samples' wall_time and app_done, for curl the wall time of the process minus its
start-up (measured with `curl --version`, subtracted). All traffic stays between the
link's two namespaces on 198.18.0.0/15.
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
from pathlib import Path

from latencylab_runner.netlab import EmulatedLink

DEVICE_RUNNER = Path(__file__).resolve().parent.parent
IMAGES = [f"/files/mid-{i:02d}" for i in range(1, 25)]
MODES = {  # name → (protocol, concurrency group?, HTTP/1.1 connections)
    "h1 sequential": ("h1", False, 1), "h2 sequential": ("h2", False, 1),
    "h1 parallel 4": ("h1", True, 4), "h2 multiplexed": ("h2", True, 4),
}

# Runs in the client namespace: one job per run (cold: the first request opens the connections).
PROBE_SCRIPT = textwrap.dedent("""
    import json, sys
    from latencylab_runner.drivers.probe_harness import execute_job
    cfg = json.loads(sys.argv[1])
    pem = open(cfg["ca_file"]).read()
    requests = [{"seq": i, "arm": "a", "phase": "measure", "op": "file", "method": "GET", "path": path,
                 "period": 24, "repetition": 0, "step": i, **({"group": 0} if cfg["grouped"] else {})}
                for i, path in enumerate(cfg["paths"])]
    job = {"contract": "latencylab.job/v1", "run_id": "bench", "block": 0, "attempt": 1, "timeout_ms": 60000,
           "max_parallel": cfg["parallel"], "requests": requests,
           "arms": [{"label": "a", "protocol": cfg["protocol"], "connection": "warm", "origin": cfg["origin"],
                     "server_name": None, "ca_bundle_pem": pem}]}
    result = execute_job(job)
    samples = result["samples"]
    assert all(s["error_class"] is None for s in samples), [s["error_detail"] for s in samples]
    start = min(s["wall_time"] for s in samples)
    end = max(s["wall_time"] + s["app_done"] for s in samples)
    print(json.dumps({"series_ms": (end - start) / 1000, "connections": len({s["conn_id"] for s in samples}),
                      "bytes": sum(s["resp_bytes"] for s in samples)}))
""")


def curl_argv(protocol: str, grouped: bool, parallel: int, origin: str, ca_file: str) -> list[str]:
    argv = ["curl", "-sS", "--fail", "--cacert", ca_file, "--http2" if protocol == "h2" else "--http1.1"]
    if grouped:
        argv += ["--parallel", "--parallel-max", str(parallel if protocol == "h1" else len(IMAGES))]
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tls_dir, EmulatedLink("transatlantic", backend="userspace") as link:
        srv = link.spawn_in_server(
            [sys.executable, "-m", "latencylab_runner.target", "--host", link.server_addr, "--plain-port", "-1",
             "--tls-port", "8443", "--tls-dir", tls_dir, "--no-h3"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
        ready = json.loads(srv.stdout.readline())
        origin = f"https://{link.server_addr}:{ready['tls_port']}"
        ca_file = str(ready["ca_file"])
        startup = statistics.median(timed(link, ["curl", "--version"]) for _ in range(3))
        python_startup = statistics.median(
            timed(link, [sys.executable, "-c", "import latencylab_runner.drivers.probe_harness"]) for _ in range(2))
        print(f"== MID series, period 24, transatlantic (95 ms RTT), cold start, {args.runs} runs each ==")
        print(f"{'mode':16} {'probe ms (runs)':34} {'curl ms (runs)':34} {'probe/curl':>10}")
        medians: dict[str, tuple[float, float]] = {}
        for name, (protocol, grouped, parallel) in MODES.items():
            probe_runs, curl_runs, connections = [], [], set()
            for _ in range(args.runs):  # interleaved: drift hits both alike
                cfg = {"protocol": protocol, "grouped": grouped, "parallel": parallel, "origin": origin,
                       "ca_file": ca_file, "paths": IMAGES}
                p = link.run_in_client([sys.executable, "-c", PROBE_SCRIPT, json.dumps(cfg)], timeout=120,
                                       cwd=DEVICE_RUNNER)
                if p.returncode != 0:
                    raise RuntimeError(p.stderr[-2000:])
                out = json.loads(p.stdout)
                probe_runs.append(out["series_ms"])
                connections.add(out["connections"])
                curl_runs.append(timed(link, curl_argv(protocol, grouped, parallel, origin, ca_file)) - startup)
            pm, cm = statistics.median(probe_runs), statistics.median(curl_runs)
            medians[name] = (pm, cm)
            fmt = lambda xs: " ".join(f"{x:7.0f}" for x in xs)  # noqa: E731
            print(f"{name:16} {fmt(probe_runs):34} {fmt(curl_runs):34} {pm / cm:10.3f}  "
                  f"connections={sorted(connections)}")
        h1, h2 = medians["h1 parallel 4"], medians["h2 multiplexed"]
        print(f"gain of h2 multiplexed over h1 parallel 4: probe {100 * (h1[0] - h2[0]) / h1[0]:.1f} %, "
              f"curl {100 * (h1[1] - h2[1]) / h1[1]:.1f} %")
        print(f"(curl start-up {startup:.0f} ms subtracted; python start-up {python_startup:.0f} ms not in the probe's "
              f"figures, which come from its samples)")
        print("link:", json.dumps({d: {k: v for k, v in s.items() if k in ("delivered", "dropped_loss", "late_max_s")}
                                    for d, s in link.stats().items() if isinstance(s, dict)}))


if __name__ == "__main__":
    main()
