"""The runner protocol's edge cases (issue 15), through the real HTTP handling and PostgreSQL:
a runner whose clock is minutes off, an upload that outlives its lease, a repeated batch
(also with other contents), `ok` before every block is stored, and two agents holding one
runner token. Each ends with no corruption (every stored (block, seq) once, from one
attempt) and a 409 that says what happened."""

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from apps.comparisons.models import Run
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import Sample
from apps.results.services import analysis_compute
from apps.scheduler.leasing import leases_reap_expired
from testing.factories import SPEC, make_sample
from testing.runner_calls import lease, upload

from .test_malformed_uploads import stored_state

HEARTBEAT = "/api/runner/v1/heartbeat"
MINUTES = 60_000_000  # µs


def finish(client: APIClient, leased: dict[str, Any], status: str = "ok") -> Any:
    return client.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                       {"lease_token": leased["lease_token"], "status": status}, format="json")


def heartbeat(client: APIClient, leased: dict[str, Any]) -> Any:
    return client.post(HEARTBEAT, {"devices": [{"serial": "host-lab-1", "state": "busy"}],
                                   "runs": [{"run_id": leased["run_id"], "lease_token": leased["lease_token"]}]},
                       format="json")


def marked_block(block: int, marker: int) -> list[dict[str, Any]]:
    """Block `block`'s six samples, told apart from another attempt's by app_done = marker + seq."""
    return [make_sample("h2", block, i, app_done=marker + i) for i in range(6)]


def stored_rows(run_id: str) -> list[tuple[int, int, int | None]]:
    return list(Sample.objects.filter(run_id=run_id).order_by("block", "seq").values_list("block", "seq", "app_done"))


# -- a runner whose clock is minutes off ------------------------------------------------------------


def server_time(value: str) -> datetime:
    parsed = parse_datetime(value)
    assert parsed is not None, value
    return parsed


def skewed_samples(block: int, offset_us: int) -> list[dict[str, Any]]:
    """A parallel series (start times matter: its time is first issued → last completed) as
    a runner whose clock reads `offset_us` off would report it."""
    base = 1_700_000_000_000_000 + block * 10_000_000 + offset_us
    return [make_sample(arm, block, seq, step=seq % 3, wall_time=base + 250 * seq, app_done=1000 + 37 * seq,
                        resp_end=900 + 37 * seq, resp_first_byte=400 + seq)
            for seq, arm in enumerate(["https-h1"] * 3 + ["h2"] * 3)]


def measured_with_clock(runner_api: APIClient, org: Any, offsets_us: list[int]) -> dict[str, Any]:
    """A two-block comparison whose runner's clock is offsets_us[block] off during each block
    (one clock step between the blocks): what the analysis makes of it."""
    spec = {**SPEC, "workload": {"kind": "series", "periods": [3], "repetitions": 2}}  # the preset's parallel 4
    comparison = comparison_create(organization=org, submitted_spec=spec)
    comparison_plan(comparison_id=str(comparison.id))
    leased = lease(runner_api).json()["runs"][0]
    for block, offset in enumerate(offsets_us):
        assert upload(runner_api, leased, block, samples=skewed_samples(block, offset)).status_code == 200
    stored = list(Sample.objects.filter(run_id=leased["run_id"]).order_by("block", "seq").values_list("wall_time",
                                                                                                       flat=True))
    assert stored == [s["wall_time"] for block, offset in enumerate(offsets_us)
                      for s in skewed_samples(block, offset)]  # kept exactly as the runner sent them
    assert finish(runner_api, leased).json()["status"] == "done"
    comparison.refresh_from_db()
    return analysis_compute(comparison=comparison)


