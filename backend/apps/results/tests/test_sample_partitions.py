"""The sample table's month partitions (apps.results.storage.partitions) and the sample retention
(apps.results.storage.retention): a comparison whose samples span two partitions is analysed and
exported whole; the maintenance is idempotent and empties DEFAULT; retention drops only
whole old months and the API then says why the samples are gone."""

import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection

from apps.comparisons.models import Comparison
from apps.results.models import BlockColumns, SampleRemoval
from apps.results.services import analysis_compute, comparison_analyse
from apps.results.storage.loader import load_comparison
from apps.results.storage.partitions import DEFAULT_PARTITION, sample_partitions, sample_partitions_ensure
from apps.results.storage.retention import SamplesRemoved, sample_storage_maintain
from apps.results.tests.test_loader_block_columns import assert_same
from testing.factories import run_measured_comparison

SPEC = {"name": "partitions", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3],
        "repetitions": 10}, "blocks": 6, "seed": 3}
# The maintenance runs as at NOW: the samples stored for real (this month or later) are newer
# than any retention below; OLD's month ended 57 days before NOW.
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
OLD = datetime(2026, 8, 15, 12, 0, tzinfo=UTC)


def measured(runner_api, org, seed: int) -> Comparison:
    return run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.8}, seed=seed,
                                   blocks=6)


def partition_counts(comparison: Comparison) -> dict[str, int]:
    """Where the comparison's samples physically are: partition name → rows."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT tableoid::regclass::text, count(*) FROM results_sample WHERE comparison_id = %s "
                       "GROUP BY 1", [comparison.pk])
        return dict(cursor.fetchall())


def store_blocks_in(comparison: Comparison, blocks: range, when: datetime) -> None:
    """As if these blocks had been uploaded at `when`: their rows move to that month's partition."""
    sample_partitions_ensure(now=when, months_ahead=0)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE results_sample SET stored_at = %s WHERE comparison_id = %s AND block = ANY(%s)",
                       [when, comparison.pk, list(blocks)])


