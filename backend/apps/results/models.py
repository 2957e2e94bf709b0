from django.db import models

from apps.comparisons.models import Arm, Comparison, Run


class Sample(models.Model):
    """One request (DESIGN §5.2). Timestamps are µs from t0; null = phase did not happen.
    Durations are derived at ingest (apps.results.derive), in one place."""

    id = models.BigAutoField(primary_key=True)
    # No database-level foreign keys: checking three per row at commit capped ingestion
    # at ~60k samples/s. The upload service takes every id from the leased run itself,
    # inside the same transaction, so the references are valid by construction; Django's
    # cascade still deletes samples with their run or comparison.
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="+", db_index=False,
                                   db_constraint=False)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="samples", db_index=False,
                            db_constraint=False)
    arm = models.ForeignKey(Arm, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False)
    block = models.PositiveSmallIntegerField()
    period = models.IntegerField(null=True)
    repetition = models.IntegerField(null=True)
    step = models.IntegerField(null=True)
    seq = models.IntegerField()
    part = models.CharField(max_length=16, null=True)
    phase = models.CharField(max_length=8)
    op = models.CharField(max_length=16, blank=True)
    path = models.CharField(max_length=512, blank=True)
    wall_time = models.BigIntegerField()
    dns_start = models.BigIntegerField(null=True)
    dns_end = models.BigIntegerField(null=True)
    conn_start = models.BigIntegerField(null=True)
    tls_start = models.BigIntegerField(null=True)
    conn_ready = models.BigIntegerField(null=True)
    req_start = models.BigIntegerField(null=True)
    req_end = models.BigIntegerField(null=True)
    resp_first_byte = models.BigIntegerField(null=True)
    resp_headers_end = models.BigIntegerField(null=True)
    resp_end = models.BigIntegerField(null=True)
    app_done = models.BigIntegerField(null=True)
    conn_id = models.CharField(max_length=64, null=True)
    conn_reused = models.BooleanField(null=True)
    alpn = models.CharField(max_length=16, null=True)
    tls_version = models.CharField(max_length=16, null=True)
    tls_resumed = models.BooleanField(null=True)
    early_data = models.BooleanField(null=True)
    req_bytes = models.BigIntegerField(null=True)
    resp_bytes = models.BigIntegerField(null=True)
    status = models.IntegerField(null=True)
    server_delay_ms = models.FloatField(null=True)
    server_time_us = models.BigIntegerField(null=True)
    srtt_us = models.BigIntegerField(null=True)
    retrans = models.IntegerField(null=True)
    error_class = models.CharField(max_length=24, null=True)
    error_detail = models.CharField(max_length=1000, null=True)
    # Derived once at ingest.
    total_us = models.BigIntegerField(null=True)
    ttfb_us = models.BigIntegerField(null=True)

    class Meta:
        indexes = [models.Index(fields=["comparison", "run", "block"], name="sample_cmp_run_block")]


class BlockColumns(models.Model):
    """The analysis columns of one stored block (apps.results.block_columns), written with its
    samples in the same transaction: the loader reads a comparison in a few large values
    instead of one COPY message per sample. Runs stored before these existed have none;
    the loader then reads their samples."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    block = models.PositiveSmallIntegerField()
    format_version = models.PositiveSmallIntegerField()
    rows = models.IntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "block"], name="blockcolumns_unique_run_block")]


class Analysis(models.Model):
    """Versioned aggregates and verdicts of one comparison, shaped for the charts."""

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="analyses")
    version = models.PositiveIntegerField()
    engine = models.CharField(max_length=32)
    result = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["comparison", "version"], name="analysis_unique_version")]
        ordering = ["-version"]
