"""Per-object times of the MID series after the runner's pauses, beside production peers
taking the same requests in the same order with the same pauses (methodology §6.11). Prints
figures; no pass/fail. Needs root (network namespaces).

    sudo ../.venv/bin/python benchmarks/bench_series_objects.py [--no-slow-start-after-idle]

The series is planned as a comparison plans it (spec → plan → job: warm connections, h1, h2
and h3 interleaved ABBA, each block starting with one warm-up per arm, 24 objects in order,
3 blocks) and replayed over a lossless 95 ms link by
    ours:  the host probe → the reference target (the harness runs the job as a runner does);
    peers: libcurl (pycurl; nghttp2 for h2, ngtcp2 for h3) → nginx (h1, h2) and quic-go's
           http3.Server (h3), request for request in the job's order, one handle per arm,
           new handles per block: the same connections, pauses and order.
Printed per arm: the first measured object of each block (total and time to first byte),
the median total per object over the blocks, the 309 KB object. `--no-slow-start-after-idle`
sets net.ipv4.tcp_slow_start_after_idle = 0 in the server namespace: the control showing which
round trips the kernel's window restart after idle accounts for. All traffic stays between
the link's two namespaces on 198.18.0.0/15.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from latencylab_tools.netlab import EmulatedLink
from latencylab_tools.netlab.presets import PRESETS
from peer_matrix import DEVICE_RUNNER, start_servers, workdir

_base = PRESETS["transatlantic"]
LOSSLESS_95 = replace(_base, name="rtt95-lossless", down=replace(_base.down, loss_pct=0.0),
                      up=replace(_base.up, loss_pct=0.0))
SPEC = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": 3, "warmup": 1,
                     "gap_ms": 0},
        "arms": [{"label": p, "protocol": p, "connection": "warm"} for p in ("h1", "h2", "h3")],
        "blocks": 3, "seed": 5, "timeout_s": 60}
PEER_SERVER = {"h1": "nginx", "h2": "nginx", "h3": "quic-go"}

# Runs in the client namespace: every block's job, by our harness or by libcurl, each arm's
# requests to the server the map names; one JSON list of samples on stdout.
CLIENT_SCRIPT = textwrap.dedent("""
    import io, json, sys, time
    from latencylab_runner.drivers.probe_harness import execute_job
    from latencylab_runner.drivers.targets import ReferenceTarget
    from latencylab_runner.workloads.job import build_job
    cfg = json.loads(sys.argv[1])
    out = []
    def keep(block, request, total_ms, ttfb_ms):
        out.append({"block": block, "arm": request["arm"], "phase": request["phase"], "step": request.get("step"),
                    "path": request["path"], "total": total_ms, "ttfb": ttfb_ms})
    for block in range(cfg["spec"]["blocks"]):
        job = build_job(cfg["spec"], run_id="bench", block=block, attempt=1,
                        target=ReferenceTarget(cfg["host"], 9, 9, cfg["host"], cfg["ca_file"]))
        for arm in job["arms"]:
            arm["origin"], arm["server_name"] = f"https://{cfg['host']}:{cfg['ports'][arm['label']]}", "localhost"
        if cfg["client"] == "probe":
            for s in execute_job(job)["samples"]:
                assert s["error_class"] is None, s["error_detail"]
                keep(block, job["requests"][s["seq"]], (s["resp_end"] - s["req_start"]) / 1000,
                     (s["resp_first_byte"] - s["req_start"]) / 1000)
            continue
        import pycurl
        version = {"h1": pycurl.CURL_HTTP_VERSION_1_1, "h2": pycurl.CURL_HTTP_VERSION_2TLS,
                   "h3": pycurl.CURL_HTTP_VERSION_3ONLY}
        arms, handles = {a["label"]: a for a in job["arms"]}, {}
        for request in job["requests"]:
            arm = arms[request["arm"]]
            if arm["label"] not in handles:
                handles[arm["label"]] = c = pycurl.Curl()
                c.setopt(pycurl.CAINFO, cfg["ca_file"])
                c.setopt(pycurl.SSL_VERIFYHOST, 0)  # the certificate names localhost, the link an address
                c.setopt(pycurl.HTTP_VERSION, version[arm["protocol"]])
            c = handles[arm["label"]]
            c.setopt(pycurl.URL, arm["origin"] + request["path"])
            c.setopt(pycurl.WRITEDATA, io.BytesIO())
            c.perform()
            assert c.getinfo(pycurl.RESPONSE_CODE) == 200
            start = c.getinfo(pycurl.PRETRANSFER_TIME)
            keep(block, request, (c.getinfo(pycurl.TOTAL_TIME) - start) * 1000,
                 (c.getinfo(pycurl.STARTTRANSFER_TIME) - start) * 1000)
        for c in handles.values():
            c.close()
    print(json.dumps(out))
""")


def replay(link: EmulatedLink, servers, client: str, server_of: dict[str, str]) -> list[dict]:
    cfg = {"client": client, "spec": SPEC, "host": servers.host, "ca_file": servers.ca_file,
           "ports": {arm: servers.ports[server] for arm, server in server_of.items()}}
    p = link.run_in_client([sys.executable, "-c", CLIENT_SCRIPT, json.dumps(cfg)], timeout=900, cwd=DEVICE_RUNNER)
    if p.returncode != 0:
        raise RuntimeError(f"{client}: exit {p.returncode}: {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def show(label: str, samples: list[dict]) -> None:
    print(f"\n{label}")
    for arm in ("h1", "h2", "h3"):
        measured = [s for s in samples if s["arm"] == arm and s["phase"] == "measure"]
        firsts = [next(s for s in measured if s["block"] == b) for b in range(SPEC["blocks"])]
        per_object = [round(statistics.median(s["total"] for s in measured if s["step"] == step))
                      for step in range(24)]
        big = [round(s["total"]) for s in measured if s["path"].endswith("mid-21")]
        print(f"  {arm}: first measured object total {[round(s['total']) for s in firsts]} ms, "
              f"time to first byte {[round(s['ttfb']) for s in firsts]} ms; 309 KB {big} ms")
        print(f"      median per object {per_object}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-slow-start-after-idle", action="store_true")
    args = parser.parse_args()
    with ExitStack() as stack, workdir() as wd:
        link = stack.enter_context(EmulatedLink(LOSSLESS_95, backend="userspace"))
        servers = start_servers(link, stack, Path(wd))
        restart = 0 if args.no_slow_start_after_idle else 1
        link.run_in_server(["sysctl", "-qw", f"net.ipv4.tcp_slow_start_after_idle={restart}"], timeout=10)
        print(f"lossless 95 ms link, TCP {link.congestion_control}, net.ipv4.tcp_slow_start_after_idle = {restart}")
        show("ours: probe → reference target", replay(link, servers, "probe", dict.fromkeys(PEER_SERVER, "target")))
        show("peers: libcurl → nginx (h1, h2), quic-go (h3)", replay(link, servers, "curl", PEER_SERVER))


if __name__ == "__main__":
    main()
