"""The MID series with concurrency over the emulated transatlantic link (issue 10; needs root).

The spec the service sends a runner (period 24, `concurrency: {parallel: 4}`, arms HTTPS/1.1
and HTTP/2) is planned and run exactly as a runner does (plan_block → build_job →
execute_job) in the link's client namespace, against the reference target in its server
namespace, so every handshake crosses the 95 ms RTT. Checked: structure, not speed — the
24 images arrive whole on every arm, HTTP/1.1 spreads them over 4 connections with at most
4 in flight, HTTP/2 writes all 24 streams on one connection (in flight 1 … 24), and the
series span covers at least the handshakes and one request (≥ 3 RTT for HTTP/1.1's TCP +
TLS + request, a physical floor). The series times and the gain are printed (`pytest -s`);
bench_series_concurrency.py measures them beside curl (docs/methodology.md §6.5).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from latencylab_tools.netlab import EmulatedLink

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the emulated link needs root (network namespaces and TUN devices)")

DEVICE_RUNNER = Path(__file__).resolve().parent.parent
RTT_US = 95_000
MID_BYTES = 1_615_506

# Runs in the client namespace: one block of the spec, every sample as JSON on stdout.
RUN_BLOCK = textwrap.dedent("""
    import json, sys
    from latencylab_runner.drivers.probe_harness import execute_job
    from latencylab_runner.drivers.targets import ReferenceTarget
    from latencylab_runner.workloads.job import build_job
    cfg = json.loads(sys.argv[1])
    spec = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": 1,
                         "warmup": 0, "gap_ms": 0, "concurrency": {"parallel": 4}},
            "arms": [{"label": "https-h1", "protocol": "h1", "connection": "warm"},
                     {"label": "h2", "protocol": "h2", "connection": "warm"}],
            "blocks": 1, "seed": 24, "timeout_s": 60}
    job = build_job(spec, run_id="link", block=0, attempt=1,
                    target=ReferenceTarget(cfg["host"], 9, cfg["port"], cfg["host"], cfg["ca_file"]))
    print(json.dumps({"max_parallel": job["max_parallel"], "samples": execute_job(job)["samples"]}))
""")


@pytest.fixture(scope="module")
def block() -> dict:
    with tempfile.TemporaryDirectory() as tls_dir, EmulatedLink("transatlantic", backend="userspace") as link:
        server = link.spawn_in_server(
            [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr, "--plain-port", "-1",
             "--tls-port", "8443", "--tls-dir", tls_dir, "--no-h3"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
        try:
            ready = json.loads(server.stdout.readline())
            cfg = {"host": link.server_addr, "port": ready["tls_port"], "ca_file": str(ready["ca_file"])}
            run = link.run_in_client([sys.executable, "-c", RUN_BLOCK, json.dumps(cfg)], timeout=180,
                                     cwd=DEVICE_RUNNER)
            assert run.returncode == 0, run.stderr[-2000:]
            return json.loads(run.stdout)
        finally:
            server.terminate()
            server.wait(timeout=10)


def series(block: dict, arm: str) -> list[dict]:
    return [s for s in block["samples"] if s["arm"] == arm]


def span_us(samples: list[dict]) -> int:
    return max(s["wall_time"] + s["app_done"] for s in samples) - min(s["wall_time"] for s in samples)


@pytest.mark.parametrize("arm", ["https-h1", "h2"])
def test_every_image_arrives_whole_over_the_link(block, arm):
    samples = series(block, arm)
    assert [s["error_class"] for s in samples] == [None] * 24, [s["error_detail"] for s in samples]
    assert sum(s["resp_bytes"] for s in samples) == MID_BYTES
    assert sorted(s["step"] for s in samples) == list(range(24))


def test_http1_spreads_the_series_over_four_connections(block):
    samples = series(block, "https-h1")
    assert block["max_parallel"] == 4
    assert len({s["conn_id"] for s in samples}) == 4
    assert max(s["in_flight"] for s in samples) == 4
    assert {s["alpn"] for s in samples} == {"http/1.1"}
    # Four new connections, each paying its TCP and TLS handshakes across the link.
    assert sum(1 for s in samples if s["conn_reused"] is False) == 4


def test_http2_multiplexes_the_series_on_one_connection(block):
    samples = series(block, "h2")
    assert len({s["conn_id"] for s in samples}) == 1
    assert [s["in_flight"] for s in samples] == list(range(1, 25))
    assert {s["alpn"] for s in samples} == {"h2"}


def test_the_series_time_spans_the_handshakes_and_is_reported(block):
    h1, h2 = span_us(series(block, "https-h1")), span_us(series(block, "h2"))
    # A physical floor, not a speed check: TCP + TLS 1.3 + one request, 3 RTT of 95 ms.
    assert h1 >= 3 * RTT_US
    assert h2 >= 3 * RTT_US
    print(f"\nMID series, period 24, parallel 4, transatlantic: HTTPS/1.1 {h1 / 1000:.0f} ms, "
          f"HTTP/2 {h2 / 1000:.0f} ms, gain {100 * (h1 - h2) / h1:.1f} %")
