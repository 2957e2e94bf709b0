"""results_blockcolumns.data compressed with lz4 instead of stored uncompressed (0003).

A block's analysis columns are ~100 bytes a sample (0.5 MB for a 5,000-sample block), written
in the upload's transaction. pglz, PostgreSQL's default, was slow on them (0003 stored them
uncompressed for that); lz4 writes a realistic block in less time than the uncompressed value
(~2.2 ms against ~2.8 ms for 0.5 MB, which it makes ~3.8 × smaller) and reads it as fast.
Rows already stored stay as they are until rewritten; both forms read alike. A PostgreSQL built
without lz4 (PostgreSQL's images and Debian's packages have it) keeps the uncompressed storage."""

from django.db import migrations

LZ4 = """
DO $$
BEGIN
    ALTER TABLE results_blockcolumns ALTER COLUMN data SET COMPRESSION lz4;
    ALTER TABLE results_blockcolumns ALTER COLUMN data SET STORAGE EXTENDED;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL has no lz4: the analysis columns stay uncompressed';
END
$$
"""
UNCOMPRESSED = """
ALTER TABLE results_blockcolumns ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE results_blockcolumns ALTER COLUMN data SET COMPRESSION DEFAULT
"""


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0010_sample_issued_mono_us"),
    ]

    operations = [migrations.RunSQL(LZ4, UNCOMPRESSED)]
