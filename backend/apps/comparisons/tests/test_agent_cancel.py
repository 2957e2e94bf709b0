"""A comparison cancelled mid-run, with the real agent measuring through the real backend
(live server, PostgreSQL, a Celery worker, the reference target): the runner stops within one
heartbeat — counted, not timed: the agent's own heartbeat never fires here, the test sends
exactly one, and the run must be over before any other — uploads nothing more, does not
finish the run, and the blocks stored before the cancel stay, analysed and marked partial in
the results, the verdict and the CLI's exit code (3: cancelled, docs/ci.md)."""

import threading
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from latencylab_cli.main import main as latencylab

from apps.accounts.services import api_token_create
from apps.comparisons.models import Comparison, RunBlock
from apps.results.models import Analysis, Sample
from config.celery import app as celery_app
from latencylab_runner.agent.client import RunnerClient
from testing.host_agent import host_agent, reference_of, runner_client
from testing.waiting import wait_for

BLOCKS = 50  # far more than get measured before the cancel, however fast this machine is
# Two repetitions of four series per block: 120 real requests a block, so the cancel lands mid-run.
SPEC = {"name": "cancelled mid-run", "preset": "mid-image-series", "blocks": BLOCKS, "seed": 3,
        "workload": {"kind": "series", "periods": [3, 6, 9, 12], "repetitions": BLOCKS * 2}}


class CountingClient(RunnerClient):
    """The real protocol client, counting what the agent sends and whether a run's cancel
    had reached the agent when it sent it (`cancel_delivered(run_id)`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cancel_delivered = lambda run_id: False
        self.heartbeats: list[list[dict[str, Any]]] = []
        self.uploads: list[dict[str, Any]] = []
        self.finishes: list[str] = []

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        answer = super().heartbeat(devices, runs)
        self.heartbeats.append(answer["commands"])
        return answer

    def upload_block(self, run_id: str, batch: dict[str, Any]) -> dict[str, Any]:
        record = {"block": batch["block"], "after_cancel": self.cancel_delivered(run_id), "stored": False}
        self.uploads.append(record)
        answer = super().upload_block(run_id, batch)
        record["stored"] = True
        return answer

    def finish(self, run_id: str, report: dict[str, Any]) -> dict[str, Any]:
        self.finishes.append(run_id)
        return super().finish(run_id, report)


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_run_stops_within_one_heartbeat_and_its_results_stay_partial(live_server, api, org, pool,
                                                                                   target):
    client = runner_client(live_server.url, pool, "cancel-runner", CountingClient)
    # The agent's own heartbeat loop would first fire after an hour: the one heartbeat is the test's.
    agent = host_agent(client, "cancel-runner", target=reference_of(target), heartbeat_interval_s=3600)
    client.cancel_delivered = lambda run_id: run_id in agent._cancel and agent._cancel[run_id].is_set()
    _, ci_token = api_token_create(organization=org, name="ci", scopes=["ci"])
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        created = api.post("/api/v1/comparisons", SPEC, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        finished_runs: list[int] = []
        thread = threading.Thread(target=lambda: finished_runs.append(agent.run_forever(max_runs=1)), daemon=True)
        thread.start()
        assert wait_for(lambda: RunBlock.objects.filter(run__comparison_id=comparison_id).count() >= 2, 120)

        assert api.post(f"/api/v1/comparisons/{comparison_id}/cancel").json()["status"] == "cancelled"
        stored_at_cancel = RunBlock.objects.filter(run__comparison_id=comparison_id).count()
        samples_at_cancel = Sample.objects.filter(comparison_id=comparison_id).count()
        run_id = str(Comparison.objects.get(pk=comparison_id).runs.get().id)
        uploads_before = len(client.uploads)

        agent.heartbeat_once()  # the one heartbeat
        uploads_at_heartbeat = len(client.uploads)
        assert client.heartbeats == [[{"type": "cancel_run", "run_id": run_id}]]
        # The run ends without another heartbeat (the hang guard below is not a timing check).
        assert wait_for(lambda: not agent._active, 120), "the agent kept running the cancelled run"
        assert len(client.heartbeats) == 1
        thread.join(30)
        assert finished_runs == [1]

        # Nothing more was stored or sent: at most the block in flight at the cancel, refused;
        # after the heartbeat the driver measured no further block to upload.
        after_cancel = client.uploads[uploads_before:]
        assert all(not upload["stored"] for upload in after_cancel), after_cancel
        assert client.uploads[uploads_at_heartbeat:] == []
        assert not any(upload["after_cancel"] for upload in client.uploads), client.uploads
        assert client.finishes == []
        assert RunBlock.objects.filter(run__comparison_id=comparison_id).count() == stored_at_cancel < BLOCKS
        assert Sample.objects.filter(comparison_id=comparison_id).count() == samples_at_cancel

        # The worker analyses what was stored, marked partial.
        assert wait_for(lambda: Analysis.objects.filter(comparison_id=comparison_id).exists(), 120)
    client.close()

    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    assert (results["status"], results["partial"]) == ("cancelled", True)
    assert (results["blocks_planned"], results["blocks_stored"]) == (BLOCKS, stored_at_cancel)
    assert sum(arm["n"] for arm in results["groups"][0]["requests"].values()) > 0
    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()
    assert (verdict["status"], verdict["partial"], verdict["blocks_stored"]) == ("cancelled", True, stored_at_cancel)
    assert f"PARTIAL: cancelled after {stored_at_cancel} of {BLOCKS} blocks" in verdict["outcome_reason"]
    # The CLI gate still calls a cancelled comparison an infrastructure failure.
    assert latencylab(["--server", live_server.url, "--token", ci_token, "verdict", comparison_id]) == 3