@pytest.mark.django_db
def test_a_runner_clock_minutes_off_does_not_move_its_lease(runner_api, queued_run):
    lease_length = timedelta(seconds=60)
    before = timezone.now()
    leased = lease(runner_api).json()["runs"][0]
    after = timezone.now()
    # The lease's expiry is the server's clock plus the lease length: nothing the runner
    # sends carries a time that could move it.
    assert before + lease_length <= server_time(leased["lease_expires_at"]) <= after + lease_length
    # Samples stamped by a clock 20 minutes behind, then by one 20 minutes ahead.
    behind = [make_sample("h2", 0, i, wall_time=1_700_000_000_000_000 - 20 * MINUTES + i) for i in range(6)]
    assert upload(runner_api, leased, 0, samples=behind).status_code == 200
    ahead = [make_sample("h2", 1, i, wall_time=1_700_000_000_000_000 + 20 * MINUTES + i) for i in range(6)]
    before = timezone.now()
    assert upload(runner_api, leased, 1, samples=ahead).status_code == 200
    answer = heartbeat(runner_api, leased).json()
    after = timezone.now()
    expires = Run.objects.get(pk=leased["run_id"]).lease_expires_at
    assert expires is not None
    assert before + lease_length <= expires <= after + lease_length
    assert server_time(answer["lease_expires_at"]) == expires
    assert [b for b, _, _ in stored_rows(leased["run_id"])] == [0] * 6 + [1] * 6  # order is block, seq


@pytest.mark.django_db
def test_the_analysis_is_the_same_whatever_the_runner_clock_read(runner_api, org, pool):
    true_clock = measured_with_clock(runner_api, org, [0, 0])
    skewed = measured_with_clock(runner_api, org, [-7 * MINUTES, 9 * MINUTES])
    assert skewed["groups"] == true_clock["groups"]
    assert skewed["analysis"]["requests"] == true_clock["analysis"]["requests"]


# -- a slow upload that outlives its lease -----------------------------------------------------------


@pytest.mark.django_db
def test_an_upload_after_its_lease_expired_or_moved_on_is_409_and_stores_nothing(runner_api, queued_run):
    first = lease(runner_api).json()["runs"][0]
    assert upload(runner_api, first, 0, samples=marked_block(0, 1000)).status_code == 200
    Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    before = stored_state(first["run_id"])

    expired = upload(runner_api, first, 1, samples=marked_block(1, 1000))
    assert expired.status_code == 409
    assert expired.json()["detail"].startswith("The lease on this run expired at ")
    assert "(server time" in expired.json()["detail"]
    assert stored_state(first["run_id"]) == before

    assert leases_reap_expired() == 1
    requeued = upload(runner_api, first, 1, samples=marked_block(1, 1000))
    assert requeued.status_code == 409
    assert requeued.json()["detail"] == ("The lease expired and the run was requeued; its next attempt resumes at "
                                         "block 1. Stop this attempt.")

    second = lease(runner_api).json()["runs"][0]
    assert (second["attempt"], second["next_block"]) == (2, 1)
    late = upload(runner_api, first, 1, samples=marked_block(1, 1000))
    assert late.status_code == 409
    assert late.json()["detail"] == ("The run was leased again (attempt 2); this lease token belongs to an earlier "
                                     "attempt. Stop this attempt.")
    assert finish(runner_api, first).status_code == 409
    assert heartbeat(runner_api, first).json()["commands"] == [{"type": "cancel_run", "run_id": first["run_id"]}]
    assert stored_state(first["run_id"])["samples"] == before["samples"]

    # The new attempt is untouched by any of it.
    assert upload(runner_api, second, 1, samples=marked_block(1, 2000)).json() == {
        "stored": 6, "duplicate": False, "next_block": 2}
    assert finish(runner_api, second).json()["status"] == "done"
    assert stored_rows(first["run_id"]) == [(0, i, 1000 + i) for i in range(6)] + [(1, i, 2000 + i) for i in range(6)]


@pytest.mark.django_db
def test_a_heartbeat_after_the_lease_expired_cancels_the_run_before_the_reaper_gets_there(runner_api, queued_run):
    """An expired lease is gone (contract README, heartbeat) whether or not the reaper has
    requeued the run yet: the heartbeat must not bring it back, or whether the run goes on
    would depend on which comes first, the heartbeat or the reaper."""
    leased = lease(runner_api).json()["runs"][0]
    expired_at = timezone.now() - timedelta(seconds=1)
    Run.objects.filter(pk=leased["run_id"]).update(lease_expires_at=expired_at)
    answer = heartbeat(runner_api, leased).json()
    assert answer["commands"] == [{"type": "cancel_run", "run_id": leased["run_id"]}]
    assert answer["lease_expires_at"] is None
    assert Run.objects.get(pk=leased["run_id"]).lease_expires_at == expired_at
    assert leases_reap_expired() == 1


