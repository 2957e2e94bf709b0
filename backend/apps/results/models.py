from django.db import models
from django.db.models.functions import Now

from apps.comparisons.models import Arm, Comparison, Run


class Sample(models.Model):
    """One request (device-runner/contract/sample.schema.json). Timestamps are µs from t0;
    null = phase did not happen. Durations are derived at ingest (apps.results.storage.derive), in
    one place."""

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
    # When the request was issued: µs since its block began, on the harness's monotonic clock
    # (null from harnesses that predate it); a concurrent series' span is measured on it.
    issued_mono_us = models.BigIntegerField(null=True)
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
    # Requests of the arm in flight when this one was issued, itself included (concurrency).
    in_flight = models.IntegerField(null=True)
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
    # The table is partitioned by month of this (migration 0007, apps.results.storage.partitions): the
    # database's primary key is (id, stored_at); id alone stays unique (an identity column).
    stored_at = models.DateTimeField(db_default=Now(), editable=False,
                                     help_text="when the row was stored: the partition key")

    class Meta:
        indexes = [models.Index(fields=["comparison", "run", "block"], name="sample_cmp_run_block")]


class BlockColumns(models.Model):
    """The analysis columns of one stored block (apps.results.storage.block_columns), written with its
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


class SampleRemoval(models.Model):
    """Retention dropped (some of) this comparison's samples (apps.results.storage.retention): its
    stored analyses still serve charts, verdicts and reports, but its samples can no longer
    be exported or analysed again, and the API says why with this record."""

    comparison = models.OneToOneField(Comparison, on_delete=models.CASCADE, primary_key=True, related_name="+")
    removed_at = models.DateTimeField()
    retention_days = models.PositiveIntegerField(help_text="the retention in force when they were dropped")
    partition = models.CharField(max_length=64, help_text="the first month partition dropped with its samples")


class Analysis(models.Model):
    """Versioned aggregates and verdicts of one comparison, shaped for the charts."""

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="analyses")
    version = models.PositiveIntegerField()
    engine = models.CharField(max_length=32)
    result = models.JSONField()
    compute_seconds = models.FloatField(null=True, blank=True,
                                        help_text="time to compute it (null: before this was recorded, or imported)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["comparison", "version"], name="analysis_unique_version")]
        ordering = ["-version"]


class VerdictLook(models.Model):
    """One look of a run-until-decided comparison (apps.results.analysis.sequential): the gate's
    verdict at that many blocks per device, tested at the α spent on this look, and what the
    scheduler did next. The verdict endpoint serves them as `history`."""

    class Decision(models.TextChoices):
        STOP = "stop"  # decided, or max blocks reached: the comparison finishes with this look's verdict
        CONTINUE = "continue"  # not decided: the runs were extended to the next look

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="verdict_looks")
    look = models.PositiveSmallIntegerField(help_text="1 for the first look")
    blocks_per_device = models.PositiveSmallIntegerField()
    alpha = models.FloatField(help_text="the α this look tested at; the looks' α sum to the gate's")
    outcome = models.CharField(max_length=16, help_text="the overall outcome of the gate's headline rows")
    decision = models.CharField(max_length=8, choices=Decision.choices)
    # The row that decided the outcome (the first headline row with that outcome): its estimate.
    ratio = models.FloatField(null=True)
    ci95 = models.JSONField(null=True)
    p_value = models.FloatField(null=True)
    verdicts = models.JSONField(default=list, help_text="every headline row: arm, device, profile, outcome, ratio, "
                                                        "ci95, p")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["comparison", "look"]
        constraints = [models.UniqueConstraint(fields=["comparison", "look"], name="verdictlook_unique_look")]
