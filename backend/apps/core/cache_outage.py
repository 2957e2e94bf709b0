"""The shared cache (Redis) speeds answers up and counts rate limits; it is not a dependency of
them. A cache call that fails because Redis does not answer is counted in
latencylab_cache_errors_total{use} (/metrics), a warning is logged at most once per
WARNING_INTERVAL_S per process, and the caller serves the request without the cache (builds the
value, writes to the database directly) instead of a 500. (The rate limits fail open the same
way, apps.core.throttling, with their own counter.)

The cache backend (`BreakerRedisCache`, settings CACHES) leaves a Redis that failed alone for
SKIP_S: its calls then fail at once (`CacheSkipped`, a RedisError like the real failure). A Redis
that does not answer at all (a partition, a dead host) costs a call the connect timeout (2 s),
so without the pause every request would wait it out several times (its rate limit, then each
cached value). One call per SKIP_S tries Redis again; the first that succeeds ends the pause."""

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from prometheus_client import Counter
from redis import ConnectionError as RedisConnectionError
from redis import RedisError

log = logging.getLogger(__name__)

WARNING_INTERVAL_S = 60.0
SKIP_S = 10.0

CACHE_ERRORS = Counter(
    "latencylab_cache_errors", "Cache calls that failed because the shared cache (Redis) did not answer "
    "(or failed less than 10 s before); the request was served without it", ["use"])

__all__ = ["RedisError", "OncePerInterval", "BreakerRedisCache", "CacheSkipped", "cache_unreachable"]


class OncePerInterval:
    """True at most once per `interval_s` (monotonic clock), across the process's threads."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._last: float | None = None

    def due(self) -> bool:
        now = time.monotonic()
        with self._lock:
            if self._last is not None and now - self._last < self.interval_s:
                return False
            self._last = now
            return True


warning = OncePerInterval(WARNING_INTERVAL_S)


def cache_unreachable(use: str, error: RedisError) -> None:
    """Records that `use` went without the cache this time."""
    CACHE_ERRORS.labels(use=use).inc()
    if warning.due():
        log.warning("the shared cache (Redis) did not answer (%s: %s): requests are served without it "
                    "until it does, which is tried every %.0f s (warned at most every %.0f s, counted in "
                    "latencylab_cache_errors_total)", type(error).__name__, error, SKIP_S, warning.interval_s)


class CacheSkipped(RedisConnectionError):
    """A cache call not made: this Redis failed less than SKIP_S ago."""


class CacheBreaker:
    """After a failure, `allows()` is False for `skip_s`, then True for one call at a time every
    `skip_s` (the trial) until a call succeeds (`succeeded`)."""

    def __init__(self, skip_s: float) -> None:
        self.skip_s = skip_s
        self._lock = threading.Lock()
        self._failed_until = 0.0  # 0: closed, the cache is used

    def allows(self) -> bool:
        if not self._failed_until:
            return True
        now = time.monotonic()
        with self._lock:
            if not self._failed_until or now >= self._failed_until:
                if self._failed_until:
                    self._failed_until = now + self.skip_s  # this call is the trial; others keep skipping
                return True
            return False

    def failed(self) -> None:
        with self._lock:
            self._failed_until = time.monotonic() + self.skip_s

    def succeeded(self) -> None:
        if self._failed_until:
            with self._lock:
                self._failed_until = 0.0


_breakers: dict[str, CacheBreaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(servers: list[str]) -> CacheBreaker:
    """One breaker per Redis address, shared by the process's threads (Django makes a cache
    backend per thread)."""
    key = ",".join(servers)
    with _breakers_lock:
        return _breakers.setdefault(key, CacheBreaker(SKIP_S))


T = TypeVar("T")


def _guarded(call: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(call)
    def guarded(self: "BreakerRedisCacheClient", *args: Any, **kwargs: Any) -> T:
        if not self.breaker.allows():
            raise CacheSkipped(f"Redis at {self.address} failed less than {SKIP_S:.0f} s ago")
        try:
            result = call(self, *args, **kwargs)
        except RedisError:
            self.breaker.failed()
            raise
        self.breaker.succeeded()
        return result
    return guarded


class BreakerRedisCacheClient(RedisCacheClient):
    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        self.address = ",".join(servers)
        self.breaker = breaker_for(servers)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """A redis.Redis per connection pool, made once: Django's makes one per call (~0.1 ms,
        twice for a rate-limited request). It holds no connection of its own, and Django's
        cache objects, this client with them, are per thread."""
        # Django's RedisCacheClient members, absent from its stubs.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client

    add = _guarded(RedisCacheClient.add)
    get = _guarded(RedisCacheClient.get)
    set = _guarded(RedisCacheClient.set)
    touch = _guarded(RedisCacheClient.touch)
    delete = _guarded(RedisCacheClient.delete)
    get_many = _guarded(RedisCacheClient.get_many)
    has_key = _guarded(RedisCacheClient.has_key)
    incr = _guarded(RedisCacheClient.incr)
    set_many = _guarded(RedisCacheClient.set_many)
    delete_many = _guarded(RedisCacheClient.delete_many)
    clear = _guarded(RedisCacheClient.clear)


class BreakerRedisCache(RedisCache):
    """Django's Redis cache, pausing calls to a Redis that failed (module docstring)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = BreakerRedisCacheClient
