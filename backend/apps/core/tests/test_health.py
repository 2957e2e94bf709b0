"""/healthz (live) and /readyz (ready): what orchestrators probe. Ready checks the real
PostgreSQL and Redis the tests run against; failures are injected by pointing the broker at
a closed port and by a database error on the probe's query."""

import pytest
from django.db import OperationalError
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client

from apps.core import health
from testing.ports import free_port


def test_live_answers_without_touching_the_database():
    # No django_db mark: any query (view, middleware, session) would raise here.
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_ready_checks_the_database_the_migrations_and_the_broker():
    response = Client().get("/readyz")
    assert response.status_code == 200, response.content
    checks = response.json()["checks"]
    assert {name: check["ok"] for name, check in checks.items()} == {"database": True, "migrations": True,
                                                                     "broker": True}


@pytest.mark.django_db
def test_an_unreachable_broker_makes_it_unready_and_says_so(settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = Client().get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["broker"]["ok"] is False
    assert "ConnectionError" in body["checks"]["broker"]["error"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_a_failing_database_makes_it_unready(monkeypatch):
    def refuse() -> None:
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")

    monkeypatch.setattr(health, "_database", refuse)
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert "Connection refused" in response.json()["checks"]["database"]["error"]


@pytest.mark.django_db
def test_pending_migrations_keep_it_unready_until_applied(monkeypatch):
    """The record of an applied migration is removed inside the test's transaction (rolled
    back after it): the real executor then plans it as pending, as after a deploy whose
    migration job has not run yet."""
    monkeypatch.setattr(health, "_migrations_applied", False)
    latest = MigrationRecorder.Migration.objects.order_by("-applied", "-id").first()
    assert latest is not None
    latest.delete()
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert f"{latest.app}.{latest.name}" in response.json()["checks"]["migrations"]["error"]


@pytest.mark.django_db
def test_probes_answer_a_kubelet_by_pod_ip_over_plain_http(settings):
    """Behind a TLS proxy production redirects plain HTTP and refuses unknown hosts; a
    kubelet probes http://<pod ip>:8000 all the same."""
    settings.ALLOWED_HOSTS = ["latencylab.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    client = Client(HTTP_HOST="10.244.3.17:8000")
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.get("/api/v1/auth/csrf").status_code in (301, 400)  # the site's own rules still apply
