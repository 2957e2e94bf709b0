"""Fuzzing the public API from its own OpenAPI schema with schemathesis: every operation of
/api/v1, called in-process through Django's WSGI application with generated parameters and
bodies (valid and invalid), as an owner's API token of every scope, against an organization
that holds one object of every kind. No answer may be a 5xx, and an answer with a documented
status must match its documented schema.

Checks on: not_a_server_error, status_code_conformance (every status an operation answers is
in its documented responses: apps.core.error_responses documents the refusals),
response_schema_conformance, content_type_conformance.

Bounded (a few examples per operation, derandomized) so the run is short and the same on every
machine: a failure here is reproducible, not a flake."""

from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from apps.accounts.models import ApiToken
from apps.accounts.services import api_token_create
from apps.devices.models import DevicePool
from apps.devices.services import runner_hello, runner_register
from testing.openapi_walk import api_schema
from testing.org_world import POOL, acme_world

# Per operation and mode (valid and invalid input), derandomized: every operation still gets
# both. Five took 43-70 s of make test's backend suite on two cores, three about 60 % of that.
EXAMPLES_PER_OPERATION = 3
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance]

# Left out of the public API's run, and why: the runner protocol (fuzzed below with a runner's
# token); signing out and leaving the organization would take the fuzzing credential's footing
# away (tokens are refused there anyway).
EXCLUDED_PATHS = r"^/api/runner/|^/api/v1/auth/logout$|^/api/v1/members/leave$"
# The runner protocol but its lease, which long-polls up to 25 s per call.
RUNNER_PATHS, RUNNER_EXCLUDED = r"^/api/runner/", r"^/api/runner/v1/lease$"


@pytest.fixture
def fuzz_token(db) -> str:
    world, owner = acme_world()
    _, token = api_token_create(organization=world.organization, name="fuzz", scopes=["read", "write", "ci"],
                                created_by=owner)
    return token


def fuzz_one(operation: Any, mode: GenerationMode, authorization: str) -> str | None:
    """Run one operation's examples of one mode; the first failure, described, or None."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    def examples(case: Any) -> None:
        # identity: the WSGI transport hands the checks the body as it came, and would not undo the
        # gzip (GZipMiddleware) its default Accept-Encoding asks for.
        case.call_and_validate(headers={"Authorization": authorization, "Accept-Encoding": "identity"},
                               checks=CHECKS)

    try:
        examples()
    except Unsatisfiable:
        return None  # negative mode on an operation that takes no input: nothing can be made invalid
    except (AssertionError, BaseExceptionGroup) as failure:  # schemathesis: a group of its checks' failures
        return f"{operation.label} ({mode.value}): {str(failure)[:1500]}"
    return None


@pytest.fixture
def wsgi_application() -> Any:
    """The real WSGI application, except that a request does not close the database connection
    at its start and end (Django's own test client does the same): the test's transaction, with
    the fixtures in it, lives on that connection."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def fuzz(schema: Any, authorization: str) -> int:
    """Every operation of `schema`, valid and invalid input; fails listing every failure. Returns
    how many operations were fuzzed."""
    failures, fuzzed = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            if failure := fuzz_one(operation, mode, authorization):
                failures.append(failure)
        fuzzed += 1
    assert not failures, "\n\n".join(failures)
    return fuzzed


def test_no_server_error_and_no_answer_outside_the_schema(fuzz_token, wsgi_application):
    schema = schemathesis.openapi.from_dict(api_schema()).exclude(path_regex=EXCLUDED_PATHS)
    schema.app = wsgi_application
    assert fuzz(schema, f"Bearer {fuzz_token}") >= 40
    # The fuzzing token survived the run: nothing fuzzed could revoke it.
    assert ApiToken.objects.filter(revoked_at__isnull=True, name="fuzz").exists()


@pytest.fixture
def fuzz_runner_secret(db) -> str:
    world, _ = acme_world()
    pool = DevicePool.objects.get(organization=world.organization, slug=POOL)
    runner, secret = runner_register(pool=pool, name="fuzz")
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "fuzz-host", "platform": "host", "model": "test", "os_version": "1"}])
    return secret


# The world is built (fixtures above) before wsgi_application: the test client that builds it
# reconnects Django's connection closing after each of its requests.
def test_the_runner_protocol_has_no_server_error_either(fuzz_runner_secret, wsgi_application):
    schema = (schemathesis.openapi.from_dict(api_schema()).include(path_regex=RUNNER_PATHS)
              .exclude(path_regex=RUNNER_EXCLUDED))
    schema.app = wsgi_application
    assert fuzz(schema, f"Runner {fuzz_runner_secret}") >= 5


# What the fuzzer found, pinned so it stays fixed whatever examples a later run draws.

@pytest.mark.django_db
def test_a_preset_that_is_not_a_name_is_a_400_naming_it(api):
    response = api.post("/api/v1/comparisons", {"preset": [{"s": 1}], "name": "x"}, format="json")
    assert response.status_code == 400, response.content
    assert "preset" in response.json()


@pytest.mark.django_db
def test_a_nul_character_in_a_runners_json_is_a_400_not_a_500(runner_api):
    """PostgreSQL's jsonb cannot hold U+0000: a device's capabilities carrying one crashed hello."""
    response = runner_api.post("/api/runner/v1/hello", {
        "runner": {"version": "test", "drivers": ["host"]},
        "devices": [{"serial": "host-lab-9", "platform": "host", "capabilities": {"sdk\u0000": "x"}}]},
        format="json")
    assert response.status_code == 400, response.content
    assert "NUL" in str(response.json())


@pytest.mark.django_db
def test_an_export_path_that_spells_no_uuid_is_a_404_not_a_500(api):
    """36 hex digits without dashes fit the export path's pattern but are no UUID."""
    assert api.get(f"/api/v1/comparisons/{'a' * 36}/samples.csv").status_code == 404


@pytest.mark.django_db
def test_an_api_path_no_pattern_matches_answers_json(api):
    """Found by the fuzzing's status and content-type checks: Django's HTML 404 page answered."""
    response = api.get("/api/v1/devices/not-a-uuid")
    assert (response.status_code, response["Content-Type"], response.json()) == (
        404, "application/json", {"detail": "Not found."})
