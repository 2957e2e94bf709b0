"""A slow upload that outlives its lease, with the real agent against a live backend: the
backend requeued the run while the upload was on its way, so the upload is refused (409), the
agent abandons that attempt cleanly — no finish, nothing of it stored — and the run is taken
again (by the same agent, or by a second agent started with the same runner token); the next
attempt resumes at the block that was refused, and the comparison finishes with every block
stored once, each wholly from one attempt."""

import threading
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from apps.comparisons.models import Comparison, Run, RunBlock
from apps.devices.services import runner_register
from apps.results.models import Sample
from apps.scheduler.leasing import leases_reap_expired
from config.celery import app as celery_app
from latencylab_runner.agent.client import RunnerClient
from testing.host_agent import host_agent, reference_of, runner_client
from testing.waiting import wait_for

BLOCKS = 4
SLOW_BLOCK = 2
SPEC = {"name": "slow upload", "preset": "mid-image-series", "blocks": BLOCKS, "seed": 5,
        "workload": {"kind": "series", "periods": [3], "repetitions": BLOCKS}}


class SlowUploadClient(RunnerClient):
    """The real client; the first attempt's upload of SLOW_BLOCK waits for `go` before it is
    sent, as an upload over a stalled link would."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting = threading.Event()
        self.go = threading.Event()
        self.uploads: list[tuple[int, int, str]] = []  # (attempt, block, outcome)
        self.finishes: list[tuple[str, str]] = []  # (lease token, status)
        self.refusals: list[str] = []

    def upload_block(self, run_id: str, batch: dict[str, Any]) -> dict[str, Any]:
        if batch["attempt"] == 1 and batch["block"] == SLOW_BLOCK:
            self.waiting.set()
            self.go.wait(120)
        try:
            answer = super().upload_block(run_id, batch)
        except Exception as exc:
            self.uploads.append((batch["attempt"], batch["block"], type(exc).__name__))
            self.refusals.append(str(exc))
            raise
        self.uploads.append((batch["attempt"], batch["block"], "stored"))
        return answer

    def finish(self, run_id: str, report: dict[str, Any]) -> dict[str, Any]:
        self.finishes.append((report["lease_token"], report["status"]))
        return super().finish(run_id, report)


@pytest.mark.django_db(transaction=True)
def test_an_upload_that_outlived_its_lease_is_refused_and_the_run_resumes_there(live_server, api, pool, target):
    client = runner_client(live_server.url, pool, "slow-runner", SlowUploadClient)
    agent = host_agent(client, "slow-runner", target=reference_of(target), heartbeat_interval_s=3600)
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", SPEC, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 2}, daemon=True)
        thread.start()
        assert client.waiting.wait(120), "the agent never reached the slow block"
        # Meanwhile the lease ran out and the backend requeued the run.
        run = Comparison.objects.get(pk=comparison_id).runs.get()
        first_token = run.lease_token
        Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now())
        assert leases_reap_expired() == 1
        client.go.set()
        assert wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 180)
        agent.drain()
        thread.join(60)
    client.close()

    comparison = Comparison.objects.get(pk=comparison_id)
    assert comparison.status == "finished", (comparison.status, comparison.error)
    assert client.uploads == [(1, 0, "stored"), (1, 1, "stored"), (1, SLOW_BLOCK, "LeaseLost"),
                              *[(2, block, "stored") for block in range(SLOW_BLOCK, BLOCKS)]]
    # The abandoned attempt never finished; the second (its own lease token) finished ok.
    run.refresh_from_db()
    assert (run.attempt, run.status) == (2, "done")
    assert run.lease_token != first_token
    assert client.finishes == [(run.lease_token, "ok")]
    assert list(RunBlock.objects.filter(run=run).order_by("block").values_list("block", "attempt")) == [
        (0, 1), (1, 1), *[(block, 2) for block in range(SLOW_BLOCK, BLOCKS)]]
    rows = list(Sample.objects.filter(run=run).values_list("block", "seq"))
    assert len(rows) == len(set(rows))  # none twice
    assert {block for block, _ in rows} == set(range(BLOCKS))


@pytest.mark.django_db(transaction=True)
def test_a_second_agent_with_the_same_runner_token_takes_over_and_samples_never_mix(live_server, api, pool,
                                                                                     target):
    """Two processes started with one runner config (one token, one device serial): the first
    stalls in an upload, its lease runs out, the second takes the run; the first's upload is
    refused as belonging to an earlier attempt and it stops."""
    _, runner_token = runner_register(pool=pool, name="twin-runner")
    first, second = SlowUploadClient(live_server.url, runner_token), SlowUploadClient(live_server.url, runner_token)
    agents = [host_agent(client, "twin-runner", target=reference_of(target), heartbeat_interval_s=3600)
              for client in (first, second)]
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", SPEC, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        first_thread = threading.Thread(target=agents[0].run_forever, kwargs={"max_runs": 1}, daemon=True)
        first_thread.start()
        assert first.waiting.wait(120), "the first agent never reached the slow block"
        run = Comparison.objects.get(pk=comparison_id).runs.get()
        # The twin starts while the first holds the lease: no lease for it on that device.
        second_thread = threading.Thread(target=agents[1].run_forever, kwargs={"max_runs": 1}, daemon=True)
        second_thread.start()
        Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now())
        assert leases_reap_expired() == 1
        assert wait_for(lambda: Run.objects.get(pk=run.pk).attempt == 2, 120), "the twin never took the run"
        first.go.set()  # the stalled upload arrives now
        assert wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 180)
        for agent in agents:
            agent.drain()
        first_thread.join(60)
        second_thread.join(60)
    first.close()
    second.close()

    comparison = Comparison.objects.get(pk=comparison_id)
    assert comparison.status == "finished", (comparison.status, comparison.error)
    assert first.uploads == [(1, 0, "stored"), (1, 1, "stored"), (1, SLOW_BLOCK, "LeaseLost")]
    assert first.refusals == ["The run was leased again (attempt 2); this lease token belongs to an earlier "
                              "attempt. Stop this attempt."]
    assert first.finishes == []
    assert second.uploads == [(2, block, "stored") for block in range(SLOW_BLOCK, BLOCKS)]
    assert [status for _, status in second.finishes] == ["ok"]
    assert list(RunBlock.objects.filter(run=run).order_by("block").values_list("block", "attempt")) == [
        (0, 1), (1, 1), *[(block, 2) for block in range(SLOW_BLOCK, BLOCKS)]]
    rows = list(Sample.objects.filter(run=run).values_list("block", "seq"))
    assert len(rows) == len(set(rows))
    assert {block for block, _ in rows} == set(range(BLOCKS))
