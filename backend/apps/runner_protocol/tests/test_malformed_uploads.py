"""Malformed and misplaced sample uploads are refused whole, or acknowledged as duplicates,
and never half-written (device-runner/contract/README.md, the samples call). Each case
starts from a run with block 0 stored, sends the bad upload, and checks the status and that
the stored samples, blocks, analysis columns and the run's progress are exactly as before.

Already covered in test_runner_protocol.py: unknown arm and negative µs with paths
(test_invalid_samples_are_rejected_with_paths_and_nothing_stored), too many samples
(test_oversize_batch_is_413), an expired lease (409) and a cancelled comparison (409). Added here:
every other case below, including a body over its byte bound (413 from Content-Length)."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.comparisons.models import Run, RunBlock
from apps.devices.services import runner_hello, runner_register
from apps.results.models import BlockColumns, Sample
from testing.factories import make_sample
from testing.runner_calls import lease, upload


def stored_state(run_id: str) -> dict[str, Any]:
    """Everything an upload writes, for one run: samples, blocks, analysis columns, progress."""
    return {
        "samples": list(Sample.objects.filter(run_id=run_id).order_by("block", "seq").values()),
        "blocks": list(RunBlock.objects.filter(run_id=run_id).order_by("block").values()),
        "columns": [bytes(c) if isinstance(c, memoryview) else c for row in
                    BlockColumns.objects.filter(run_id=run_id).order_by("pk").values_list() for c in row],
        "run": Run.objects.filter(pk=run_id).values("status", "next_block", "attempt", "lease_token").get(),
    }


@pytest.fixture
def leased(runner_api, queued_run) -> dict[str, Any]:
    """A leased run of two blocks whose block 0 is stored."""
    leased = lease(runner_api).json()["runs"][0]
    first = upload(runner_api, leased, 0)
    assert first.json() == {"stored": 6, "duplicate": False, "next_block": 1}
    return leased


def good_block_1() -> list[dict[str, Any]]:
    return [make_sample("h2", 1, i) for i in range(6)]


def with_last(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """Five good samples of block 1, then `sample`: a bad one at the end must still write nothing."""
    return good_block_1()[:5] + [sample]


WRONG_TYPES = {
    "a string for an integer": with_last(make_sample("h2", 1, 5, t0="0")),
    "a string for a timestamp": with_last(make_sample("h2", 1, 5, app_done="1000")),
    "a float for a timestamp": with_last(make_sample("h2", 1, 5, resp_end=900.5)),
    "negative microseconds": with_last(make_sample("h2", 1, 5, resp_first_byte=-3)),
    "null where required (seq)": with_last({**make_sample("h2", 1, 5), "seq": None}),
    "null where required (arm)": with_last({**make_sample("h2", 1, 5), "arm": None}),
    "null where required (phase)": with_last(make_sample("h2", 1, 5, phase=None)),
    "an unknown field": with_last(make_sample("h2", 1, 5, favourite_colour="blue")),
    "a boolean for a boolean's string": with_last(make_sample("h2", 1, 5, conn_reused="yes")),
    "a sample of another block": with_last(make_sample("h2", 0, 5)),
    "not an object": [*good_block_1()[:5], 42],
}


@pytest.mark.django_db
@pytest.mark.parametrize("samples", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_batch_with_one_malformed_sample_is_refused_whole(runner_api, leased, samples):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, 1, samples=samples)
    assert response.status_code == 400, response.content
    assert any(key.startswith("samples[5]") for key in response.json()), response.json()
    assert stored_state(leased["run_id"]) == before


BAD_ENVELOPES = {
    "samples not a list": {"samples": {"0": make_sample("h2", 1, 0)}},
    "batch_seq a string": {"batch_seq": "one"},
    "batch_seq beyond its column": {"batch_seq": 2**31},
    "attempt zero": {"attempt": 0},
    "block negative": {"block": -1},
    "lease token too long": {"lease_token": "x" * 65},
}


@pytest.mark.django_db
@pytest.mark.parametrize("change", BAD_ENVELOPES.values(), ids=BAD_ENVELOPES.keys())
def test_a_malformed_envelope_is_refused_naming_the_field(runner_api, leased, change):
    before = stored_state(leased["run_id"])
    body = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": 1, "block": 1,
            "samples": good_block_1(), **change}
    response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples", body, format="json")
    assert response.status_code == 400, response.content
    assert set(change) & set(response.json()), response.json()
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_body_that_is_not_json_is_refused(runner_api, leased):
    before = stored_state(leased["run_id"])
    response = runner_api.generic("POST", f"/api/runner/v1/runs/{leased['run_id']}/samples",
                                  b'{"lease_token": "t", "samples": [', content_type="application/json")
    assert response.status_code == 400
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_wrong_lease_token_is_409_and_writes_nothing(runner_api, leased):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, {**leased, "lease_token": "not-the-lease"}, 1, samples=good_block_1())
    assert response.status_code == 409, response.content
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_block_beyond_the_run_is_409_and_writes_nothing(runner_api, leased):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, 2, samples=[make_sample("h2", 2, i) for i in range(6)])
    assert response.status_code == 409, response.content
    assert "blocks 0…1" in response.json()["detail"]
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_the_same_batch_twice_is_acknowledged_once_with_the_same_answer_each_time(runner_api, leased):
    """A runner that lost the answer sends the block again: acknowledged, stored once."""
    before = stored_state(leased["run_id"])
    again = [upload(runner_api, leased, 0).json() for _ in range(2)]
    assert again == [{"stored": 0, "duplicate": True, "next_block": 1}] * 2
    assert stored_state(leased["run_id"]) == before
    # The same block with other contents is refused: the first copy stands (test_protocol_edge_cases.py).
    changed = upload(runner_api, leased, 0, samples=[make_sample("h2", 0, i, app_done=5_000) for i in range(6)])
    assert changed.status_code == 409, changed.content
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_batch_for_another_runners_run_is_409_and_writes_nothing(runner_api, leased, pool):
    other_runner, secret = runner_register(pool=pool, name="lab-2")
    runner_hello(runner=other_runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "host-lab-2", "platform": "host", "model": "test", "os_version": "1"}])
    intruder = APIClient()
    intruder.credentials(HTTP_AUTHORIZATION=f"Runner {secret}")
    before = stored_state(leased["run_id"])
    # Even with the right lease token (leaked or guessed), the run is not this runner's.
    response = upload(intruder, leased, 1, samples=good_block_1())
    assert response.status_code == 409, response.content
    finish = intruder.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                           {"lease_token": leased["lease_token"], "status": "failed"}, format="json")
    assert finish.status_code == 409, finish.content
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_batch_after_finish_is_409_and_writes_nothing(runner_api, leased):
    assert upload(runner_api, leased, 1).status_code == 200
    finish = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                             {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    assert finish.status_code == 200, finish.content
    before = stored_state(leased["run_id"])
    late = upload(runner_api, leased, 1, samples=[make_sample("h2", 1, i, app_done=9_000) for i in range(6)],
                  batch_seq=7)
    assert late.status_code == 409, late.content
    assert stored_state(leased["run_id"]) == before
    assert Sample.objects.filter(run_id=leased["run_id"]).count() == 12


@pytest.mark.django_db
def test_a_body_over_the_byte_bound_is_413_and_writes_nothing(runner_api, leased, settings):
    """Within the sample count but too many bytes (a runner sending megabytes of error_detail)."""
    settings.REQUEST_BODY_LIMITS = {**settings.REQUEST_BODY_LIMITS, "/api/runner/v1/runs/": 4096}
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, 1, samples=[make_sample("h2", 1, i, error_detail="x" * 900)
                                                      for i in range(6)])
    assert response.status_code == 413, response.content
    assert response.json()["limit_bytes"] == 4096
    assert stored_state(leased["run_id"]) == before


@pytest.mark.django_db
def test_a_nul_character_in_the_baseline_is_400_and_writes_nothing(runner_api, leased):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, 1, samples=good_block_1(), baseline={"tcp": {"note": "a\u0000b"}})
    assert response.status_code == 400, response.content
    assert "baseline" in response.json()
    assert stored_state(leased["run_id"]) == before
