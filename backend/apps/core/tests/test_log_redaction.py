"""No credential reaches a log line: requests with an API token, a runner token, a failed
sign-in and a share link's token, as the console handler of settings.LOGGING writes them."""

import io
import logging
import uuid

import pytest
from rest_framework.test import APIClient

from apps.core.log_redaction import RedactSecretsFilter, redact
from apps.core.tokens import new_secret


@pytest.fixture
def console():
    """What the configured console handler writes during the test."""
    handlers = [h for h in logging.getLogger().handlers
                if isinstance(h, logging.StreamHandler) and any(isinstance(f, RedactSecretsFilter) for f in h.filters)]
    assert handlers, "settings.LOGGING's console handler carries the redaction filter"
    stream = io.StringIO()
    previous = [h.setStream(stream) for h in handlers]
    yield stream
    for handler, old in zip(handlers, previous, strict=True):
        handler.setStream(old)


@pytest.mark.django_db
def test_requests_with_credentials_log_none_of_them(console, api, runner_api, user):
    bearer = api._credentials["HTTP_AUTHORIZATION"].split()[1]
    runner_token = runner_api._credentials["HTTP_AUTHORIZATION"].split()[1]
    share_token = new_secret("s")
    password = "Wr0ng-horse-battery-staple"

    assert api.get(f"/api/v1/comparisons/{uuid.uuid4()}").status_code == 404
    assert APIClient().get("/api/v1/comparisons", HTTP_AUTHORIZATION=f"Bearer {bearer}x").status_code == 401
    assert APIClient().post("/api/runner/v1/hello", {}, format="json",
                            HTTP_AUTHORIZATION=f"Runner {runner_token}x").status_code == 401
    assert runner_api.post("/api/runner/v1/lease", {"devices": ["nope"], "wait_s": "x"},
                           format="json").status_code == 400
    assert APIClient().post("/api/v1/auth/login", {"username": "alice", "password": password},
                            format="json").status_code == 400
    assert APIClient().get(f"/api/v1/public/reports/{share_token}").status_code == 404
    assert APIClient().get(f"/r/{share_token}").status_code in (404, 503)
    # What an application line about a request could carry (headers, a form, cookies).
    logging.getLogger("apps.test").warning(
        "request %s", {"HTTP_AUTHORIZATION": f"Bearer {bearer}", "runner": f"Runner {runner_token}",
                       "body": f'{{"username": "alice", "password": "{password}"}}',
                       "HTTP_COOKIE": "sessionid=abc123secret; csrftoken=def456secret"})
    try:
        raise ValueError(f"token {bearer} refused")
    except ValueError:
        logging.getLogger("apps.test").exception("while checking")

    written = console.getvalue()
    assert "Not Found: /api/v1/public/reports/[redacted]" in written  # the capture works
    for secret in (bearer, runner_token, share_token, password, "abc123secret", "def456secret"):
        assert secret not in written
        assert secret[:20] not in written


def test_redact_keeps_what_is_not_a_credential():
    line = "GET /api/v1/comparisons/5 took 12 ms for org acme (runner lab-1)"
    assert redact(line) == line
    assert redact("Authorization: Bearer llt_abcdefghijkl") == "Authorization: Bearer [redacted]"
    assert redact("secret whsec_0123456789abcdef rotated") == "secret whsec_[redacted] rotated"
