"""Request limits: 413 for a body over its path's bound (before the body is read, nothing
written) and 429 with Retry-After per API token, per client IP and per runner."""

import itertools
import json
import socket
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.comparisons.models import Comparison, RunBlock
from apps.core.throttling import ClientRateThrottle, RunnerRateThrottle, SignInRateThrottle
from apps.results.models import Sample
from testing.factories import SPEC, make_sample
from testing.runner_calls import lease, upload

_addresses = itertools.count(1)


def fresh_ip() -> str:
    """An address of its own: throttle histories live in Redis and outlive a test."""
    address = f"203.0.113.{next(_addresses) % 250 + 1}"
    for throttle in (ClientRateThrottle, SignInRateThrottle):
        cache.delete(throttle.cache_format % {"scope": throttle.scope, "ident": address})
    return address


# --- 413 ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_spec_over_the_api_bound_is_413_naming_the_limit_and_creates_nothing(api, settings):
    settings.REQUEST_BODY_LIMITS = {**settings.REQUEST_BODY_LIMITS, "/": 4096}
    spec = {**SPEC, "name": "x" * 5000}
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 413
    body = response.json()
    assert body["limit_bytes"] == 4096
    assert "at most 4096 bytes" in body["detail"]
    assert not Comparison.objects.exists()


@pytest.mark.django_db
def test_a_sample_upload_over_the_runner_bound_is_413_and_stores_nothing(runner_api, queued_run, settings):
    leased = lease(runner_api).json()["runs"][0]
    settings.REQUEST_BODY_LIMITS = {**settings.REQUEST_BODY_LIMITS, "/api/runner/v1/": 10_000}
    samples = [make_sample("h2", 0, i) for i in range(200)]
    response = upload(runner_api, leased, 0, samples=samples)
    assert response.status_code == 413
    assert "at most 10000 bytes" in response.json()["detail"]
    assert not RunBlock.objects.exists()
    assert not Sample.objects.exists()
    # Under the bound the same runner's block is stored: the limit, not the lease, refused it.
    assert upload(runner_api, leased, 0).status_code == 200


@pytest.mark.django_db
def test_anonymous_sign_in_bodies_have_a_small_bound(client):
    response = client.post("/api/v1/auth/login", json.dumps({"username": "a", "password": "p" * 70_000}),
                           content_type="application/json")
    assert response.status_code == 413
    assert "65536 bytes" in response.json()["detail"]


def test_413_is_answered_before_the_body_is_sent(live_server):
    """Over a real socket: the server refuses on the headers alone; the client never sends the
    64 MiB it announced."""
    address = urlsplit(live_server.url)
    announced = 64 * 1024 * 1024 + 1
    with socket.create_connection((address.hostname, address.port), timeout=10) as conn:
        conn.sendall(f"POST /api/runner/v1/runs/00000000-0000-0000-0000-000000000000/samples HTTP/1.1\r\n"
                     f"Host: {address.netloc}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {announced}\r\nConnection: close\r\n\r\n".encode() + b'{"samples": [')
        # The answer comes while the announced body is still unsent (the test server then waits
        # for the rest to drain the connection; the answer is read without waiting for that).
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length_of(answer):
            answer += conn.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(body)["limit_bytes"] == 64 * 1024 * 1024


def _length_of(answer: bytes) -> int:
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").lower()
    return next(int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.startswith("content-length:"))


# --- 429 ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_api_calls_are_limited_per_token_with_retry_after(org, settings):
    settings.API_RATE = "3/minute"
    first, second = APIClient(), APIClient()
    for client in (first, second):
        _, secret = api_token_create(organization=org, name="ci", scopes=["read"])
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    statuses = [first.get("/api/v1/comparisons").status_code for _ in range(3)]
    limited = first.get("/api/v1/comparisons")
    assert statuses == [200, 200, 200]
    assert limited.status_code == 429
    assert 0 < int(limited["Retry-After"]) <= 60
    assert "throttled" in limited.json()["detail"]
    # Another token of the same organization counts on its own.
    assert second.get("/api/v1/comparisons").status_code == 200


@pytest.mark.django_db
def test_sign_in_is_limited_per_client_ip(user, settings):
    settings.SIGN_IN_RATE = "2/minute"
    address, other_address = fresh_ip(), fresh_ip()
    client = APIClient(REMOTE_ADDR=address)
    wrong = {"username": "alice", "password": "not-her-password"}
    statuses = [client.post("/api/v1/auth/login", wrong, format="json").status_code for _ in range(2)]
    # The right password does not get through a limited address either.
    limited = client.post("/api/v1/auth/login", {"username": "alice", "password": "pw-alice-123"}, format="json")
    assert statuses == [400, 400]
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    other = APIClient(REMOTE_ADDR=other_address).post(
        "/api/v1/auth/login", {"username": "alice", "password": "pw-alice-123"}, format="json")
    assert other.status_code == 200


@pytest.mark.django_db
def test_sign_up_and_password_reset_share_the_sign_in_limit(db, settings):
    settings.SIGN_IN_RATE = "2/minute"
    client = APIClient(REMOTE_ADDR=fresh_ip())
    statuses = [client.post("/api/v1/auth/password-reset", {"email": "nobody@example.com"}, format="json").status_code
                for _ in range(2)]
    signup = client.post("/api/v1/auth/signup", {"username": "mallory", "email": "m@example.com",
                                                 "password": "a-long-enough-password", "organization_name": "M"},
                         format="json")
    assert statuses == [200, 200]
    assert signup.status_code == 429
    assert client.get("/api/v1/auth/invitations/lli_guess").status_code == 429


@pytest.mark.django_db
def test_anonymous_calls_are_limited_per_ip_and_x_forwarded_for_does_not_reset_it(db, settings):
    settings.ANON_RATE = "2/minute"
    address = fresh_ip()
    client = APIClient(REMOTE_ADDR=address)
    assert [client.get("/api/v1/auth/csrf").status_code for _ in range(2)] == [204, 204]
    # With no trusted proxy (NUM_PROXIES 0) a client's own X-Forwarded-For is ignored.
    assert client.get("/api/v1/auth/csrf", HTTP_X_FORWARDED_FOR=fresh_ip()).status_code == 429


@pytest.mark.django_db
def test_runner_calls_are_limited_per_runner(runner_api, settings):
    settings.RUNNER_RATE = "2/minute"
    cache.delete(RunnerRateThrottle.cache_format % {"scope": RunnerRateThrottle.scope,
                                                    "ident": f"runner:{runner_api.runner.pk}"})
    heartbeat = {"devices": [{"serial": "host-lab-1", "state": "available"}], "runs": []}
    statuses = [runner_api.post("/api/runner/v1/heartbeat", heartbeat, format="json").status_code
                for _ in range(3)]
    assert statuses == [200, 200, 429]


@pytest.mark.django_db
def test_behind_one_proxy_each_client_counts_by_the_address_the_proxy_saw(db, settings):
    settings.ANON_RATE = "1/minute"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    ingress = APIClient(REMOTE_ADDR="10.0.0.2")
    first, second = fresh_ip(), fresh_ip()
    assert ingress.get("/api/v1/auth/csrf", HTTP_X_FORWARDED_FOR=first).status_code == 204
    # What a client wrote itself comes first; the proxy appends the address it saw.
    assert ingress.get("/api/v1/auth/csrf", HTTP_X_FORWARDED_FOR=f"{fresh_ip()}, {first}").status_code == 429
    assert ingress.get("/api/v1/auth/csrf", HTTP_X_FORWARDED_FOR=second).status_code == 204
