"""Rate limits (429 with Retry-After): DRF throttles counted in the shared cache (Redis), so
every web process sees the same counts. Each rate is a setting (LATENCYLAB_*_RATE) read per
request, so an operator changes it through the environment and a test lowers it.

A rate limit is a protection, not a dependency: when its store does not answer, the request
goes through uncounted (fail open) rather than failing with a 500. Each such request is
counted in latencylab_rate_limit_store_errors_total (/metrics) and a warning is logged at
most once per STORE_WARNING_INTERVAL_S per process, so an outage does not flood the log."""

import logging
from typing import Any

from django.conf import settings
from prometheus_client import Counter
from rest_framework.throttling import SimpleRateThrottle

from .cache_outage import OncePerInterval, RedisError

log = logging.getLogger(__name__)

STORE_WARNING_INTERVAL_S = 60.0

RATE_LIMIT_STORE_ERRORS = Counter(
    "latencylab_rate_limit_store_errors", "Requests let through unchecked because the rate limits' store "
    "(Redis) did not answer, by throttle scope", ["scope"])


store_warning = OncePerInterval(STORE_WARNING_INTERVAL_S)


def _store_unreachable(scope: str, error: RedisError) -> None:
    RATE_LIMIT_STORE_ERRORS.labels(scope=scope).inc()
    if store_warning.due():
        log.warning("rate limits are not enforced: their store (the cache's Redis) did not answer (%s: %s); "
                    "requests go through uncounted until it does (warned at most every %.0f s, counted in "
                    "latencylab_rate_limit_store_errors_total)", type(error).__name__, error,
                    store_warning.interval_s)


class SettingRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is the setting `rate_setting` ("120/minute"), per `ident()`."""

    rate_setting = ""

    def get_rate(self) -> str:
        return str(getattr(settings, self.rate_setting))

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except RedisError as error:
            _store_unreachable(self.scope or "", error)
            return True

    def ident(self, request: Any) -> str:
        """The client IP (credential idents carry a "kind:" prefix, so they never collide)."""
        return str(self.get_ident(request))

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident(request)}


class ClientRateThrottle(SettingRateThrottle):
    """The API's default: per credential when there is one (an API token by its id, a
    signed-in user by theirs), else per client IP. Anonymous callers share a lower rate."""

    scope = "api"
    _credential: str | None = None

    def get_rate(self) -> str:
        if self._credential is None:
            return str(settings.ANON_RATE)
        return str(settings.API_RATE)

    def allow_request(self, request: Any, view: Any) -> bool:
        self._credential = _credential_of(request)
        return super().allow_request(request, view)

    def ident(self, request: Any) -> str:
        return self._credential or super().ident(request)


def _credential_of(request: Any) -> str | None:
    auth = getattr(request, "auth", None)
    if auth is not None and getattr(auth, "pk", None) is not None:
        # An API token, a runner, an enrollment token: each counts on its own.
        return f"{type(auth).__name__.lower()}:{auth.pk}"
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return None


class SignInRateThrottle(SettingRateThrottle):
    """Per client IP on the anonymous account endpoints (sign-in, sign-up, password reset):
    what guessing passwords or flooding mailboxes would hammer."""

    scope = "sign_in"
    rate_setting = "SIGN_IN_RATE"


class RunnerRateThrottle(SettingRateThrottle):
    """Per runner (or enrollment token) on the runner protocol. The default is far above what
    an agent needs (a long-poll of up to 25 s, a heartbeat every 10 s, one upload per block),
    so it only stops a runaway loop."""

    scope = "runner"
    rate_setting = "RUNNER_RATE"

    def ident(self, request: Any) -> str:
        return _credential_of(request) or super().ident(request)
