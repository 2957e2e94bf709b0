"""Each sample's `in_flight` (issue 10): how many requests of its arm were in flight when it
was issued, itself included. Stored, validated (1–20,000 or null) and exported."""

import csv
import io

import pytest

from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import Sample

T = 1_700_000_000_000_000  # epoch µs
IN_FLIGHT = {2: 1, 3: 2, 4: 3, 5: 1, 6: 2, 7: 3}  # seq → in flight: the three of each arm issued together


def samples(*, in_flight: bool = True) -> list[dict]:
    """A warm-up per arm (issued alone), then per arm three requests issued together."""
    out = []
    for seq, arm in enumerate(("https-h1", "h2")):
        out.append({"arm": arm, "block": 0, "seq": seq, "phase": "warmup", "wall_time": T - 500_000, "t0": 0,
                    "app_done": 9_000, "conn_reused": False, "error_class": None})
    for arm in ("https-h1", "h2"):
        for step in range(3):
            out.append({"arm": arm, "block": 0, "seq": len(out), "phase": "measure", "period": 3, "repetition": 0,
                        "step": step, "wall_time": T + 1_000 * step, "t0": 0, "app_done": 40_000,
                        "conn_id": "h2c" if arm == "h2" else f"h1-{step}", "conn_reused": arm == "h2" and step > 0,
                        "error_class": None})
    if in_flight:
        for sample in out:
            sample["in_flight"] = IN_FLIGHT.get(sample["seq"], 1)
    return out


@pytest.fixture
def concurrent(runner_api, org, pool):
    spec = {"name": "in flight", "preset": "mid-image-series",
            "workload": {"kind": "series", "periods": [3], "repetitions": 1}, "blocks": 1, "seed": 5}
    comparison = comparison_create(organization=org, submitted_spec=spec)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    return comparison, leased


def upload(runner_api, leased, batch):
    return runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                           {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                            "samples": batch}, format="json")


@pytest.mark.django_db
def test_in_flight_is_stored_and_exported(concurrent, runner_api, api):
    comparison, leased = concurrent
    assert upload(runner_api, leased, samples()).status_code == 200
    stored = dict(Sample.objects.filter(comparison=comparison, phase="measure").values_list("seq", "in_flight"))
    assert stored == IN_FLIGHT
    response = api.get(f"/api/v1/comparisons/{comparison.id}/samples.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [int(r["in_flight"]) for r in rows if r["phase"] == "measure"] == [1, 2, 3, 1, 2, 3]


@pytest.mark.django_db
@pytest.mark.parametrize("value", [0, -1, 20_001, "2"])
def test_a_bad_in_flight_is_a_400_naming_the_sample(concurrent, runner_api, value):
    _, leased = concurrent
    batch = samples()
    batch[3]["in_flight"] = value
    response = upload(runner_api, leased, batch)
    assert response.status_code == 400, response.content
    assert "samples[3].in_flight" in str(response.json())


@pytest.mark.django_db
def test_a_sample_without_in_flight_is_stored_as_unknown(concurrent, runner_api):
    comparison, leased = concurrent
    # A harness that does not report it (the phones' today).
    assert upload(runner_api, leased, samples(in_flight=False)).status_code == 200
    assert set(Sample.objects.filter(comparison=comparison).values_list("in_flight", flat=True)) == {None}
