"""Uploads that meet at the run's lock (apps.results.ingest.blocks): a third transaction holds the
run locked until both uploads wait for it, then lets go. The one that gets the lock second reads
the block records as the first committed them: the same block again is acknowledged as a
duplicate, another block under the same batch_seq is a 409 — one copy stored, none lost."""

import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from django.db import connection, connections
from latencylab_contract import columnar

from apps.comparisons.models import RunBlock
from apps.results.models import Sample
from testing.factories import make_sample
from testing.runner_calls import lease
from testing.waiting import wait_for


def columnar_upload(runner_api: Any, leased: dict, *, block: int, batch_seq: int) -> Callable[[], Any]:
    batch = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": batch_seq,
             "block": block, "samples": [make_sample("h2", block, i) for i in range(6)]}
    body = columnar.encode(batch)
    return lambda: runner_api.generic("POST", f"/api/runner/v1/runs/{leased['run_id']}/samples", body,
                                      content_type=columnar.MEDIA_TYPE)


def meeting_at_the_lock(run_id: str, uploads: list[Callable[[], Any]]) -> list[Any]:
    """Each upload in a thread of its own while another connection holds the run locked; the lock
    is let go once every upload waits for it. Their responses, in the uploads' order."""
    params = connection.get_connection_params()
    responses: list[Any] = [None] * len(uploads)

    def run(index: int) -> None:
        try:
            responses[index] = uploads[index]()
        finally:
            connections.close_all()

    with psycopg.connect(**params) as holder, psycopg.connect(**params, autocommit=True) as observer:
        holder.execute("SELECT 1 FROM comparisons_run WHERE id = %s FOR UPDATE", [run_id])
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(uploads))]
        for thread in threads:
            thread.start()

        def waiting() -> bool:  # each upload waits for the holder, or for the upload ahead of it
            row = observer.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                   "AND wait_event_type = 'Lock'").fetchone()
            return row is not None and row[0] == len(uploads)

        assert wait_for(waiting), "the uploads never waited for the run's lock"
        holder.commit()
        for thread in threads:
            thread.join()
    return responses


@pytest.mark.django_db(transaction=True)
def test_the_same_block_twice_at_once_is_stored_once_and_acknowledged_twice(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    upload = columnar_upload(runner_api, leased, block=0, batch_seq=0)
    responses = meeting_at_the_lock(leased["run_id"], [upload, upload])
    assert [r.status_code for r in responses] == [200, 200]
    assert sorted(r.json()["duplicate"] for r in responses) == [False, True]
    assert {r.json()["next_block"] for r in responses} == {1}
    assert Sample.objects.filter(run=queued_run).count() == 6
    assert RunBlock.objects.filter(run=queued_run).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_blocks_under_one_batch_seq_at_once_store_one_and_refuse_the_other(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    responses = meeting_at_the_lock(leased["run_id"], [columnar_upload(runner_api, leased, block=0, batch_seq=0),
                                                       columnar_upload(runner_api, leased, block=1, batch_seq=0)])
    assert sorted(r.status_code for r in responses) == [200, 409]
    refused = next(r for r in responses if r.status_code == 409)
    assert "batch_seq: 0 was already used" in refused.json()["detail"]
    stored = RunBlock.objects.get(run=queued_run)
    assert Sample.objects.filter(run=queued_run).count() == 6
    assert set(Sample.objects.filter(run=queued_run).values_list("block", flat=True)) == {stored.block}
