"""A month's partition made while a sample of that month is being stored: the row, which
lands in DEFAULT for want of the partition, must move into the new partition with the rest.
Two real PostgreSQL sessions: the ingesting one holds its insert open while the maintenance
makes the month; nothing here is timed (the maintenance is seen waiting on its lock)."""

import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection

from apps.results.storage.partitions import DEFAULT_PARTITION
from testing.waiting import wait_for

MONTH = "2001-01-01"  # long before any partition the suite makes
PARTITION = "results_sample_p200101"
# A sample row with only what the table requires (it has no foreign keys to check).
INSERT = ("INSERT INTO results_sample (comparison_id, run_id, arm_id, block, seq, phase, op, path, wall_time, "
          "stored_at) VALUES (gen_random_uuid(), gen_random_uuid(), 1, 0, %s, 'measure', '', '', 0, %s)")


def session() -> psycopg.Connection:
    params = connection.get_connection_params()
    pg = psycopg.connect(**{k: v for k, v in params.items() if k in ("host", "port", "user", "password", "dbname")})
    pg.execute("SET lock_timeout = '60s'")  # a mistake here fails the test rather than hanging it
    return pg


@pytest.fixture
def sessions() -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    ingest, maintain = session(), session()
    try:
        yield ingest, maintain
    finally:
        ingest.rollback()
        maintain.rollback()
        # What this test committed outside the test's transaction is undone by hand.
        with session() as cleanup:
            cleanup.execute(f"DROP TABLE IF EXISTS {PARTITION}")
            cleanup.execute(f"DELETE FROM {DEFAULT_PARTITION} WHERE stored_at < '2001-02-01'")
            cleanup.commit()
        ingest.close()
        maintain.close()


def waiting_on_a_lock(pg: psycopg.Connection) -> bool:
    with session() as observer:
        row = observer.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                               [pg.info.backend_pid]).fetchone()
    return row is not None and row[0] == "Lock"


@pytest.mark.django_db
def test_a_row_stored_while_its_month_is_made_moves_into_the_new_partition(sessions):
    ingest, maintain = sessions
    when = datetime(2001, 1, 15, tzinfo=UTC)
    ingest.execute(INSERT, [1, when])  # stored before: committed in DEFAULT
    ingest.commit()
    ingest.execute(INSERT, [2, when])  # being stored: its transaction stays open

    outcome: dict[str, object] = {}

    def make_month() -> None:
        try:
            outcome["created"] = maintain.execute("SELECT results_sample_month_ensure(%s)", [MONTH]).fetchone()[0]
            maintain.commit()
        except psycopg.Error as exc:
            outcome["error"] = exc
            maintain.rollback()

    maker = threading.Thread(target=make_month)
    maker.start()
    assert wait_for(lambda: waiting_on_a_lock(maintain) or not maker.is_alive(), 60)
    ingest.commit()  # the upload's transaction ends while the month is being made
    maker.join(60)

    assert "error" not in outcome, outcome.get("error")
    assert outcome["created"] is True
    with session() as check:
        where = dict(check.execute("SELECT tableoid::regclass::text, count(*) FROM results_sample "
                                   "WHERE stored_at < '2001-02-01' GROUP BY 1").fetchall())
    assert where == {PARTITION: 2}
