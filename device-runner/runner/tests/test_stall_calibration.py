"""The service's payload-sweep stall detector (apps.results.analysis.stalls, through
sweeps.payload_sweep, as the analysis of a stored run calls it) calibrated on the reference
target's Nagle trap: the seeds/004 sweep (20 sizes, 9 of them at most 64 KiB, where the trap
writes a response's head and body separately with Nagle on, so the body waits for the
client's delayed ACK of the head) is planned and run as a runner runs a block (plan → job →
host harness) against a healthy target and a trapped one, interleaved in one block.

Judged by counts (the target in docs/operations.md): no size of the healthy target flagged,
at least 8 of the 9 trap sizes flagged. On loopback (RTT ≈ 0.1 ms, where the old "slower
than 2 × RTT" rule flags every size) and, with root, over the emulated link at 20 ms / 50
Mbit/s. bench_nagle.py prints the figures, also at 100 ms.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from latencylab_tools.target.http1 import SMALL_RESPONSE

from latencylab_runner.agent.baseline import tcp_connect_rtt
from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job

analysis = pytest.importorskip("apps.results.analysis", reason="the backend's analysis package is not installed")

# Stalls are judged by time: a loaded CPU could hide or fake a delayed ACK.
pytestmark = pytest.mark.timing

DEVICE_RUNNER = Path(__file__).resolve().parent.parent
# seeds/004: 1 KB … 2 MB log-spaced (4 per decade) plus 35,000 B and 200–400 KB.
SIZES = sorted({round(1_000 * 2_000 ** (i / 13)) for i in range(14)} | {35_000, 200_000, 250_000, 300_000,
                                                                        350_000, 400_000})
TRAP_SIZES = [n for n in SIZES if n <= SMALL_RESPONSE]


def sweep_job(healthy: str, trapped: str, repetitions: int) -> dict:
    """One block of the payload sweep with two arms, the healthy and the trapped target."""
    spec = {"workload": {"kind": "payload_sweep", "sizes": SIZES, "repetitions": repetitions, "request_bytes": 800},
            "arms": [{"label": "healthy", "protocol": "h1c", "connection": "warm", "endpoint": healthy},
                     {"label": "trap", "protocol": "h1c", "connection": "warm", "endpoint": trapped}],
            "blocks": 1, "seed": 4, "timeout_s": 30}
    # Both arms name their endpoint: the reference target the job builder wants is not used.
    host, port = healthy.removeprefix("http://").rsplit(":", 1)
    return build_job(spec, run_id="stall-calibration", block=0, attempt=1,
                     target=ReferenceTarget(host, int(port), int(port), host, None))


def flagged(samples: list[dict], rtt_ms: float) -> dict[str, list[int]]:
    """Per arm, the sizes the service's analysis flags as stalls; every size must be judged."""
    assert [s["error_detail"] for s in samples if s["error_class"]] == []
    arms = ["healthy", "trap"]
    n = len(samples)
    table = analysis.SampleTable.from_columns(
        arm=[arms.index(s["arm"]) for s in samples], device=[0] * n, profile=[0] * n,
        total_us=[s["app_done"] - s["t0"] for s in samples], resp_bytes=[s["resp_bytes"] for s in samples],
        first_on_connection=[not s["conn_reused"] for s in samples], arm_labels=arms, device_labels=["host"],
        profile_labels=["link"])
    one = np.zeros(1, dtype=np.int64)
    baselines = analysis.BlockBaselines(device=one, profile=one, block=one, rtt_avg_us=np.array([rtt_ms * 1000]),
                                        rtt_stddev_us=np.zeros(1), loss_pct=np.zeros(1))
    rows = analysis.payload_sweep(table, baselines)
    assert len(rows) == 2 * len(SIZES)
    assert all(row["stall"] is not None for row in rows)
    return {arm: [row["resp_bytes"] for row in rows if row["arm"] == arm and row["stall"]] for arm in arms}


def assert_calibrated(stalls: dict[str, list[int]]) -> None:
    caught = [n for n in stalls["trap"] if n in TRAP_SIZES]
    print(f"\nstall detector: healthy flagged {len(stalls['healthy'])}/{len(SIZES)} {stalls['healthy']}, "
          f"trap flagged {len(caught)}/{len(TRAP_SIZES)}, trap-on above 64 KiB {len(stalls['trap']) - len(caught)}")
    assert stalls["healthy"] == [], "healthy sizes flagged"
    assert len(caught) >= len(TRAP_SIZES) - 1, f"trap sizes flagged: {caught} of {TRAP_SIZES}"


def test_loopback_flags_the_trap_and_nothing_healthy(target_server, nagle_target):
    healthy = f"http://127.0.0.1:{target_server.plain_port}"
    trapped = f"http://127.0.0.1:{nagle_target.plain_port}"
    rtt_ms = tcp_connect_rtt("127.0.0.1", target_server.plain_port)["avg_ms"]
    samples = execute_job(sweep_job(healthy, trapped, repetitions=7))["samples"]
    assert_calibrated(flagged(samples, rtt_ms))


# Runs in the link's client namespace: the block, its samples as JSON on stdout.
RUN_BLOCK = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[2])
    from latencylab_runner.drivers.probe_harness import execute_job
    from test_stall_calibration import sweep_job
    cfg = json.loads(sys.argv[1])
    print(json.dumps(execute_job(sweep_job(cfg["healthy"], cfg["trapped"], cfg["repetitions"]))["samples"]))
""")


@pytest.mark.skipif(os.geteuid() != 0, reason="the emulated link needs root (network namespaces and TUN devices)")
def test_a_20_ms_link_flags_the_trap_and_nothing_healthy():
    from latencylab_tools.netlab import DirectionProfile, EmulatedLink, LinkProfile

    direction = DirectionProfile(delay_ms=10, rate_kbit=50_000)
    with tempfile.TemporaryDirectory() as tls_dir, \
            EmulatedLink(LinkProfile(name="stall-20ms", down=direction, up=direction), backend="userspace") as link:
        origins = []
        for trap in ([], ["--nagle-trap"]):
            server = link.spawn_in_server(
                [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr, "--plain-port", "0",
                 "--tls-port", "0", "--tls-dir", tls_dir, "--no-h3", *trap],
                stdout=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
            assert server.stdout is not None
            origins.append(f"http://{link.server_addr}:{json.loads(server.stdout.readline())['plain_port']}")
        measured = link.measure(rtt_samples=10, loss_packets=0, rate_seconds=0)
        assert measured.rtt_ms is not None
        assert math.isclose(measured.rtt_ms.avg, 20, abs_tol=5)
        cfg = {"healthy": origins[0], "trapped": origins[1], "repetitions": 5}
        run = link.run_in_client([sys.executable, "-c", RUN_BLOCK, json.dumps(cfg), str(Path(__file__).parent)],
                                 timeout=300, cwd=DEVICE_RUNNER)
        assert run.returncode == 0, run.stderr[-2000:]
        assert_calibrated(flagged(json.loads(run.stdout), measured.rtt_ms.avg))
