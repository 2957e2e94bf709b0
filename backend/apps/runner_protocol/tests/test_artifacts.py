"""Run artifacts (contract README, "Run artifacts"): uploaded under the run's lease — or
its last lease, for a while after finish — bounded in size and number, listed and
downloaded by the organization that owns the comparison only."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.comparisons.artifacts import ARTIFACT_MAX_BYTES, ARTIFACTS_PER_RUN
from apps.comparisons.leases import ARTIFACT_GRACE_SECONDS
from apps.comparisons.models import Run, RunArtifact
from testing.device_farm import android_comparison, finish, leased_run, phone, runner_client

LOG = b"[14:02:11]: Driving the lane 'android bench'\nINSTRUMENTATION_STATUS_CODE: -2\n"


def upload(client, leased, name="block-0-fastlane.log", body=LOG, content_type="text/plain", token=None):
    return client.post(f"/api/runner/v1/runs/{leased['run_id']}/artifacts", data=body, content_type=content_type,
                       HTTP_X_LEASE_TOKEN=token if token is not None else leased["lease_token"],
                       HTTP_X_ARTIFACT_NAME=name)


@pytest.fixture
def lab(pool):
    return runner_client(pool, "lab-a", [phone("A1"), phone("A2")])


@pytest.fixture
def comparison(org, pool):
    return android_comparison(org)


@pytest.mark.django_db
def test_upload_list_and_download(lab, comparison, api):
    leased = leased_run(lab, ["A1"])
    response = upload(lab, leased)
    assert response.status_code == 201, response.content
    stored = response.json()
    assert stored["name"] == "block-0-fastlane.log"
    assert stored["size"] == len(LOG)
    assert upload(lab, leased, "result-0.json", b'{"samples": []}', "application/json").status_code == 201

    base = f"/api/v1/comparisons/{comparison.id}/runs/{leased['run_id']}/artifacts"
    listed = api.get(base).json()
    assert [(a["name"], a["size"], a["attempt"], a["device"]) for a in listed] == [
        ("block-0-fastlane.log", len(LOG), 1, "A1"), ("result-0.json", 15, 1, "A1")]
    assert listed[0]["download_url"] == f"{base}/{stored['id']}"

    download = api.get(listed[0]["download_url"])
    assert download.status_code == 200
    assert download.content == LOG
    assert download["Content-Type"] == "text/plain"
    assert download["Content-Disposition"] == 'attachment; filename="block-0-fastlane.log"'
    assert download["X-Content-Type-Options"] == "nosniff"

    run = api.get(f"/api/v1/comparisons/{comparison.id}").json()["runs"][0]
    assert [a["name"] for a in run["artifacts"]] == ["block-0-fastlane.log", "result-0.json"]
    assert (run["device"], run["device_model"]) == ("A1", "Pixel 8")


@pytest.mark.django_db
def test_the_same_name_in_the_same_attempt_replaces_the_earlier_upload(lab, comparison):
    leased = leased_run(lab, ["A1"])
    upload(lab, leased, body=b"first")
    upload(lab, leased, body=b"second, longer")
    assert list(RunArtifact.objects.values_list("name", "size")) == [("block-0-fastlane.log", 14)]


@pytest.mark.django_db
def test_an_artifact_is_taken_after_finish_from_the_last_lease_only_for_a_while(lab, comparison, pool):
    first = leased_run(lab, ["A1"])
    finish(lab, first, "infra_error", "device_lost", "device disappeared during block 0")
    after = upload(lab, first, "block-0-fastlane.log")  # the log is complete only now
    assert after.status_code == 201, after.content
    assert RunArtifact.objects.get().device.serial == "A1"

    Run.objects.filter(pk=first["run_id"]).update(
        lease_ended_at=timezone.now() - timedelta(seconds=ARTIFACT_GRACE_SECONDS + 1))
    late = upload(lab, first, "late.log")
    assert late.status_code == 409
    assert "after the lease ends" in late.json()["detail"]

    Run.objects.filter(pk=first["run_id"]).update(lease_ended_at=timezone.now())
    second = leased_run(lab, ["A2"])  # re-leased: the old token is worthless now
    assert upload(lab, first, "stale.log").status_code == 409
    assert upload(lab, second, "block-0-fastlane.log").status_code == 201
    assert sorted(RunArtifact.objects.values_list("attempt", "name")) == [
        (1, "block-0-fastlane.log"), (2, "block-0-fastlane.log")]


@pytest.mark.django_db
def test_the_lease_is_checked_like_for_samples(lab, comparison, pool):
    leased = leased_run(lab, ["A1"])
    assert upload(lab, leased, token="not-the-token").status_code == 409
    other = runner_client(pool, "lab-b", [phone("B1")])
    assert upload(other, leased).status_code == 409
    Run.objects.filter(pk=leased["run_id"]).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert upload(lab, leased).status_code == 409
    assert RunArtifact.objects.count() == 0


@pytest.mark.django_db
def test_oversize_is_413_and_the_per_run_limit_is_409(lab, comparison):
    leased = leased_run(lab, ["A1"])
    assert upload(lab, leased, body=b"x" * (ARTIFACT_MAX_BYTES + 1)).status_code == 413
    assert upload(lab, leased, body=b"x" * ARTIFACT_MAX_BYTES).status_code == 201
    run = Run.objects.get(pk=leased["run_id"])
    RunArtifact.objects.bulk_create([RunArtifact(run=run, attempt=1, name=f"n{i}", content_type="text/plain",
                                                 size=1, data=b"x") for i in range(ARTIFACTS_PER_RUN - 1)])
    full = upload(lab, leased, "one-too-many.log")
    assert full.status_code == 409
    assert str(ARTIFACTS_PER_RUN) in full.json()["detail"]
    assert upload(lab, leased, "n0").status_code == 201  # replacing one is still fine
    assert RunArtifact.objects.filter(run=run).count() == ARTIFACTS_PER_RUN


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["", "../etc/passwd", "a b.log", "x" * 101, "..", "log\u00e9.txt"])
def test_artifact_names_are_validated(lab, comparison, name):
    leased = leased_run(lab, ["A1"])
    response = upload(lab, leased, name=name)
    assert response.status_code == 400
    assert "X-Artifact-Name" in response.json()
    assert RunArtifact.objects.count() == 0


@pytest.mark.django_db
def test_a_missing_token_and_a_bad_content_type_are_400(lab, comparison):
    leased = leased_run(lab, ["A1"])
    assert "X-Lease-Token" in upload(lab, leased, token="").json()
    assert "Content-Type" in upload(lab, leased, content_type="not a type").json()
    assert RunArtifact.objects.count() == 0


@pytest.mark.django_db
def test_an_artifact_is_never_served_as_a_page(lab, comparison, api):
    leased = leased_run(lab, ["A1"])
    upload(lab, leased, "report.html", b"<script>alert(1)</script>", "text/html")
    (artifact,) = api.get(f"/api/v1/comparisons/{comparison.id}/runs/{leased['run_id']}/artifacts").json()
    assert artifact["content_type"] == "text/html"
    download = api.get(artifact["download_url"])
    assert download["Content-Type"] == "application/octet-stream"
    assert "sandbox" in download["Content-Security-Policy"]


@pytest.mark.django_db
def test_another_organization_gets_404(lab, comparison, other_org):
    leased = leased_run(lab, ["A1"])
    artifact_id = upload(lab, leased).json()["id"]
    _, secret = api_token_create(organization=other_org, name="t", scopes=["read"])
    outsider = APIClient()
    outsider.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    base = f"/api/v1/comparisons/{comparison.id}/runs/{leased['run_id']}/artifacts"
    assert outsider.get(base).status_code == 404
    assert outsider.get(f"{base}/{artifact_id}").status_code == 404


@pytest.mark.django_db
def test_an_artifact_of_another_run_is_404(lab, comparison, org, api):
    leased = leased_run(lab, ["A1"])
    artifact_id = upload(lab, leased).json()["id"]
    other = android_comparison(org, name="other")
    other_run = other.runs.get()
    assert api.get(f"/api/v1/comparisons/{other.id}/runs/{other_run.id}/artifacts/{artifact_id}").status_code == 404
    assert api.get(f"/api/v1/comparisons/{other.id}/runs/{leased['run_id']}/artifacts").status_code == 404