def stored_rows(comparison: Comparison) -> list[tuple]:
    """Every stored column but stored_at, in id order."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM results_sample WHERE comparison_id = %s ORDER BY id", [comparison.pk])
        names = [c.name for c in cursor.description]
        return [tuple(v for n, v in zip(names, row, strict=True) if n != "stored_at") for row in cursor.fetchall()]


def exported(api, comparison: Comparison) -> tuple[list[dict], list[dict]]:
    response = api.get(f"/api/v1/comparisons/{comparison.id}/samples.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    response = api.get(f"/api/v1/comparisons/{comparison.id}/samples.json")
    assert response.status_code == 200
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    return rows, lines


@pytest.mark.django_db
def test_a_comparison_spanning_two_partitions_is_analysed_and_exported_whole(api, org, runner_api):
    comparison = measured(runner_api, org, seed=1)
    before_csv, before_json = exported(api, comparison)
    before = analysis_compute(comparison=comparison)
    from_blocks = load_comparison(comparison, phases=True)

    store_blocks_in(comparison, range(3), OLD)
    counts = partition_counts(comparison)
    assert counts == {"results_sample_p202608": 3 * 6, f"results_sample_p{datetime.now(UTC):%Y%m}": 3 * 6}

    # The block columns path reads no sample; the samples path reads both partitions.
    BlockColumns.objects.filter(run__comparison=comparison).delete()
    assert_same(from_blocks, load_comparison(comparison, phases=True))
    after = analysis_compute(comparison=comparison)
    assert after["analysis"]["comparisons"] == before["analysis"]["comparisons"]
    assert after["groups"] == before["groups"]

    rows, lines = exported(api, comparison)
    assert len(rows) == len(lines) == 36
    assert len({(r["run"], r["block"], r["seq"]) for r in rows}) == 36  # each sample exactly once
    assert (rows, lines) == (before_csv, before_json)  # same rows, same order


@pytest.mark.django_db
def test_maintenance_makes_months_ahead_once_and_empties_default(api, org, runner_api):
    first = sample_partitions_ensure(now=NOW)
    assert sample_partitions_ensure(now=NOW) == []  # idempotent
    names = [p.name for p in sample_partitions()]
    assert {"results_sample_p202611", "results_sample_p202612", "results_sample_p202701"} <= set(names)
    assert set(first) <= set(names)

    comparison = measured(runner_api, org, seed=2)
    # A month without a partition (the task had not run for a long while): the rows land in
    # DEFAULT instead of being refused.
    lost = datetime(2029, 3, 10, tzinfo=UTC)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE results_sample SET stored_at = %s WHERE comparison_id = %s AND block < 2",
                       [lost, comparison.pk])
    assert partition_counts(comparison)[DEFAULT_PARTITION] == 12

    report = sample_storage_maintain(now=NOW, retention_days=None)
    assert report.created == ["results_sample_p202903"]
    assert DEFAULT_PARTITION not in partition_counts(comparison)
    assert partition_counts(comparison)["results_sample_p202903"] == 12
    assert sum(partition_counts(comparison).values()) == 36
    assert sample_storage_maintain(now=NOW, retention_days=None).created == []


@pytest.mark.django_db
def test_retention_drops_only_whole_old_months_and_the_api_says_why(api, org, runner_api):
    spanning = measured(runner_api, org, seed=3)
    recent = measured(runner_api, org, seed=4)
    store_blocks_in(spanning, range(2), OLD)
    stored_analysis = api.get(f"/api/v1/comparisons/{spanning.id}/results").json()
    assert stored_analysis["samples_removed"] is None
    verdict = api.get(f"/api/v1/comparisons/{spanning.id}/verdict").json()

    # Nothing is old enough for a year's retention.
    report = sample_storage_maintain(now=NOW, retention_days=365)
    assert report.dropped == []
    assert SampleRemoval.objects.count() == 0

    report = sample_storage_maintain(now=NOW, retention_days=30)
    assert report.dropped == ["results_sample_p202608"]
    assert report.comparisons_affected == 1
    assert "results_sample_p202608" not in [p.name for p in sample_partitions()]
    current = f"results_sample_p{datetime.now(UTC):%Y%m}"
    assert partition_counts(spanning) == {current: 4 * 6}  # the newer blocks stay until their month goes
    assert partition_counts(recent) == {current: 36}
    assert not BlockColumns.objects.filter(run__comparison=spanning).exists()
    assert BlockColumns.objects.filter(run__comparison=recent).count() == 6
    assert sample_storage_maintain(now=NOW, retention_days=30).dropped == []  # idempotent

    # The samples of the spanning comparison: gone, said so; its analysis still serves.
    for fmt in ("csv", "json"):
        response = api.get(f"/api/v1/comparisons/{spanning.id}/samples.{fmt}")
        assert response.status_code == 410
        body = response.json()
        assert "removed by the 30-day sample retention on 2026-11-26;" in body["detail"]
        assert body["samples_removed"]["retention_days"] == 30
    results = api.get(f"/api/v1/comparisons/{spanning.id}/results").json()
    assert results["samples_removed"]["retention_days"] == 30
    assert {k: v for k, v in results.items() if k != "samples_removed"} == \
        {k: v for k, v in stored_analysis.items() if k != "samples_removed"}
    assert api.get(f"/api/v1/comparisons/{spanning.id}/verdict").json() == verdict
    # A verdict that would read its samples (against it as a baseline) says so too.
    response = api.get(f"/api/v1/comparisons/{recent.id}/verdict", {"baseline": str(spanning.id)})
    assert response.status_code == 410
    assert "30-day sample retention" in response.json()["detail"]
    with pytest.raises(SamplesRemoved):
        load_comparison(spanning)

    # The other comparison is untouched.
    rows, _ = exported(api, recent)
    assert len(rows) == 36
    assert api.get(f"/api/v1/comparisons/{recent.id}/results").json()["samples_removed"] is None


@pytest.mark.django_db
def test_a_month_whose_drop_waits_on_a_long_read_is_left_for_the_next_run(org, runner_api):
    comparison = measured(runner_api, org, seed=8)
    store_blocks_in(comparison, range(2), OLD)
    reader = psycopg.connect(**{k: v for k, v in connection.get_connection_params().items()
                                if k in ("host", "port", "user", "password", "dbname")})
    try:
        reader.execute("SET lock_timeout = '10s'")  # a mistake here fails rather than waits on this test
        # What an export in progress holds on the sample table (the partitions this test made
        # are not committed, so the reader takes the table's own lock only).
        reader.execute("LOCK TABLE ONLY results_sample IN ACCESS SHARE MODE")
        report = sample_storage_maintain(now=NOW, retention_days=30)
        assert report.deferred == ["results_sample_p202608"]
        assert report.dropped == []
        assert not SampleRemoval.objects.exists()  # nothing recorded for a drop that did not happen
        assert partition_counts(comparison)["results_sample_p202608"] == 12
    finally:
        reader.close()
    assert sample_storage_maintain(now=NOW, retention_days=30).dropped == ["results_sample_p202608"]
    assert SampleRemoval.objects.filter(comparison=comparison).exists()


@pytest.mark.django_db
def test_analysing_a_comparison_whose_samples_were_dropped_fails_it_saying_why(org, runner_api):
    comparison = measured(runner_api, org, seed=5)
    store_blocks_in(comparison, range(6), OLD)
    sample_storage_maintain(now=NOW, retention_days=30)
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    assert comparison_analyse(comparison_id=str(comparison.id)) is None
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.FAILED
    assert "removed by the 30-day sample retention" in comparison.error
    assert comparison.analyses.count() == 1  # the first analysis stays


def test_retention_setting_is_checked_at_startup():
    # The settings module alone, in a fresh process: the check runs when it loads, the first thing
    # django.setup() does (the apps' import after it would cost 3-4 s of CPU per value).
    for value, ok in (("", True), ("90", True), ("0", False), ("-5", False), ("ninety", False)):
        result = subprocess.run(
            [sys.executable, "-c", "import config.settings.test as settings; print(settings.SAMPLE_RETENTION_DAYS)"],
            env={**os.environ, "LATENCYLAB_SAMPLE_RETENTION_DAYS": value},
            capture_output=True, text=True, check=False)
        assert (result.returncode == 0) == ok, (value, result.stderr[-300:])
        if ok:
            assert result.stdout.strip() == (value or "None")
        else:
            assert "LATENCYLAB_SAMPLE_RETENTION_DAYS" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_the_migration_converts_stored_samples_and_back(org, runner_api):
    """0007 on a table with rows: each keeps its id and values, gets its comparison's creation
    time as stored_at (so its month's partition), and the id sequence goes on; back to 0006 and
    forward again loses nothing."""
    from django.db.migrations.executor import MigrationExecutor

    comparison = measured(runner_api, org, seed=6)
    Comparison.objects.filter(pk=comparison.pk).update(created_at=OLD)
    before = stored_rows(comparison)
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("results")

    def migrate(target: list[tuple[str, str]]) -> None:
        MigrationExecutor(connection).migrate(target)

    try:  # the database is left migrated whatever happens, for the tests after this one
        migrate([("results", "0006_analysis_compute_seconds")])
        with connection.cursor() as cursor:
            cursor.execute("SELECT relkind FROM pg_class WHERE relname = 'results_sample'")
            assert cursor.fetchone() == ("r",)  # a plain table again
            cursor.execute("SELECT count(*), max(id) FROM results_sample")
            count, last_id = cursor.fetchone()
        assert count == 36
        migrate(latest)
    finally:
        migrate(latest)
    assert stored_rows(comparison) == before
    assert partition_counts(comparison) == {"results_sample_p202608": 36}  # the comparison's month
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('results_sample', 'id'))")
        assert cursor.fetchone()[0] > last_id


@pytest.mark.django_db
def test_samples_waiting_in_default_show_in_the_metrics(settings, org, runner_api):
    from django.test import Client

    settings.LATENCYLAB_METRICS_TOKEN = "metrics-token-for-tests"  # noqa: S105
    comparison = measured(runner_api, org, seed=7)
    with connection.cursor() as cursor:  # a month the maintenance has not made yet
        cursor.execute("UPDATE results_sample SET stored_at = %s WHERE comparison_id = %s AND block = 0",
                       [datetime(2031, 1, 2, tzinfo=UTC), comparison.pk])

    def waiting() -> str:
        body = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer metrics-token-for-tests").content.decode()
        return next(line for line in body.splitlines() if line.startswith("latencylab_samples_without_partition "))

    assert waiting() == "latencylab_samples_without_partition 6.0"
    sample_storage_maintain(now=NOW, retention_days=None)
    assert waiting() == "latencylab_samples_without_partition 0.0"
