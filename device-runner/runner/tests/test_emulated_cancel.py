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
from conditions import poll_until

from latencylab_runner.drivers.emulated import emulated_run
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the emulated link needs root (network namespaces and TUN devices)")

ESTABLISHED = "01"  # the st column of /proc/net/tcp


def has_a_connection_open(pid: int) -> bool:
    """Whether the network namespace of process `pid` (the link's client side: the block
    worker's alone) holds an established TCP connection: the block is fetching."""
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except FileNotFoundError:
            return False
        if any(row.split()[3] == ESTABLISHED for row in rows):
            return True
    return False


def cancel_once_fetching(emulated, cancelled: threading.Event, seen: list[bool], timeout_s: float = 120) -> None:
    """Sets `cancelled` once the block worker (the next process started in the link) has a
    connection open to the target: mid-block, however long the worker took to get there.
    Gives up after `timeout_s` (a hang guard; `seen` then stays empty and the test fails)."""
    started = len(emulated.link._procs)  # noqa: SLF001 — the link's processes, to find the worker

    def worker_connected() -> bool:
        procs = emulated.link._procs  # noqa: SLF001
        return len(procs) > started and has_a_connection_open(procs[-1].pid)

    if poll_until(worker_connected, timeout_s):
        seen.append(True)
    cancelled.set()

SPEC = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": 1,
                     "warmup": 0, "gap_ms": 0, "concurrency": "sequential"},
        "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}],
        "blocks": 1, "seed": 1, "timeout_s": 120}


def test_a_cancel_kills_the_block_in_progress_and_keeps_nothing_of_it():
    with tempfile.TemporaryDirectory() as tls_dir:
        reference = ReferenceTarget("127.0.0.1", 9, 9, "localhost", str(Path(tls_dir) / "ca.pem"))
        with emulated_run({"name": "edge-lossy"}, reference) as emulated:
            job = build_job(SPEC, run_id="cancel", block=0, attempt=1, target=emulated.target)
            cancelled, seen = threading.Event(), []
            # Mid-block: the series needs about a minute once it fetches.
            threading.Thread(target=cancel_once_fetching, args=(emulated, cancelled, seen), daemon=True).start()
            result = emulated.run_job(job, baseline_origin=(emulated.target.host, emulated.target.tls_port),
                                      timeout_s=300, cancelled=cancelled)
            assert seen == [True], "the cancel did not come while the block was fetching"
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
