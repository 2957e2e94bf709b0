"""/metrics: Prometheus' text format, only with the operator's token, with figures that match
the database and Redis they are read from."""

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from testing.device_farm import android_comparison, finish, leased_run, phone, runner_client, upload_block

TOKEN = "metrics-secret-for-tests"  # noqa: S105


def scrape(**headers: str):
    return Client().get("/metrics", **headers)


def samples_of(body: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body) for s in family.samples}


@pytest.mark.django_db
def test_without_a_configured_token_there_is_no_metrics_endpoint(settings):
    settings.LATENCYLAB_METRICS_TOKEN = ""
    assert scrape().status_code == 404
    assert scrape(HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_the_public_gets_401_without_the_operators_token(settings):
    settings.LATENCYLAB_METRICS_TOKEN = TOKEN
    assert scrape().status_code == 401
    response = scrape(HTTP_AUTHORIZATION="Bearer not-it")
    assert response.status_code == 401
    assert b"latencylab_" not in response.content


@pytest.mark.django_db
def test_the_farm_the_queue_leases_and_ingestion_as_stored(settings, org, pool, api):
    settings.LATENCYLAB_METRICS_TOKEN = TOKEN
    lab = runner_client(pool, "lab-1", [phone("P1"), phone("P2", state="offline")])
    android_comparison(org)
    leased = leased_run(lab, ["P1"])
    upload_block(lab, leased, 0)
    assert finish(lab, leased, "infra_error", error_kind="device_lost", error="unplugged").status_code == 200
    api.get("/api/v1/comparisons")  # one request the HTTP histogram must show by its pattern

    response = scrape(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    metrics = samples_of(response.content.decode())

    assert metrics[("latencylab_devices", (("platform", "android"), ("state", "available")))] >= 1
    assert metrics[("latencylab_devices", (("platform", "android"), ("state", "offline")))] >= 1
    assert metrics[("latencylab_devices", (("platform", "ios"), ("state", "busy")))] == 0
    assert metrics[("latencylab_leases_granted_total", ())] == 1
    assert metrics[("latencylab_leases_expired_total", ())] == 0
    assert metrics[("latencylab_samples_ingested_total", ())] >= 3
    assert metrics[("latencylab_samples_without_partition", ())] == 0
    assert metrics[("latencylab_runners_seen", ())] == 1
    assert metrics[("latencylab_broker_up", ())] == 1
    assert ("latencylab_task_queue_depth", (("queue", "celery"),)) in metrics
    assert metrics[("latencylab_comparisons", (("status", "running"),))] + \
        metrics[("latencylab_comparisons", (("status", "queued"),))] == 1
    route = (("method", "GET"), ("route", "api/v1/comparisons"), ("status", "2xx"))
    assert metrics[("latencylab_http_request_duration_seconds_count", route)] >= 1


@pytest.mark.django_db
def test_an_unreachable_broker_is_reported_not_a_failed_scrape(settings):
    settings.LATENCYLAB_METRICS_TOKEN = TOKEN
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # discard port: nothing listens
    metrics = samples_of(scrape(HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode())
    assert metrics[("latencylab_broker_up", ())] == 0
