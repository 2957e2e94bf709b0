"""The comparison endpoints answer in a number of queries that does not grow with the page size or the
number of runs: progress comes from annotations, waiting reasons from one device query per page of runs."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.comparisons.models import Comparison, Run, RunBlock
from apps.comparisons.services import comparison_create, comparison_plan

SPEC = {"name": "query count", "preset": "mid-image-series", "blocks": 3,
        "workload": {"kind": "series", "periods": [3], "repetitions": 1}}


def planned_comparisons(org, count: int, *, devices: int = 1,
                        profiles: tuple[str, ...] = ("none",)) -> list[Comparison]:
    """`count` comparisons with devices × profiles queued runs each."""
    spec = {**SPEC, "devices": {"pool": "local", "count": devices}, "network_profiles": list(profiles)}
    comparisons = [comparison_create(organization=org, submitted_spec=spec) for _ in range(count)]
    for comparison in comparisons:
        comparison_plan(comparison_id=str(comparison.id))
    return comparisons


def queries_for(api, url: str) -> tuple[int, dict]:
    with CaptureQueriesContext(connection) as captured:
        response = api.get(url)
    assert response.status_code == 200, response.content
    return len(captured), response.json()


@pytest.mark.django_db
def test_the_comparison_list_costs_the_same_for_a_page_of_1_and_of_25(api, pool, runner_api,
                                                                        django_assert_num_queries):
    planned_comparisons(pool.organization, 1)
    one, body = queries_for(api, "/api/v1/comparisons")
    assert body["count"] == 1

    planned_comparisons(pool.organization, 24, devices=2, profiles=("none", "cable"))
    with django_assert_num_queries(one):
        body = api.get("/api/v1/comparisons").json()
    assert (body["count"], len(body["results"])) == (25, 25)
    assert {c["progress"]["runs_total"] for c in body["results"]} == {1, 4}


@pytest.mark.django_db
def test_a_comparison_costs_the_same_with_1_or_12_queued_runs(api, pool, runner_api, django_assert_num_queries):
    planned_comparisons(pool.organization, 1)  # ahead of both: the work ahead is read once per comparison
    (small,) = planned_comparisons(pool.organization, 1)
    one, body = queries_for(api, f"/api/v1/comparisons/{small.id}")
    assert [run["waiting_for"] for run in body["runs"]] == [
        "waiting for a free host device in pool 'local': 1 comparison ahead (1 run, 3 blocks left) on 1 ready device"]

    (large,) = planned_comparisons(pool.organization, 1, devices=3, profiles=("none", "cable", "dsl", "lte"))
    with django_assert_num_queries(one):
        body = api.get(f"/api/v1/comparisons/{large.id}").json()
    assert len(body["runs"]) == 12
    assert all(run["waiting_for"] for run in body["runs"])  # every queued run says why, from one device query


@pytest.mark.django_db
def test_the_list_counts_runs_and_blocks_without_multiplying_them(api, pool, runner_api):
    """Two runs with stored blocks: a join of runs × blocks in one GROUP BY would count 2 × 3 runs."""
    (comparison,) = planned_comparisons(pool.organization, 1, devices=2)
    first, second = comparison.runs.order_by("slot")
    for block in range(3):
        RunBlock.objects.create(run=first, block=block, attempt=0, batch_seq=block, sample_count=10)
    RunBlock.objects.create(run=second, block=0, attempt=0, batch_seq=0, sample_count=10)
    Run.objects.filter(pk=first.pk).update(status=Run.Status.DONE)
    # The first run stored a block every 10 s; the second has one block, so no pace of its own yet.
    start = timezone.now()
    for block in range(3):
        RunBlock.objects.filter(run=first, block=block).update(stored_at=start + timedelta(seconds=10 * block))

    (listed,) = api.get("/api/v1/comparisons").json()["results"]
    detail = api.get(f"/api/v1/comparisons/{comparison.id}").json()
    expected = {"runs_total": 2, "runs_done": 1, "blocks_total": 6, "blocks_done": 4, "percent": 66.7,
                "blocks_min": 6, "blocks_max": 6,
                # 2 blocks to come at 10 device seconds each
                "seconds_per_block": 10.0, "device_seconds_left_min": 20, "device_seconds_left_max": 20}
    assert listed["progress"] == detail["progress"] == expected


@pytest.mark.django_db
def test_a_run_until_decided_comparison_gives_the_device_time_left_as_min_and_max(api, pool):
    comparison = comparison_create(organization=pool.organization,
                                   submitted_spec={**SPEC, "blocks": {"min": 2, "max": 8}})
    comparison_plan(comparison_id=str(comparison.id))
    (run,) = comparison.runs.all()
    start = timezone.now()
    for block in range(2):
        RunBlock.objects.create(run=run, block=block, attempt=0, batch_seq=block, sample_count=10)
        RunBlock.objects.filter(run=run, block=block).update(stored_at=start + timedelta(seconds=5 * block))
    progress = api.get(f"/api/v1/comparisons/{comparison.id}").json()["progress"]
    # Decided at the first look: nothing left; at max: 6 more blocks of 5 s.
    assert (progress["blocks_min"], progress["blocks_max"], progress["blocks_done"]) == (2, 8, 2)
    assert progress["seconds_per_block"] == 5.0
    assert (progress["device_seconds_left_min"], progress["device_seconds_left_max"]) == (0, 30)
