"""Shared fixtures. Tests run against the real PostgreSQL and Redis that `make test`
starts on free ports (LATENCYLAB_DB_PORT / LATENCYLAB_REDIS_URL). Builders of test data
and the runner's calls are plain functions in the `testing` package beside this file."""

import pytest
from latencylab_tools.target import start_target
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create, organization_get_or_create, user_ensure_member
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import pool_get_or_create, runner_hello, runner_register
from apps.scheduler import wakeups
from testing.factories import SPEC

# Under CI=true a skipped test fails (infra/testing/no_skips_under_ci.py).
pytest_plugins = ["no_skips_under_ci"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's test database, and at its end the lease listener stopped first: its
    connection would keep the test database from being dropped."""
    yield
    wakeups.listener.stop()


@pytest.fixture
def org(db):
    return organization_get_or_create(slug="acme", name="Acme")


@pytest.fixture
def other_org(db):
    return organization_get_or_create(slug="globex", name="Globex")


@pytest.fixture
def user(org):
    return user_ensure_member(organization=org, username="alice", password="pw-alice-123")


@pytest.fixture
def pool(org):
    return pool_get_or_create(organization=org, slug="local", name="Local")


@pytest.fixture
def api(org, user):
    client = APIClient()
    _, secret = api_token_create(organization=org, name="test", scopes=["read", "write", "ci"])
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.fixture
def runner_api(pool):
    """A registered runner with one host device, and an API client speaking as it."""
    runner, secret = runner_register(pool=pool, name="lab-1")
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "host-lab-1", "platform": "host", "model": "test", "os_version": "1"}])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {secret}")
    client.runner = runner
    return client


@pytest.fixture
def target(tmp_path):
    """The device-runner's reference target server (h1c, TLS h1/h2/gRPC) on free loopback ports."""
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls") as running:
        yield running


@pytest.fixture
def queued_run(org, pool):
    """The one queued run of a planned two-block comparison (testing.factories.SPEC) in the local pool."""
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.id))
    return comparison.runs.get()


@pytest.fixture
def slow_recheck(monkeypatch):
    """The wake-up listener restarted with a recheck longer than any wait of a test: a waiting
    long-poll wakes only for a notification or a lost connection."""
    monkeypatch.setattr(wakeups, "RECHECK_S", 600.0)
    wakeups.listener.stop()
    yield
    wakeups.listener.stop()  # the next test's listener starts with the default recheck
