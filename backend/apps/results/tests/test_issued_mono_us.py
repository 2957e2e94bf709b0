"""Each sample's `issued_mono_us` (issue 30, readiness from the phone): when its request was
issued, in µs since its block began on the harness's monotonic clock. Stored, validated
(an integer ≥ 0 or null) and exported; a sample without it (every harness before it) is
stored as unknown; a retried block must repeat it exactly, as every other value."""

import csv
import io

import pytest

from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import Sample

T = 1_700_000_000_000_000  # epoch µs
ISSUED = {0: 120, 1: 9_400, 2: 20_010, 3: 20_030, 4: 20_050}  # seq → µs since the block began


def samples(*, issued: bool = True) -> list[dict]:
    """A warm-up per arm, then three h2 requests issued together."""
    out = [{"arm": arm, "block": 0, "seq": seq, "phase": "warmup", "wall_time": T + seq, "t0": 0, "app_done": 9_000,
            "conn_reused": False, "error_class": None} for seq, arm in enumerate(("https-h1", "h2"))]
    for step in range(3):
        out.append({"arm": "h2", "block": 0, "seq": len(out), "phase": "measure", "period": 3, "repetition": 0,
                    "step": step, "wall_time": T + 20_000 + step, "t0": 0, "app_done": 40_000, "conn_id": "h2c",
                    "conn_reused": step > 0, "in_flight": step + 1, "error_class": None})
    if issued:
        for sample in out:
            sample["issued_mono_us"] = ISSUED[sample["seq"]]
    return out


@pytest.fixture
def leased(runner_api, org, pool):
    spec = {"name": "issue times", "preset": "mid-image-series",
            "workload": {"kind": "series", "periods": [3], "repetitions": 1}, "blocks": 1, "seed": 5}
    comparison = comparison_create(organization=org, submitted_spec=spec)
    comparison_plan(comparison_id=str(comparison.id))
    run = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                          format="json").json()["runs"][0]
    return comparison, run


def upload(runner_api, run, batch):
    return runner_api.post(f"/api/runner/v1/runs/{run['run_id']}/samples",
                           {"lease_token": run["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                            "samples": batch}, format="json")


@pytest.mark.django_db
def test_issue_times_are_stored_and_exported(leased, runner_api, api):
    comparison, run = leased
    assert upload(runner_api, run, samples()).status_code == 200
    assert dict(Sample.objects.filter(comparison=comparison).values_list("seq", "issued_mono_us")) == ISSUED
    response = api.get(f"/api/v1/comparisons/{comparison.id}/samples.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert {int(r["seq"]): int(r["issued_mono_us"]) for r in rows} == ISSUED


@pytest.mark.django_db
@pytest.mark.parametrize("value", [-1, "20", 1.5, True])
def test_a_bad_issue_time_is_a_400_naming_the_sample_and_stores_nothing(leased, runner_api, value):
    comparison, run = leased
    batch = samples()
    batch[3]["issued_mono_us"] = value
    response = upload(runner_api, run, batch)
    assert response.status_code == 400, response.content
    assert "samples[3].issued_mono_us" in str(response.json())
    assert not Sample.objects.filter(comparison=comparison).exists()


@pytest.mark.django_db
def test_a_sample_without_an_issue_time_is_stored_as_unknown(leased, runner_api):
    comparison, run = leased
    assert upload(runner_api, run, samples(issued=False)).status_code == 200
    assert set(Sample.objects.filter(comparison=comparison).values_list("issued_mono_us", flat=True)) == {None}


@pytest.mark.django_db
def test_a_retried_block_is_a_duplicate_only_with_the_same_issue_times(leased, runner_api):
    """0 lost, 0 duplicated: the same block again is acknowledged and stores nothing more; the
    same block with other issue times is another block's contents, refused."""
    comparison, run = leased
    assert upload(runner_api, run, samples()).json()["stored"] == 5
    again = upload(runner_api, run, samples())
    assert (again.status_code, again.json()["duplicate"]) == (200, True)
    moved = samples()
    moved[4]["issued_mono_us"] += 1
    assert upload(runner_api, run, moved).status_code == 409
    assert Sample.objects.filter(comparison=comparison).count() == 5
