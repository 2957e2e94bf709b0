from typing import Any

from django.core.management.base import BaseCommand

from apps.comparisons.models import Run
from apps.results.models import BlockColumns
from apps.results.storage.loader import block_columns_backfill


class Command(BaseCommand):
    help = ("Write the per-block analysis columns of runs stored before blocks kept them, so their "
            "analysis reads a few blobs instead of every sample. Safe to run again.")

    def handle(self, *args: Any, **options: Any) -> None:
        runs = Run.objects.filter(blocks__isnull=False).exclude(
            pk__in=BlockColumns.objects.values("run_id")).distinct()
        total = 0
        for run in runs.iterator():
            total += block_columns_backfill(run)
        self.stdout.write(f"{total} blocks backfilled")
