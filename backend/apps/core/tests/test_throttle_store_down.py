"""The rate limits fail open: with their store (the cache's Redis) unreachable — a real client
refused on a loopback port nobody listens on — requests are served, a warning is logged once
per interval and each unchecked request is counted for /metrics; with the live Redis the same
limits still answer 429."""

import logging

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from prometheus_client import REGISTRY
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.core import throttling
from apps.core.throttling import SignInRateThrottle
from testing.ports import free_port

SIGN_IN_ADDRESS = "198.51.100.77"
WRONG_PASSWORD = {"username": "alice", "password": "not-her-password"}


def unchecked(scope: str) -> float:
    return REGISTRY.get_sample_value("latencylab_rate_limit_store_errors_total", {"scope": scope}) or 0.0


@pytest.fixture
def store_down(settings):
    """The cache (and so every throttle) pointed at a closed port."""
    settings.CACHES = {"default": {**django_settings.CACHES["default"],
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}}


@pytest.fixture
def token_client(org):
    client = APIClient()
    _, secret = api_token_create(organization=org, name="ci", scopes=["read"])
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.fixture
def warning_due(monkeypatch):
    """A fresh warning interval of `interval_s`: the process-wide one may have fired already."""
    def use(interval_s: float) -> None:
        monkeypatch.setattr(throttling, "store_warning", throttling.OncePerInterval(interval_s))
    return use


def store_warnings(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "apps.core.throttling" and r.levelno == logging.WARNING]


@pytest.mark.django_db
def test_api_calls_are_served_when_the_store_is_down_and_a_warning_is_logged_once(
        token_client, store_down, settings, warning_due, caplog):
    settings.API_RATE = "1/minute"
    warning_due(60)
    before = unchecked("api")
    with caplog.at_level(logging.WARNING, logger="apps.core.throttling"):
        statuses = [token_client.get("/api/v1/comparisons").status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    (warning,) = store_warnings(caplog)
    assert "rate limits are not enforced" in warning.getMessage()
    assert "ConnectionError" in warning.getMessage()
    assert unchecked("api") - before == 3


@pytest.mark.django_db
def test_the_warning_comes_again_once_its_interval_has_passed(token_client, store_down, warning_due, caplog):
    warning_due(0)  # every interval has passed at each request
    with caplog.at_level(logging.WARNING, logger="apps.core.throttling"):
        for _ in range(2):
            assert token_client.get("/api/v1/comparisons").status_code == 200
    assert len(store_warnings(caplog)) == 2


@pytest.mark.django_db
def test_sign_in_is_served_when_the_store_is_down(user, store_down, settings, warning_due):
    settings.SIGN_IN_RATE = settings.ANON_RATE = "1/minute"
    warning_due(60)
    before = unchecked("sign_in"), unchecked("api")
    client = APIClient(REMOTE_ADDR=SIGN_IN_ADDRESS)
    statuses = [client.post("/api/v1/auth/login", WRONG_PASSWORD, format="json").status_code for _ in range(2)]
    signed_in = client.post("/api/v1/auth/login", {"username": "alice", "password": "pw-alice-123"}, format="json")
    assert statuses == [400, 400]
    assert signed_in.status_code == 200
    # Both throttles of the view (anonymous rate and sign-in rate) let each call through.
    assert (unchecked("sign_in") - before[0], unchecked("api") - before[1]) == (3, 3)


@pytest.mark.django_db
def test_with_the_store_up_the_same_limits_answer_429(user, token_client, settings):
    settings.API_RATE = "1/minute"
    settings.SIGN_IN_RATE = "1/minute"
    cache.delete(SignInRateThrottle.cache_format % {"scope": SignInRateThrottle.scope, "ident": SIGN_IN_ADDRESS})
    before = unchecked("api")
    assert [token_client.get("/api/v1/comparisons").status_code for _ in range(2)] == [200, 429]
    client = APIClient(REMOTE_ADDR=SIGN_IN_ADDRESS)
    assert [client.post("/api/v1/auth/login", WRONG_PASSWORD, format="json").status_code
            for _ in range(2)] == [400, 429]
    assert unchecked("api") == before
