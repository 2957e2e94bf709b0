"""The cache backend leaves a Redis that failed alone for SKIP_S, so a Redis that does not answer
costs one connect or read timeout per SKIP_S rather than one per call. The "Redis" here is a real
TCP listener that counts the connections made to it and then either closes each at once (a
broken server) or never answers (a hung one); the recovery test uses the test suite's own Redis."""

import socket
import threading
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache

from apps.core import cache_outage
from apps.core.cache_outage import CacheSkipped, RedisError, breaker_for


class CountingListener:
    """Accepts connections on a loopback port and counts them; `hang` keeps them open unanswered."""

    def __init__(self, *, hang: bool) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.hang = hang
        self.accepted = 0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            if self.hang:
                self.held.append(conn)
            else:
                conn.close()

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture(params=["closes", "hangs"])
def broken_redis(request, settings) -> Iterator[CountingListener]:
    listener = CountingListener(hang=request.param == "hangs")
    # A short read timeout for the hung server: the test waits it out once.
    settings.CACHES = {"default": {**django_settings.CACHES["default"],
                                   "LOCATION": f"redis://127.0.0.1:{listener.port}/0",
                                   "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 0.5}}}
    yield listener
    listener.close()


def test_after_a_failure_calls_fail_at_once_without_touching_redis(broken_redis) -> None:
    with pytest.raises(RedisError) as first:
        cache.get("a-key")
    assert not isinstance(first.value, CacheSkipped)
    tried = broken_redis.accepted
    assert tried >= 1
    for call in (lambda: cache.get("a-key"), lambda: cache.set("a-key", 1), lambda: cache.incr("n"),
                 lambda: cache.get_many(["a", "b"]), lambda: cache.add("a-key", 1)):
        with pytest.raises(CacheSkipped):
            call()
    assert broken_redis.accepted == tried


def test_one_call_per_pause_tries_again(broken_redis, monkeypatch) -> None:
    with pytest.raises(RedisError):
        cache.get("a-key")
    tried = broken_redis.accepted
    clock = cache_outage.time.monotonic
    monkeypatch.setattr(cache_outage.time, "monotonic", lambda: clock() + cache_outage.SKIP_S + 1)
    with pytest.raises(RedisError) as trial:
        cache.get("a-key")
    assert not isinstance(trial.value, CacheSkipped)
    assert broken_redis.accepted > tried
    with pytest.raises(CacheSkipped):  # the trial failed: paused again
        cache.get("a-key")


def test_the_first_call_that_succeeds_ends_the_pause(monkeypatch) -> None:
    breaker = breaker_for([django_settings.CACHES["default"]["LOCATION"]])
    breaker.failed()
    try:
        with pytest.raises(CacheSkipped):
            cache.get("a-key")
        clock = cache_outage.time.monotonic
        monkeypatch.setattr(cache_outage.time, "monotonic", lambda: clock() + cache_outage.SKIP_S + 1)
        cache.set("cache-outage-test", 7)  # the trial, on the live Redis
        monkeypatch.setattr(cache_outage.time, "monotonic", clock)
        assert cache.get("cache-outage-test") == 7  # no pause left, however early
    finally:
        breaker.succeeded()
        cache.delete("cache-outage-test")


def test_it_is_the_cache_the_project_uses(settings) -> None:
    assert settings.CACHES["default"]["BACKEND"] == "apps.core.cache_outage.BreakerRedisCache"


def test_the_redis_client_is_made_once_and_answers_reads_and_writes() -> None:
    client = cache._cache  # type: ignore[attr-defined]
    assert client.get_client(write=True) is client.get_client("any key", write=True)
    cache.set("cache-client-test", 3)
    try:
        assert cache.get("cache-client-test") == 3
    finally:
        cache.delete("cache-client-test")
