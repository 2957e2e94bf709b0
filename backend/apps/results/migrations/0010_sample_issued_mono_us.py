"""results_sample.issued_mono_us: when each request was issued, in µs since its block began,
on the harness's monotonic clock (contract sample.schema.json). Nullable: every sample stored
before, and every sample of a harness that predates the field, has none, and a concurrent
series' span then falls back to wall_time (apps.results.analysis.series). Adding a nullable
column without a default changes no stored row, and on the partitioned table it reaches every
month's partition (and the DEFAULT one) at once."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0009_month_ensure_locks_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="sample",
            name="issued_mono_us",
            field=models.BigIntegerField(null=True),
        ),
    ]
