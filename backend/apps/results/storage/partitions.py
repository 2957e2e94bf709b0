"""The sample table's monthly partitions (migration 0007 made results_sample a table
partitioned by month of `stored_at`; docs/operations.md, "The sample table").

A month's partition is results_sample_pYYYYMM, covering that UTC month; rows whose month
has none land in results_sample_default, so ingestion never fails for want of one.
results_sample_month_ensure() (SQL, defined by the migration) is the one place a month's
partition is made: it also moves that month's rows out of DEFAULT.
"""

from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

from django.db import connection
from django.utils import timezone

MONTHS_AHEAD = 2  # partitions kept ready beyond the current month (the task runs hourly)
DEFAULT_PARTITION = "results_sample_default"


@dataclass(frozen=True)
class SamplePartition:
    name: str
    month: date  # its first day
    lower: datetime
    upper: datetime  # exclusive


def sample_partitions() -> list[SamplePartition]:
    """The month partitions, oldest first (not DEFAULT)."""
    with connection.cursor() as cursor:
        cursor.execute(r"""
            SELECT c.relname, m.month, b.lower, b.upper
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
                 LATERAL (SELECT to_date(substr(c.relname, length('results_sample_p') + 1), 'YYYYMM') AS month) m,
                 LATERAL results_sample_month_bounds(m.month) b
            WHERE i.inhparent = 'results_sample'::regclass AND c.relname ~ '^results_sample_p\d{6}$'
            ORDER BY m.month""")
        return [SamplePartition(*row) for row in cursor.fetchall()]


def sample_partitions_ensure(*, now: datetime | None = None, months_ahead: int = MONTHS_AHEAD) -> list[str]:
    """Create the partitions of the current month and the `months_ahead` after it, and of any
    month whose rows wait in DEFAULT (moving them in); idempotent. Returns the names created."""
    now = now or timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT 'results_sample_p' || to_char(month, 'YYYYMM'), results_sample_month_ensure(month)
            FROM (SELECT (date_trunc('month', %(now)s AT TIME ZONE 'UTC') + n * interval '1 month')::date AS month
                  FROM generate_series(0, %(ahead)s) n
                  UNION
                  SELECT DISTINCT date_trunc('month', stored_at AT TIME ZONE 'UTC')::date
                  FROM results_sample_default) months
            ORDER BY month""", {"now": now, "ahead": months_ahead})
        return [name for name, created in cursor.fetchall() if created]


def default_partition_rows(*, at_most: int = 1_000_000) -> int:
    """Rows in DEFAULT (0 while the maintenance runs), counted up to `at_most`."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM (SELECT FROM {DEFAULT_PARTITION} LIMIT %s) rows", [at_most])  # noqa: S608  a module constant
        return int(cursor.fetchone()[0])


def partition_comparison_ids(name: str) -> list[UUID]:
    """The comparisons with samples in partition `name`: one index descent per comparison
    (a loose scan of its (comparison, run, block) index), not a read of every row."""
    table = connection.ops.quote_name(name)
    with connection.cursor() as cursor:
        cursor.execute(f"""
            WITH RECURSIVE ids AS (
                (SELECT comparison_id FROM {table} ORDER BY comparison_id LIMIT 1)
                UNION ALL
                SELECT (SELECT s.comparison_id FROM {table} s WHERE s.comparison_id > ids.comparison_id
                        ORDER BY s.comparison_id LIMIT 1)
                FROM ids WHERE ids.comparison_id IS NOT NULL
            )
            SELECT comparison_id FROM ids WHERE comparison_id IS NOT NULL""")  # noqa: S608  a partition's name from pg_class, quoted
        return [row[0] for row in cursor.fetchall()]


def sample_partition_drop(name: str) -> None:
    """Drop a month partition, inside the caller's transaction. Dropping locks the whole
    sample table, so it waits at most a few seconds for running reads (a long export) and
    then fails rather than queue every upload behind it; the hourly task tries again."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '5s'")
        cursor.execute(f"DROP TABLE {connection.ops.quote_name(name)}")
