"""Isolation between organizations, proved over the whole API (docs/security.md: another
organization's id answers 404). Organization A holds one object of every kind; organization
B, with a signed-in session, with an API token of every scope and with one of its runners,
calls every operation of the OpenAPI schema that takes an id, with A's ids. Every answer must
be the answer for an id that does not exist (404, or the allowlisted status below), carry
none of A's data, and leave every row of A's as it was. B's listings contain none of A's
objects. The operations come from the schema generated now, so an endpoint added later is
walked too; a path parameter this file cannot fill fails the test instead of being skipped."""

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create, organization_get_or_create, user_ensure_member
from apps.comparisons.models import Comparison
from apps.devices.services import pool_get_or_create, runner_hello, runner_register
from testing.factories import SPEC
from testing.openapi_walk import (
    Operation,
    api_schema,
    call,
    example_request,
    fill_path,
    operations,
    response_text,
)
from testing.org_world import (
    OWNER,
    OWNER_PASSWORD,
    OrgWorld,
    acme_world,
    id_kind,
    owner_of,
    rows_changed,
    rows_snapshot,
    signed_in,
)
from testing.runner_calls import lease

# Path parameters that name no object: one value the path accepts.
NOT_IDS = {"fmt": "csv"}

# Operations whose path parameter is itself the credential, for whoever holds it: there is no
# "other organization" to be isolated from. Their own tests prove unknown, revoked and expired
# tokens answer 404.
CREDENTIAL_IN_PATH = {
    "/api/v1/public/reports/{token}": "a share link's token opens that one report, read-only (reports tests)",
    "/api/v1/auth/invitations/{token}": "an invitation link's token lets its holder join (accounts tests)",
}

# Where the answer for another organization's id is not 404, and why. The walk still checks it
# is exactly the answer for an id that does not exist, and that nothing of A's changed.
NOT_404 = {
    # The runner protocol's contract: "this runner holds no lease on that run", whether the run
    # is another runner's, another organization's or no run at all (device-runner/contract).
    ("POST", "/api/runner/v1/runs/{run_id}/samples"): 409,
    ("POST", "/api/runner/v1/runs/{run_id}/finish"): 409,
    ("POST", "/api/runner/v1/runs/{run_id}/artifacts"): 409,
}
# Create-or-replace by name inside the caller's own organization: B's PUT of a name A also uses
# creates B's own secret of that name. Only the row check applies (A's secret stays as it was);
# walked last, so B's new secret does not change what the other operations on the name answer.
OWN_NAMESPACE = {("PUT", "/api/v1/secrets/{name}")}
# An id of no object, per kind that is not a UUID.
NONEXISTENT = {"pool_slug": "no-such-pool", "secret_name": "NO_SUCH_SECRET"}


def credential_in_path(operation: Operation) -> bool:
    return any(operation.path.startswith(prefix) for prefix in CREDENTIAL_IN_PATH)


def path_values(operation: Operation, world: OrgWorld, *, nonexistent: bool) -> dict[str, str]:
    values = {}
    for parameter in operation.path_parameters:
        if parameter in NOT_IDS:
            values[parameter] = NOT_IDS[parameter]
        elif nonexistent:
            values[parameter] = NONEXISTENT.get(id_kind(operation.path, parameter) or "", str(uuid.uuid4()))
        else:
            values[parameter] = world.ids[id_kind(operation.path, parameter) or ""]
    return values


@pytest.fixture
def world(db) -> OrgWorld:
    return acme_world()[0]


@pytest.fixture
def other(db) -> dict[str, Any]:
    """Organization B's three kinds of credential, and B itself."""
    organization = organization_get_or_create(slug="globex", name="Globex")
    owner = user_ensure_member(organization=organization, username="globex-owner", password="pw-globex-owner")
    _, token = api_token_create(organization=organization, name="globex-all", scopes=["read", "write", "ci"],
                                created_by=owner)
    by_token = APIClient()
    by_token.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    pool = pool_get_or_create(organization=organization, slug="globex-lab", name="Globex lab")
    runner, runner_secret = runner_register(pool=pool, name="globex-runner")
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "globex-host-1", "platform": "host", "model": "test", "os_version": "1"}])
    by_runner = APIClient()
    by_runner.credentials(HTTP_AUTHORIZATION=f"Runner {runner_secret}")
    return {"organization": organization, "session": signed_in("globex-owner", "pw-globex-owner"),
            "token": by_token, "runner": by_runner}


def credentials_for(operation: Operation, other: dict[str, Any]) -> dict[str, APIClient]:
    if operation.path.startswith("/api/runner/"):
        return {"runner": other["runner"]}
    return {"session": other["session"], "token": other["token"]}


