"""What an operator watches, read from PostgreSQL and Redis when Prometheus scrapes, so every
web process reports the same figures and nothing is lost when a process restarts.

Counters come from rows that only accumulate (lease attempts, analyses) and from the sample
table's id sequence (every stored sample takes one id), so `rate()` of them is the lease,
expiry, analysis and ingestion rate. Deleting a comparison lowers the row counts; Prometheus
treats a lower value as a counter reset.
"""

from collections.abc import Iterator
from datetime import timedelta

import redis
from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from apps.comparisons.models import Comparison, Run, RunAttempt
from apps.devices.models import Device, Runner
from apps.results.models import Analysis, Sample
from apps.results.storage.partitions import default_partition_rows

# The Celery queues whose length is the backlog of backend work (Celery's default queue).
CELERY_QUEUES = ("celery",)
RECENT = timedelta(minutes=5)


class ServiceCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        yield from self._runs()
        yield from self._leases()
        yield from self._devices()
        yield from self._ingestion()
        yield from self._analysis()
        yield from self._queue()

    def _runs(self) -> Iterator[Metric]:
        comparisons = GaugeMetricFamily("latencylab_comparisons", "Comparisons by status", labels=["status"])
        counts = dict(Comparison.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        for status in Comparison.Status.values:
            comparisons.add_metric([status], counts.get(status, 0))
        yield comparisons
        runs = GaugeMetricFamily("latencylab_runs", "Runs by status (queued: the farm's backlog)", labels=["status"])
        counts = dict(Run.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        for status in Run.Status.values:
            runs.add_metric([status], counts.get(status, 0))
        yield runs

    def _leases(self) -> Iterator[Metric]:
        granted = CounterMetricFamily("latencylab_leases_granted", "Leases granted (run attempts started)")
        expired = CounterMetricFamily("latencylab_leases_expired", "Leases that expired (runner silent past its lease)")
        by_outcome = dict(RunAttempt.objects.values_list("outcome").annotate(n=Count("id")).values_list("outcome", "n"))
        granted.add_metric([], sum(by_outcome.values()))
        expired.add_metric([], by_outcome.get(RunAttempt.Outcome.LEASE_EXPIRED, 0))
        yield granted
        yield expired

    def _devices(self) -> Iterator[Metric]:
        devices = GaugeMetricFamily("latencylab_devices", "Devices by platform and state", labels=["platform", "state"])
        counts = {(p, s): n for p, s, n in Device.objects.values_list("platform", "state").annotate(n=Count("id"))
                  .values_list("platform", "state", "n")}
        for platform in Device.Platform.values:
            for state in Device.State.values:
                devices.add_metric([platform, state], counts.get((platform, state), 0))
        yield devices
        runners = GaugeMetricFamily("latencylab_runners_seen", "Runners that called in within the last 5 minutes")
        runners.add_metric([], Runner.objects.filter(last_seen_at__gte=timezone.now() - RECENT).count())
        yield runners

    def _ingestion(self) -> Iterator[Metric]:
        samples = CounterMetricFamily("latencylab_samples_ingested", "Samples stored (the sample table's id sequence)")
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sequence_last_value(pg_get_serial_sequence(%s, 'id'))", [Sample._meta.db_table])
            (last,) = cursor.fetchone()
        samples.add_metric([], last or 0)
        yield samples
        waiting = GaugeMetricFamily("latencylab_samples_without_partition", "Samples stored in the sample table's "
                                    "DEFAULT partition, for want of their month's (up to 1,000,000)")
        waiting.add_metric([], default_partition_rows())
        yield waiting

    def _analysis(self) -> Iterator[Metric]:
        totals = Analysis.objects.filter(compute_seconds__isnull=False).aggregate(
            n=Count("id"), seconds=Sum("compute_seconds"))
        analyses = CounterMetricFamily("latencylab_analyses", "Analyses computed")
        analyses.add_metric([], totals["n"])
        seconds = CounterMetricFamily("latencylab_analysis_seconds", "Seconds spent computing analyses "
                                      "(rate of this over rate of latencylab_analyses_total: mean time per analysis)")
        seconds.add_metric([], totals["seconds"] or 0.0)
        recent = Analysis.objects.filter(created_at__gte=timezone.now() - RECENT).aggregate(m=Max("compute_seconds"))
        slowest = GaugeMetricFamily("latencylab_analysis_recent_max_seconds", "Slowest analysis of the last 5 minutes")
        slowest.add_metric([], recent["m"] or 0.0)
        yield analyses
        yield seconds
        yield slowest

    def _queue(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("latencylab_task_queue_depth", "Celery tasks waiting in the broker", labels=["queue"])
        up = GaugeMetricFamily("latencylab_broker_up", "1 when the broker (Redis) answered this scrape")
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2)
        try:
            for queue in CELERY_QUEUES:
                depth.add_metric([queue], client.llen(queue))
            up.add_metric([], 1)
        except redis.RedisError:
            up.add_metric([], 0)
        finally:
            client.close()
        yield depth
        yield up
