"""A runner killed in the middle of a run (SIGKILL, no goodbye): the lease expires, the
reaper requeues the run, a new agent resumes at the first block not yet stored, and the
comparison finishes with every block stored exactly once (docs/operations.md, "When a part
of the service fails")."""

import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from apps.comparisons.models import Comparison, Run, RunBlock
from apps.devices.services import runner_register
from apps.results.models import Sample
from apps.scheduler.leasing import leases_reap_expired
from config.celery import app as celery_app
from testing.waiting import wait_for


def spawn_agent(server: str, token: str, target) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "latencylab_runner.agent", "--server", server, "--token", token, "--name", "crashy",
         "--target-host", "127.0.0.1", "--target-plain-port", str(target.plain_port),
         "--target-tls-port", str(target.tls_port), "--target-server-name", "localhost",
         "--ca-file", str(target.ca_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


@pytest.mark.django_db(transaction=True)
def test_killed_runner_loses_no_block_and_duplicates_none(live_server, api, pool, target, settings):
    # Leases long enough that a loaded machine never loses one while an agent works (a 3 s lease
    # ran out before the first block's upload once: 409, and no block was ever stored).
    settings.RUNNER_LEASE_SECONDS = 60
    _, token = runner_register(pool=pool, name="crashy")
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", {
            "name": "crash", "preset": "mid-image-series", "blocks": 6, "seed": 4,
            "workload": {"kind": "series", "periods": [3, 6, 9, 12], "repetitions": 12}}, format="json").json()
        first = spawn_agent(live_server.url, token, target)
        try:
            assert wait_for(lambda: RunBlock.objects.filter(run__comparison_id=created["id"]).count() >= 1, 60)
        finally:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
        run = Run.objects.get(comparison_id=created["id"])
        stored_before = RunBlock.objects.filter(run=run).count()
        assert run.status == "leased"
        assert stored_before < 6
        # The lease runs out: a killed runner extends it no more, and its end moved into the past
        # stands in for waiting it out. The reaper (Celery beat in production) requeues the run.
        Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
        assert leases_reap_expired() == 1
        run.refresh_from_db()
        assert (run.status, run.attempt) == ("queued", 1)
        assert run.next_block == stored_before
        second = spawn_agent(live_server.url, token, target)
        try:
            assert wait_for(lambda: Comparison.objects.get(pk=created["id"]).status == "finished", 180)
        finally:
            os.killpg(second.pid, signal.SIGTERM)
            second.wait(20)
    run.refresh_from_db()
    assert run.attempt == 2
    assert run.status == "done"
    blocks = list(RunBlock.objects.filter(run=run).order_by("block").values_list("block", "attempt"))
    assert [b for b, _ in blocks] == list(range(6))
    assert {a for _, a in blocks[:stored_before]} == {1}
    assert {a for _, a in blocks[stored_before:]} == {2}
    # No sample lost, none duplicated: one (block, seq) each, and every block complete.
    per_block = Sample.objects.filter(run=run).values_list("block", "seq")
    assert len(per_block) == len(set(per_block))
    counts = {b: Sample.objects.filter(run=run, block=b).count() for b in range(6)}
    assert len(set(counts.values())) == 1, counts