def test_every_path_with_an_id_answers_another_organizations_id_as_if_it_did_not_exist(world, other):
    schema = api_schema()
    components = schema.get("components", {}).get("schemas", {})
    walked = sorted((op for op in operations(schema) if op.path_parameters and not credential_in_path(op)),
                    key=lambda op: (op.method, op.path) in OWN_NAMESPACE)
    unfillable = [f"{op}: {p}" for op in walked for p in op.path_parameters
                  if p not in NOT_IDS and id_kind(op.path, p) not in world.ids]
    assert not unfillable, ("path parameters this walk cannot fill with another organization's id; add their kind "
                            "to PATH_PARAMETER_KINDS and an object of that kind to testing/org_world.py: "
                            f"{unfillable}")
    markers = world.markers()
    b_id = other["organization"].pk
    failures = []
    before = rows_snapshot()
    for operation in walked:
        request = example_request(operation, components)
        for who, client in credentials_for(operation, other).items():
            missing = call(client, operation, fill_path(operation, path_values(operation, world, nonexistent=True)),
                           request)
            response = call(client, operation, fill_path(operation, path_values(operation, world, nonexistent=False)),
                            request)
            text = response_text(response)
            own_namespace = (operation.method, operation.path) in OWN_NAMESPACE
            expected = NOT_404.get((operation.method, operation.path), 404)
            # 403 is fine when the credential may not use the endpoint at all: refused before any id is read.
            refused_whatever_the_id = response.status_code == missing.status_code == 403
            if not own_namespace and (response.status_code != missing.status_code or (
                    response.status_code != expected and not refused_whatever_the_id)):
                failures.append(f"{operation} as B's {who}: {response.status_code} for A's id, "
                                f"{missing.status_code} for none, expected {expected}: {text[:200]}")
            leaked = sorted(m for m in markers if m in text)
            if leaked and not own_namespace:
                failures.append(f"{operation} as B's {who}: the answer names A's {leaked}")
            after = rows_snapshot()
            touched = [(label, pk) for label, pk, row in rows_changed(before, after) if owner_of(label, row) != b_id]
            if touched:
                failures.append(f"{operation} as B's {who}: changed rows that are not B's: {touched}")
            before = after
    assert not failures, "\n".join(failures)
    assert len(walked) >= 30  # the schema really was walked


def test_listings_of_another_organization_contain_none_of_its_objects(world, other):
    schema = api_schema()
    components = schema.get("components", {}).get("schemas", {})
    listings = [op for op in operations(schema) if op.safe and not op.path_parameters
                and not op.path.startswith("/api/runner/")]
    markers = world.markers()
    failures = []
    for operation in listings:
        request = example_request(operation, components)
        # Filters that name A's pool must not reach into it either.
        query = {p["name"] for p in operation.spec.get("parameters", []) if p["in"] == "query"}
        if "pool" in query:
            request["query"] = {**request["query"], "pool": world.ids["pool_slug"]}
        for who, client in credentials_for(operation, other).items():
            response = call(client, operation, operation.path, request)
            if response.status_code >= 500:
                failures.append(f"{operation} as B's {who}: {response.status_code}")
            leaked = sorted(m for m in markers if m in response_text(response))
            if leaked:
                failures.append(f"{operation} as B's {who}: lists A's {leaked}")
    assert not failures, "\n".join(failures)
    assert len(listings) >= 15


def test_the_world_is_visible_to_its_own_organization(world):
    """The walk means something only if A's own credentials do find these objects."""
    owner = signed_in(OWNER, OWNER_PASSWORD)
    ids = world.ids
    for path in (f"/api/v1/comparisons/{ids['comparison']}", f"/api/v1/webhooks/{ids['webhook']}",
                 f"/api/v1/devices/{ids['device']}",
                 f"/api/v1/comparisons/{ids['comparison']}/runs/{ids['run']}/artifacts/{ids['artifact']}",
                 f"/api/v1/pools/{ids['pool_slug']}/enrollment-tokens"):
        assert owner.get(path).status_code == 200, path
    listed = response_text(owner.get("/api/v1/comparisons"))
    assert ids["comparison"] in listed
    assert ids["imported_comparison"] in listed


def test_runners_of_a_private_pool_never_lease_another_organizations_runs(queued_run, runner_api, other):
    """A's run waits in A's private pool: B's runner gets nothing, not even naming A's device,
    and a B comparison cannot send work into A's pool; A's own runner then takes the run."""
    for serials in (["globex-host-1"], ["host-lab-1"], ["globex-host-1", "host-lab-1"]):
        response = other["runner"].post("/api/runner/v1/lease", {"devices": serials, "wait_s": 0}, format="json")
        assert response.status_code == 204, (serials, response.content)
    queued_run.refresh_from_db()
    assert (queued_run.status, queued_run.device_id) == ("queued", None)
    into_a = other["token"].post("/api/v1/comparisons", {**SPEC, "devices": {"pool": "local", "count": 1}},
                                 format="json")
    assert into_a.status_code == 400, into_a.content
    assert "local" in str(into_a.json()["devices"])
    assert Comparison.objects.filter(organization=other["organization"]).count() == 0
    leased = lease(runner_api)
    assert leased.status_code == 200
    assert leased.json()["runs"][0]["run_id"] == str(queued_run.id)
