"""Values derived from stored analyses, kept in the shared cache (Redis): the one key scheme
and the one read-or-build that the results document (results_json), the verdicts
(verdict_cache) and the reports' renderings (apps.reports.rendering) use."""

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from django.core.cache import cache

from apps.comparisons.models import Comparison
from apps.core.cache_outage import RedisError, cache_unreachable

from ..models import Analysis

T = TypeVar("T")


def latest_analysis(comparison: Comparison) -> tuple[int, int, datetime] | None:
    """(id, version, created_at) of the comparison's latest analysis; None without one."""
    return (Analysis.objects.filter(comparison=comparison).order_by("-version")
            .values_list("id", "version", "created_at").first())


def analysis_cache_key(kind: str, comparison: Comparison, version: int, created_at: datetime) -> str:
    """A cache key for what an analysis row holds. Not its id: a database created again (the
    test suite's, a restore) numbers rows from the same sequence, while the cache keeps its
    keys; the comparison's random id, the version and its time name one analysis anywhere."""
    return f"{kind}:{comparison.pk}:{version}:{created_at.timestamp()}"


def cached(key: str, seconds: int, build: Callable[[], T]) -> T:
    """The value cached under `key`, else build() — cached for `seconds`. Values are never None.
    Without the cache (Redis down), build() every time (apps.core.cache_outage)."""
    try:
        value: T | None = cache.get(key)
    except RedisError as error:
        cache_unreachable("analysis", error)
        return build()
    if value is None:
        value = build()
        try:
            cache.set(key, value, timeout=seconds)
        except RedisError as error:
            cache_unreachable("analysis", error)
    return value
