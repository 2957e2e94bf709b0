"""Usage metering: device-minutes, the time devices were held by an organization's runs.

Each run attempt counts from its lease (RunAttempt.started_at) to its end (ended_at; for an
attempt a cancel cut short, the run's finished_at; while it runs, now), in the pool the run
ran in and the UTC month the attempt started in. Imported measurements held no device and
count nothing."""

import datetime as dt
from dataclasses import dataclass

from django.db.models import DateTimeField, DurationField, ExpressionWrapper, F, Sum, Value
from django.db.models.functions import Coalesce, Greatest, TruncMonth
from django.utils import timezone

from apps.accounts.models import Organization

from .models import RunAttempt

MONTHS_MAX = 36


@dataclass(frozen=True)
class PoolUsage:
    pool_slug: str
    pool_name: str
    device_minutes: float


@dataclass(frozen=True)
class MonthUsage:
    month: dt.date  # the month's first day
    pools: list[PoolUsage]

    @property
    def device_minutes(self) -> float:
        return sum(pool.device_minutes for pool in self.pools)


def month_start(moment: dt.datetime) -> dt.datetime:
    moment = moment.astimezone(dt.UTC)
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def _months_back(start: dt.datetime, count: int) -> dt.datetime:
    months = start.year * 12 + start.month - 1 - count
    return start.replace(year=months // 12, month=months % 12 + 1)


def _held(attempt_end: Coalesce) -> ExpressionWrapper:
    # Never negative, whatever the clocks said.
    return ExpressionWrapper(Greatest(attempt_end - F("started_at"), dt.timedelta(0)), output_field=DurationField())


def usage_by_month(*, organization: Organization, months: int = 12,
                   now: dt.datetime | None = None) -> list[MonthUsage]:
    """The last `months` months (this one included), newest first, each with every pool the
    organization's runs used that month; a month without use has no pools."""
    now = now or timezone.now()
    current = month_start(now)
    first = _months_back(current, months - 1)
    attempt_end = Coalesce("ended_at", "run__finished_at", Value(now), output_field=DateTimeField())
    rows = (RunAttempt.objects.filter(run__comparison__organization=organization, started_at__gte=first)
            .annotate(month=TruncMonth("started_at", tzinfo=dt.UTC))
            .values("month", "run__pool__slug", "run__pool__name")
            .annotate(held=Sum(_held(attempt_end)))
            .order_by("month", "run__pool__slug"))
    by_month: dict[dt.date, list[PoolUsage]] = {}
    for row in rows:
        minutes = round(row["held"].total_seconds() / 60, 2) if row["held"] else 0.0
        by_month.setdefault(row["month"].date(), []).append(
            PoolUsage(pool_slug=row["run__pool__slug"], pool_name=row["run__pool__name"], device_minutes=minutes))
    return [MonthUsage(month=(month := _months_back(current, back).date()), pools=by_month.get(month, []))
            for back in range(months)]


def device_minutes_this_month(*, organization: Organization, now: dt.datetime | None = None) -> float:
    return usage_by_month(organization=organization, months=1, now=now)[0].device_minutes
