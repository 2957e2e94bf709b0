"""What results keeps and how it is read back: the sample table and the values derived from
the stored analyses.

- `derive`: durations from a sample's phase timestamps, the one definition (numpy and SQL);
- `block_columns`: a stored block's analysis columns, the format ingestion writes and the
  loader reads;
- `partitions`: the sample table's monthly partitions;
- `retention`: whole months of samples dropped after the retention, and what a comparison
  whose samples went answers (410);
- `loader`: a comparison's samples out of PostgreSQL into the engine's SampleTable;
- `analysis_cache`: the shared cache (Redis) of values derived from stored analyses, one key
  scheme and one read-or-build.

May import: the statistics engine's table types (apps.results.analysis), the app's models and
the lower apps. Never ingest, the verdicts, the readers, selectors or services: everything
above reads and writes through here.
"""
