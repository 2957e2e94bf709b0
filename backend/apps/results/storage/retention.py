"""Sample retention (settings.SAMPLE_RETENTION_DAYS, None = keep forever): whole month
partitions of the sample table whose every row is older than the retention are dropped,
never rows one by one (apps.results.storage.partitions).

A comparison with samples in a dropped month is recorded (SampleRemoval) and its blocks'
analysis columns go with them, so the loader cannot read half a comparison: from then on
its samples export and any new analysis of it answer SamplesRemoved (410). Its stored
analyses stay, so its charts, verdict, reports and share links are unchanged.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone
from psycopg.errors import LockNotAvailable
from rest_framework import status

from apps.comparisons.models import Comparison
from apps.core.errors import ApplicationError

from ..models import BlockColumns, SampleRemoval
from .partitions import partition_comparison_ids, sample_partition_drop, sample_partitions, sample_partitions_ensure


def samples_removal(*, comparison: Comparison) -> dict[str, Any] | None:
    """When the sample retention dropped the comparison's samples: after how many days, and when."""
    removal = SampleRemoval.objects.filter(comparison_id=comparison.pk).first()
    return None if removal is None else {"retention_days": removal.retention_days,
                                         "removed_at": removal.removed_at.isoformat()}


class SamplesRemoved(ApplicationError):
    status_code = status.HTTP_410_GONE


def samples_available_check(*, comparison: Comparison) -> None:
    """Raise SamplesRemoved when retention dropped any of the comparison's samples."""
    removal = samples_removal(comparison=comparison)
    if removal is not None:
        raise SamplesRemoved(
            f"The samples of comparison {comparison.name!r} ({comparison.pk}) were removed by the "
            f"{removal['retention_days']}-day sample retention on {removal['removed_at'][:10]}; its stored analysis "
            "(charts, verdict, reports) remains, but its samples can no longer be exported or analysed again.",
            extra={"samples_removed": removal})


@dataclass
class MaintenanceReport:
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    # Dropping waited too long for a lock (a long export): tried again on the next run.
    deferred: list[str] = field(default_factory=list)
    comparisons_affected: int = 0


def sample_partitions_expire(*, retention_days: int, now: datetime | None = None) -> MaintenanceReport:
    """Drop every month partition that ends at least `retention_days` before `now`."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=retention_days)
    report = MaintenanceReport()
    for partition in sample_partitions():
        if partition.upper > cutoff:
            continue
        try:
            report.comparisons_affected += _partition_expire(partition.name, retention_days=retention_days, now=now)
        except OperationalError as exc:
            if not isinstance(exc.__cause__, LockNotAvailable):
                raise
            report.deferred.append(partition.name)  # lock_timeout: readers held the table
        else:
            report.dropped.append(partition.name)
    return report


@transaction.atomic
def _partition_expire(name: str, *, retention_days: int, now: datetime) -> int:
    comparison_ids = partition_comparison_ids(name)
    # A comparison keeps its first record (ignore_conflicts): when its samples first went.
    SampleRemoval.objects.bulk_create(
        [SampleRemoval(comparison_id=pk, removed_at=now, retention_days=retention_days, partition=name)
         for pk in Comparison.objects.filter(pk__in=comparison_ids).values_list("pk", flat=True)],
        ignore_conflicts=True)
    BlockColumns.objects.filter(run__comparison_id__in=comparison_ids).delete()
    sample_partition_drop(name)
    return len(comparison_ids)


def sample_storage_maintain(*, now: datetime | None = None,
                            retention_days: int | None = None) -> MaintenanceReport:
    """The hourly maintenance: months' partitions made ahead (and DEFAULT emptied into
    them), then, when a retention is set, months older than it dropped."""
    retention_days = settings.SAMPLE_RETENTION_DAYS if retention_days is None else retention_days
    with transaction.atomic():
        created = sample_partitions_ensure(now=now)
    report = (sample_partitions_expire(retention_days=retention_days, now=now) if retention_days
              else MaintenanceReport())
    report.created = created
    return report
