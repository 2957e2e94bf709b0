"""A run under an emulated link stops mid-block when its comparison is cancelled (needs root).

The block runs in a worker process in the link's client namespace; the cancel (the heartbeat's
`cancel_run`, here set by hand) kills it and the block is dropped whole, instead of the run
going on to the end of a block that can take minutes on a slow profile. The block here is the
MID series (1.6 MB) over `edge-lossy` (240 kbit/s down, 840 ms RTT): about a minute to finish,
so a result instead of None means the cancel was not honoured."""
from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest

from latencylab_runner.drivers.emulated import emulated_run
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the emulated link needs root (network namespaces and TUN devices)")

SPEC = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": 1,
                     "warmup": 0, "gap_ms": 0, "concurrency": "sequential"},
        "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}],
        "blocks": 1, "seed": 1, "timeout_s": 120}


def test_a_cancel_kills_the_block_in_progress_and_keeps_nothing_of_it():
    with tempfile.TemporaryDirectory() as tls_dir:
        reference = ReferenceTarget("127.0.0.1", 9, 9, "localhost", str(Path(tls_dir) / "ca.pem"))
        with emulated_run({"name": "edge-lossy"}, reference) as emulated:
            job = build_job(SPEC, run_id="cancel", block=0, attempt=1, target=emulated.target)
            cancelled = threading.Event()
            threading.Timer(2.0, cancelled.set).start()  # mid-block: the series needs about a minute
            result = emulated.run_job(job, baseline_origin=(emulated.target.host, emulated.target.tls_port),
                                      timeout_s=300, cancelled=cancelled)
            assert result is None
            assert emulated.link._procs[-1].returncode is not None  # the block worker is gone


def test_without_a_cancel_the_block_comes_back_whole():
    spec = {**SPEC, "workload": {**SPEC["workload"], "periods": [3]}}
    with tempfile.TemporaryDirectory() as tls_dir:
        reference = ReferenceTarget("127.0.0.1", 9, 9, "localhost", str(Path(tls_dir) / "ca.pem"))
        with emulated_run({"name": "lte"}, reference) as emulated:
            job = build_job(spec, run_id="whole", block=0, attempt=1, target=emulated.target)
            result = emulated.run_job(job, baseline_origin=(emulated.target.host, emulated.target.tls_port),
                                      timeout_s=300, cancelled=threading.Event())
    assert result is not None
    assert result["status"] == "ok"
    assert len(result["samples"]) == len(job["requests"]) == 3
