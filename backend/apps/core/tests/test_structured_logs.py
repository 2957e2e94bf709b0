"""Structured logs: each request gets an id (X-Request-ID, a proxy's kept when sane), and
every line it causes — Django's own request line included — carries it with the comparison
and run its URL names; JSON lines for collectors; credentials still redacted."""

import io
import json
import logging
import sys
import uuid

import pytest
from django.test import Client

from apps.core.log_context import JsonFormatter, LogContextFilter, bind
from apps.core.log_redaction import RedactSecretsFilter


@pytest.fixture
def json_lines():
    """The lines Django's request logger writes, through the handler settings.LOGGING builds."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecretsFilter())
    handler.addFilter(LogContextFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)


@pytest.mark.django_db
def test_a_runner_call_logs_its_request_and_run(json_lines):
    run_id = uuid.uuid4()
    response = Client().post(f"/api/runner/v1/runs/{run_id}/finish", {}, content_type="application/json",
                             HTTP_AUTHORIZATION="Runner llr_not-a-real-runner-token-123456")
    assert response.status_code in (401, 403)
    request_id = response["X-Request-ID"]
    assert len(request_id) == 32
    (line,) = [line for line in json_lines() if line["logger"] == "django.request"]
    assert line["request_id"] == request_id
    assert line["run_id"] == str(run_id)
    assert line["level"] == "WARNING"
    assert "llr_not-a-real" not in json.dumps(line)


@pytest.mark.django_db
def test_a_comparison_url_names_its_comparison(json_lines, api):
    comparison_id = uuid.uuid4()
    response = api.get(f"/api/v1/comparisons/{comparison_id}/results")
    assert response.status_code == 404
    (line,) = [line for line in json_lines() if line["logger"] == "django.request"]
    assert line["comparison_id"] == str(comparison_id)
    assert "run_id" not in line  # the previous request's run does not leak into this one


@pytest.mark.django_db
def test_a_proxys_request_id_is_kept_and_a_malformed_one_replaced():
    client = Client()
    assert client.get("/api/v1/auth/csrf", HTTP_X_REQUEST_ID="edge-7f3a9c01")["X-Request-ID"] == "edge-7f3a9c01"
    forged = client.get("/api/v1/auth/csrf", HTTP_X_REQUEST_ID='x" level="CRITICAL')["X-Request-ID"]
    assert forged != 'x" level="CRITICAL'
    assert len(forged) == 32


def test_a_json_line_carries_the_exception_and_only_the_ids_that_are_set():
    bind(request_id="task-1", comparison_id="c-1", run_id=None)
    record = logging.LogRecord("apps.results", logging.ERROR, __file__, 1, "analysis of %s failed", ("c-1",), None)
    try:
        raise ValueError("no samples")
    except ValueError:
        record.exc_info = sys.exc_info()
    LogContextFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "analysis of c-1 failed"
    assert (line["request_id"], line["comparison_id"]) == ("task-1", "c-1")
    assert "run_id" not in line
    assert "ValueError: no samples" in line["exception"]
