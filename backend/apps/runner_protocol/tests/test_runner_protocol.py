"""The runner protocol (device-runner/contract/README.md) over real HTTP handling and a real
PostgreSQL."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.comparisons.models import Comparison, Run, RunBlock
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import Sample
from apps.scheduler.leasing import leases_reap_expired
from testing.factories import SPEC, make_sample
from testing.runner_calls import lease, upload


@pytest.mark.django_db
def test_lease_upload_finish_happy_path(runner_api, queued_run, api, django_capture_on_commit_callbacks):
    response = lease(runner_api)
    assert response.status_code == 200, response.content
    leased = response.json()["runs"][0]
    assert leased["run_id"] == str(queued_run.id)
    assert leased["attempt"] == 1
    assert leased["next_block"] == 0
    assert leased["spec"]["workload"]["periods"] == [3]
    assert lease(runner_api).status_code == 204  # the device is busy now

    assert upload(runner_api, leased, 0).json() == {"stored": 6, "duplicate": False, "next_block": 1}
    assert upload(runner_api, leased, 0).json()["duplicate"] is True  # idempotent on (run, block)
    assert upload(runner_api, leased, 1).json()["next_block"] == 2
    assert Sample.objects.filter(run=queued_run).count() == 12
    sample = Sample.objects.filter(run=queued_run).order_by("seq").first()
    assert (sample.total_us, sample.ttfb_us, sample.conn_start) == (1000, 390, None)

    export = api.get(f"/api/v1/comparisons/{queued_run.comparison_id}/samples.csv")
    lines = b"".join(export.streaming_content).decode().splitlines()
    assert export.status_code == 200
    assert len(lines) == 13
    header = lines[0].split(",")
    first = dict(zip(header, lines[1].split(","), strict=True))
    assert (first["arm"], first["total_ms"], first["ttfb_ms"], first["dns_ms"]) == ("h2", "1.0", "0.39", "")
    as_json = api.get(f"/api/v1/comparisons/{queued_run.comparison_id}/samples.json")
    rows = [json.loads(line) for line in b"".join(as_json.streaming_content).decode().splitlines()]
    assert len(rows) == 12
    assert rows[0]["conn_start"] is None
    assert rows[0]["total_ms"] == 1.0
    assert api.get(f"/api/v1/comparisons/{queued_run.comparison_id}/samples.xml").status_code == 404

    with django_capture_on_commit_callbacks(execute=True):
        finish = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                                 {"lease_token": leased["lease_token"], "status": "ok",
                                  "fingerprint": {"platform": "host"}}, format="json")
    assert finish.status_code == 200
    assert finish.json()["status"] == "done"
    queued_run.refresh_from_db()
    assert queued_run.comparison.status in ("analysing", "finished")


@pytest.mark.django_db
def test_invalid_samples_are_rejected_with_paths_and_nothing_stored(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    bad = [make_sample("h2", 0, 0), make_sample("nope", 0, 1), make_sample("h2", 0, 2, t0=5, app_done=-1)]
    response = upload(runner_api, leased, 0, samples=bad)
    assert response.status_code == 400
    body = response.json()
    assert "samples[1].arm" in body
    assert "samples[2].t0" in body
    assert "samples[2].app_done" in body
    assert Sample.objects.count() == 0
    assert RunBlock.objects.count() == 0


@pytest.mark.django_db
def test_oversize_batch_is_413(runner_api, queued_run, settings):
    settings.RUNNER_MAX_BATCH_SAMPLES = 3
    leased = lease(runner_api).json()["runs"][0]
    assert upload(runner_api, leased, 0).status_code == 413
    assert Sample.objects.count() == 0


@pytest.mark.django_db
def test_expired_lease_requeues_and_resumes_at_first_incomplete_block(runner_api, queued_run):
    first = lease(runner_api).json()["runs"][0]
    assert upload(runner_api, first, 0).status_code == 200
    Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert upload(runner_api, first, 1).status_code == 409  # the old holder lost it
    assert leases_reap_expired() == 1
    second = lease(runner_api).json()["runs"][0]
    assert (second["attempt"], second["next_block"]) == (2, 1)
    assert upload(runner_api, second, 1).status_code == 200
    assert Sample.objects.filter(run=queued_run).count() == 12  # none lost, none duplicated


@pytest.mark.django_db
def test_three_expired_attempts_fail_the_run_with_an_infrastructure_reason(runner_api, queued_run):
    for _ in range(3):
        assert lease(runner_api).status_code == 200
        Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
        leases_reap_expired()
    queued_run.refresh_from_db()
    assert queued_run.status == "failed"
    assert "infrastructure" in queued_run.error
    assert lease(runner_api).status_code == 204


@pytest.mark.django_db
def test_heartbeat_extends_leases_and_cancels_lost_ones(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=5))
    response = runner_api.post("/api/runner/v1/heartbeat", {
        "devices": [{"serial": "host-lab-1", "state": "busy", "battery": 80}],
        "runs": [{"run_id": leased["run_id"], "lease_token": leased["lease_token"]},
                 {"run_id": leased["run_id"], "lease_token": "stale"}],
    }, format="json")
    assert response.status_code == 200
    assert response.json()["commands"] == [{"type": "cancel_run", "run_id": leased["run_id"]}]
    queued_run.refresh_from_db()
    assert queued_run.lease_expires_at > timezone.now() + timedelta(seconds=50)


@pytest.mark.django_db
def test_cancelled_comparison_loses_its_lease(runner_api, queued_run, api):
    leased = lease(runner_api).json()["runs"][0]
    assert api.post(f"/api/v1/comparisons/{queued_run.comparison_id}/cancel").json()["status"] == "cancelled"
    assert upload(runner_api, leased, 0).status_code == 409
    assert Comparison.objects.get().status == "cancelled"


@pytest.mark.django_db
def test_runner_auth_is_required(db):
    from rest_framework.test import APIClient

    client = APIClient()
    assert client.post("/api/runner/v1/lease", {"devices": []}, format="json").status_code == 401
    client.credentials(HTTP_AUTHORIZATION="Runner nope")
    assert client.post("/api/runner/v1/lease", {"devices": []}, format="json").status_code == 401


@pytest.mark.django_db
def test_one_device_runs_every_profile_but_never_two_slots_of_one_profile(runner_api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec={
        **SPEC, "network_profiles": ["none", "lte"], "devices": {"pool": "local", "count": 2}})
    comparison_plan(comparison_id=str(comparison.id))
    assert comparison.runs.count() == 4
    taken = []
    for _ in range(4):
        response = lease(runner_api)
        if response.status_code == 204:
            break
        leased = response.json()["runs"][0]
        taken.append(leased["network_profile"]["name"])
        Run.objects.filter(pk=leased["run_id"]).update(status=Run.Status.DONE)
    # The second slot of each profile waits for a second device.
    assert sorted(taken) == ["lte", "none"]


@pytest.mark.django_db
def test_text_fields_survive_copy_escaping(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    nasty = "tab\there\nnewline \\N back\\slash\r ünïcode"
    samples = [make_sample("h2", 0, 0, error_class="other", error_detail=nasty, app_done=None, conn_id=None)]
    assert upload(runner_api, leased, 0, samples=samples).status_code == 200
    stored = Sample.objects.get(run=queued_run)
    assert stored.error_detail == nasty
    assert stored.app_done is None
    assert stored.conn_id is None
    assert stored.conn_reused is True
    assert stored.server_delay_ms is None
