"""The shared cache (Redis) speeds answers up; it is not a dependency of them. A cache call that
fails because Redis does not answer is counted in latencylab_cache_errors_total{use} (/metrics),
a warning is logged at most once per WARNING_INTERVAL_S per process, and the caller serves the
request without the cache (builds the value, writes to the database directly) instead of a 500.
(The rate limits fail open the same way: apps.core.throttling.)"""

import logging

from prometheus_client import Counter
from redis import RedisError

from .throttling import OncePerInterval

log = logging.getLogger(__name__)

WARNING_INTERVAL_S = 60.0

CACHE_ERRORS = Counter(
    "latencylab_cache_errors", "Cache calls that failed because the shared cache (Redis) did not answer; "
    "the request was served without it", ["use"])

warning = OncePerInterval(WARNING_INTERVAL_S)

__all__ = ["RedisError", "cache_unreachable"]


def cache_unreachable(use: str, error: RedisError) -> None:
    """Records that `use` went without the cache this time."""
    CACHE_ERRORS.labels(use=use).inc()
    if warning.due():
        log.warning("the shared cache (Redis) did not answer (%s: %s): requests are served without it "
                    "until it does (warned at most every %.0f s, counted in latencylab_cache_errors_total)",
                    type(error).__name__, error, warning.interval_s)