# -- a repeated batch -------------------------------------------------------------------------------


@pytest.fixture
def leased(runner_api, queued_run) -> dict[str, Any]:
    leased = lease(runner_api).json()["runs"][0]
    assert upload(runner_api, leased, 0, samples=marked_block(0, 1000)).status_code == 200
    return leased


@pytest.mark.django_db
def test_a_repeated_batch_is_acknowledged_and_stored_once(runner_api, leased):
    before = stored_state(leased["run_id"])
    for _ in range(2):
        again = upload(runner_api, leased, 0, samples=marked_block(0, 1000))
        assert again.json() == {"stored": 0, "duplicate": True, "next_block": 1}
    # The same contents in another key order are the same batch.
    reordered = [dict(reversed(list(s.items()))) for s in reversed(marked_block(0, 1000))]
    assert upload(runner_api, leased, 0, samples=reordered).json()["duplicate"] is True
    assert stored_state(leased["run_id"]) == before


STORED_BLOCK_0 = ("block 0 is already stored (attempt 1, batch_seq 0) with other samples or another baseline; a "
                  "stored block is never replaced. Nothing was stored.")
CHANGED = {
    "one sample's time": lambda: [*marked_block(0, 1000)[:5], make_sample("h2", 0, 5, app_done=9999)],
    "one sample fewer": lambda: marked_block(0, 1000)[:5],
    "a sample's text": lambda: [*marked_block(0, 1000)[:5], make_sample("h2", 0, 5, app_done=1005, alpn="h3")],
}


@pytest.mark.django_db
@pytest.mark.parametrize("samples", CHANGED.values(), ids=CHANGED.keys())
def test_the_same_block_with_other_contents_is_409_and_the_first_copy_stands(runner_api, leased, samples):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, 0, samples=samples())
    assert response.status_code == 409, response.content
    assert response.json()["detail"] == STORED_BLOCK_0
    assert stored_state(leased["run_id"]) == before


# A batch that contradicts what is stored or leased: (block, what differs from a good upload, detail).
CONTRADICTING = {
    "the same block with another baseline": (0, {"baseline": {"tcp": {"n": 10, "avg_ms": 9}}}, STORED_BLOCK_0),
    "a batch_seq used for another block": (1, {"batch_seq": 0}, (
        "batch_seq: 0 was already used for block 0 of this run; a batch is one block, and each carries its own "
        "batch_seq. Nothing was stored.")),
    "a batch naming another attempt": (1, {"attempt": 2}, "attempt: this lease is attempt 1; the batch says 2."),
}


@pytest.mark.django_db
@pytest.mark.parametrize("block, differs, detail", CONTRADICTING.values(), ids=CONTRADICTING.keys())
def test_a_batch_contradicting_the_stored_blocks_or_the_lease_is_409(runner_api, leased, block, differs, detail):
    before = stored_state(leased["run_id"])
    response = upload(runner_api, leased, block, samples=marked_block(block, 1000), **differs)
    assert response.status_code == 409, response.content
    assert response.json()["detail"] == detail
    assert stored_state(leased["run_id"]) == before


# -- finishing before every block is stored ---------------------------------------------------------


@pytest.mark.django_db
def test_ok_before_every_block_is_stored_is_409_naming_them_and_changes_nothing(runner_api, leased):
    before = stored_state(leased["run_id"])
    early = finish(runner_api, leased)
    assert early.status_code == 409
    assert early.json() == {
        "detail": "status ok, but block 1 of 0…1 not stored: upload them, then finish again (or finish failed or "
                  "infra_error). Nothing was changed; the lease still holds.",
        "missing_blocks": [1]}
    assert stored_state(leased["run_id"]) == before
    run = Run.objects.get(pk=leased["run_id"])
    assert (run.status, run.finished_at, run.attempts.get().outcome) == ("leased", None, "running")
    # The lease still holds: the missing block, then ok.
    assert upload(runner_api, leased, 1, samples=marked_block(1, 1000)).status_code == 200
    assert finish(runner_api, leased).json()["status"] == "done"


