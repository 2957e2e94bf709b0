"""results_sample becomes a table partitioned by month of `stored_at` (when the row was
stored), so that retention drops whole months and every month's indexes stay small
(docs/operations.md, "The sample table").

The database's primary key becomes (id, stored_at): PostgreSQL requires the partition key
in every unique constraint. Django keeps `id` as the model's primary key; the identity
sequence still makes it unique.

Rows stored before this migration get their comparison's creation time as `stored_at`
(no better record exists; a comparison's samples arrive within its runs, usually hours).

Two SQL functions hold the one definition of a month's partition, used here and by the
maintenance task (apps.results.partitions):
- results_sample_month_ensure(month date): creates results_sample_pYYYYMM for that UTC
  month when missing, moving that month's rows out of the DEFAULT partition into it first
  (a row with no month partition lands in DEFAULT rather than being refused).
- results_sample_month_bounds(month date): the partition's [lower, upper) bounds.
"""

from django.db import migrations, models
from django.db.models.functions import Now

FUNCTIONS = r"""
CREATE FUNCTION results_sample_month_bounds(month date, OUT lower timestamptz, OUT upper timestamptz)
LANGUAGE sql IMMUTABLE AS $$
    SELECT date_trunc('month', month::timestamp) AT TIME ZONE 'UTC',
           (date_trunc('month', month::timestamp) + interval '1 month') AT TIME ZONE 'UTC'
$$;

CREATE FUNCTION results_sample_month_ensure(month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    name text := 'results_sample_p' || to_char(month, 'YYYYMM');
    bounds record;
BEGIN
    -- One maintainer at a time: two would both find the partition missing.
    PERFORM pg_advisory_xact_lock(hashtext('results_sample_month_ensure'));
    IF to_regclass(name) IS NOT NULL THEN
        RETURN false;
    END IF;
    SELECT * INTO bounds FROM results_sample_month_bounds(month);
    -- Built beside the table and attached: rows of this month already in DEFAULT move in
    -- first (ATTACH refuses while DEFAULT holds any), and the partition's indexes are built
    -- by ATTACH from the partitioned ones.
    EXECUTE format('CREATE TABLE %I (LIKE results_sample INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('WITH moved AS (DELETE FROM results_sample_default WHERE stored_at >= %L AND stored_at < %L '
                   'RETURNING *) INSERT INTO %I SELECT * FROM moved', bounds.lower, bounds.upper, name);
    EXECUTE format('ALTER TABLE results_sample ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   name, bounds.lower, bounds.upper);
    RETURN true;
END
$$;
"""

CONVERT = r"""
ALTER TABLE results_sample RENAME TO results_sample_unpartitioned;
ALTER INDEX sample_cmp_run_block RENAME TO sample_cmp_run_block_unpartitioned;
ALTER TABLE results_sample_unpartitioned RENAME CONSTRAINT results_sample_pkey TO results_sample_unpartitioned_pkey;

CREATE TABLE results_sample (
    LIKE results_sample_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE,
    stored_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, stored_at)
) PARTITION BY RANGE (stored_at);
CREATE INDEX sample_cmp_run_block ON results_sample (comparison_id, run_id, block);
CREATE TABLE results_sample_default PARTITION OF results_sample DEFAULT;

-- A partition for every month the existing rows fall in, this month and the next.
SELECT results_sample_month_ensure(month::date) FROM (
    SELECT DISTINCT date_trunc('month', c.created_at AT TIME ZONE 'UTC') AS month
    FROM comparisons_comparison c WHERE EXISTS (SELECT FROM results_sample_unpartitioned s
                                                 WHERE s.comparison_id = c.id)
    UNION SELECT date_trunc('month', now() AT TIME ZONE 'UTC')
    UNION SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month'
) months;

DO $$
DECLARE
    columns text := (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                     WHERE attrelid = 'results_sample_unpartitioned'::regclass AND attnum > 0 AND NOT attisdropped);
BEGIN
    EXECUTE format('INSERT INTO results_sample (%s, stored_at) OVERRIDING SYSTEM VALUE '
                   'SELECT %s, COALESCE(c.created_at, now()) FROM results_sample_unpartitioned s '
                   'LEFT JOIN comparisons_comparison c ON c.id = s.comparison_id',
                   columns, (SELECT string_agg('s.' || c, ', ') FROM unnest(string_to_array(columns, ', ')) c));
END
$$;

-- The id sequence goes on where it was (the ingestion counter of /metrics reads it).
SELECT setval(pg_get_serial_sequence('results_sample', 'id'),
              COALESCE(pg_sequence_last_value(pg_get_serial_sequence('results_sample_unpartitioned', 'id')), 1),
              pg_sequence_last_value(pg_get_serial_sequence('results_sample_unpartitioned', 'id')) IS NOT NULL);
DROP TABLE results_sample_unpartitioned;
ALTER SEQUENCE IF EXISTS results_sample_id_seq1 RENAME TO results_sample_id_seq;
"""

BACKWARD = r"""
ALTER TABLE results_sample RENAME TO results_sample_partitioned;
ALTER INDEX sample_cmp_run_block RENAME TO sample_cmp_run_block_partitioned;
ALTER TABLE results_sample_partitioned RENAME CONSTRAINT results_sample_pkey TO results_sample_partitioned_pkey;
CREATE TABLE results_sample (LIKE results_sample_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY
                             INCLUDING STORAGE);
ALTER TABLE results_sample DROP COLUMN stored_at;
DO $$
DECLARE
    columns text := (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                     WHERE attrelid = 'results_sample'::regclass AND attnum > 0 AND NOT attisdropped);
BEGIN
    EXECUTE format('INSERT INTO results_sample (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM results_sample_partitioned',
                   columns, columns);
END
$$;
ALTER TABLE results_sample ADD PRIMARY KEY (id);
CREATE INDEX sample_cmp_run_block ON results_sample (comparison_id, run_id, block);
SELECT setval(pg_get_serial_sequence('results_sample', 'id'),
              COALESCE(pg_sequence_last_value(pg_get_serial_sequence('results_sample_partitioned', 'id')), 1),
              pg_sequence_last_value(pg_get_serial_sequence('results_sample_partitioned', 'id')) IS NOT NULL);
DROP TABLE results_sample_partitioned;
ALTER SEQUENCE IF EXISTS results_sample_id_seq1 RENAME TO results_sample_id_seq;
DROP FUNCTION results_sample_month_ensure(date);
DROP FUNCTION results_sample_month_bounds(date);
"""


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0006_analysis_compute_seconds"),
        ("comparisons", "0002_run_device_label"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL([FUNCTIONS, CONVERT], BACKWARD)],
            state_operations=[
                migrations.AddField(
                    model_name="sample",
                    name="stored_at",
                    field=models.DateTimeField(db_default=Now(), editable=False,
                                               help_text="when the row was stored: the partition key"),
                ),
            ],
        ),
    ]