@pytest.mark.django_db
def test_a_runner_that_gives_up_after_an_early_ok_loses_no_block(runner_api, leased, queued_run):
    assert finish(runner_api, leased).status_code == 409
    Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert leases_reap_expired() == 1
    again = lease(runner_api).json()["runs"][0]
    assert (again["attempt"], again["next_block"]) == (2, 1)  # back for exactly the missing block


@pytest.mark.django_db
def test_failed_before_every_block_is_stored_ends_the_run(runner_api, leased):
    assert finish(runner_api, leased, "failed").json()["status"] == "failed"


# -- two agents with one runner token ----------------------------------------------------------------


@pytest.mark.django_db
def test_two_agents_with_one_runner_token_never_mix_their_samples(runner_api, queued_run):
    twin = APIClient()
    twin.credentials(**runner_api._credentials)  # a second process started with the same config
    first = lease(runner_api).json()["runs"][0]
    assert lease(twin).status_code == 204  # the device holds a live lease
    # The twin's heartbeat holds nothing; it neither extends nor ends the first agent's lease.
    quiet = twin.post(HEARTBEAT, {"devices": [{"serial": "host-lab-1", "state": "available"}], "runs": []},
                      format="json").json()
    assert quiet["commands"] == []
    assert Run.objects.get(pk=queued_run.pk).lease_token == first["lease_token"]
    # Without the first agent's lease token the twin stores nothing for its run.
    guessed = upload(twin, {**first, "lease_token": "not-the-lease"}, 0, samples=marked_block(0, 2000))
    assert guessed.status_code == 409
    assert upload(runner_api, first, 0, samples=marked_block(0, 1000)).status_code == 200

    # The first agent stalls; its lease expires and the twin takes the run over.
    Run.objects.filter(pk=queued_run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    leases_reap_expired()
    second = lease(twin).json()["runs"][0]
    assert (second["attempt"], second["next_block"]) == (2, 1)
    # The first agent wakes up: every call it makes for the run is refused, with the reason.
    stale = upload(runner_api, first, 1, samples=marked_block(1, 1000))
    assert stale.status_code == 409
    assert "leased again (attempt 2)" in stale.json()["detail"]
    assert finish(runner_api, first).status_code == 409
    assert heartbeat(runner_api, first).json()["commands"] == [{"type": "cancel_run", "run_id": first["run_id"]}]
    assert upload(twin, second, 1, samples=marked_block(1, 2000)).json()["stored"] == 6
    assert finish(twin, second).json()["status"] == "done"
    # Block 0 from the first agent, block 1 from the twin: each block wholly one attempt's.
    assert stored_rows(first["run_id"]) == [(0, i, 1000 + i) for i in range(6)] + [(1, i, 2000 + i) for i in range(6)]


# -- a comparison cancelled mid-run ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_cancel_reaches_the_runner_in_its_next_heartbeat_and_frees_the_device(runner_api, api, leased, org):
    assert api.post(f"/api/v1/comparisons/{Run.objects.get(pk=leased['run_id']).comparison_id}/cancel"
                    ).json()["status"] == "cancelled"
    assert heartbeat(runner_api, leased).json()["commands"] == [{"type": "cancel_run", "run_id": leased["run_id"]}]
    refused = upload(runner_api, leased, 1, samples=marked_block(1, 1000))
    assert refused.status_code == 409
    assert refused.json()["detail"] == "The comparison was cancelled: this run takes nothing more. Stop it."
    assert finish(runner_api, leased).status_code == 409
    assert stored_rows(leased["run_id"]) == [(0, i, 1000 + i) for i in range(6)]  # block 0 stays
    # The device takes the next comparison's run.
    following = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(following.id))
    assert lease(runner_api).json()["runs"][0]["comparison_id"] == str(following.id)
