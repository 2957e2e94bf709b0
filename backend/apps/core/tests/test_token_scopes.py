"""API token scopes, enforced on every operation of the OpenAPI schema (generated now, so a new
endpoint is checked too). A token with one scope calls each operation with its own
organization's ids; the answer is refused (401/403) exactly where SCOPES says, per the view's
permission classes (apps/accounts/permissions.py). The table is the one docs/security.md
publishes; a view with a permission class it does not know fails the test."""

from typing import Any

import pytest
from django.urls import resolve
from rest_framework.permissions import AllowAny
from rest_framework.test import APIClient

from apps.accounts.authentication import ApiTokenAuthentication
from apps.accounts.services import api_token_create
from testing.openapi_walk import Operation, api_schema, call, example_request, fill_path, operations
from testing.org_world import OrgWorld, acme_world, id_kind

SAFE, ALL, NONE = "GET only", "every method", "nothing"
# Permission class → what a token with only that scope may do through it. A token acts with its
# creator's role (an owner here), so only the scope and "signed in only" limit it.
SCOPES = {
    "IsOrganizationMember": {"read": SAFE, "write": ALL, "ci": ALL},
    "IsOrganizationAdminForWrites": {"read": SAFE, "write": ALL, "ci": SAFE},
    "IsOrganizationAdmin": {"read": NONE, "write": ALL, "ci": NONE},
    "IsOrganizationOwner": {"read": SAFE, "write": ALL, "ci": ALL},  # usage: the owner's token
    # Managing people and credentials needs a person signed in: a leaked token must not mint
    # wider tokens, invite, or change roles.
    "IsOrganizationAdminSignedIn": {"read": NONE, "write": NONE, "ci": NONE},
    "IsOrganizationOwnerSignedIn": {"read": NONE, "write": NONE, "ci": NONE},
    "IsSignedInMember": {"read": NONE, "write": NONE, "ci": NONE},
    # Only on views that take no API token at all (choosing or creating an organization).
    "IsAuthenticated": {"read": NONE, "write": NONE, "ci": NONE},
    # Runners and enrollment speak their own credentials; an API token is never one.
    "IsRunner": {"read": NONE, "write": NONE, "ci": NONE},
    "HasEnrollmentToken": {"read": NONE, "write": NONE, "ci": NONE},
}


def own_values(operation: Operation, world: OrgWorld) -> dict[str, str]:
    values = {}
    for parameter in operation.path_parameters:
        if parameter == "fmt":
            values[parameter] = "csv"
        elif parameter == "token":  # public reports and invitations: the share link's token fits the path
            values[parameter] = world.ids["share_token"]
        else:
            values[parameter] = world.ids[id_kind(operation.path, parameter) or ""]
    return values


def view_class(path: str) -> Any:
    return resolve(path).func.cls  # type: ignore[attr-defined]


def may(rule: str, method: str) -> bool:
    return rule == ALL or (rule == SAFE and method == "GET")


@pytest.fixture
def world(db) -> dict[str, Any]:
    built, owner = acme_world()
    return {"world": built, "organization": built.organization, "owner": owner}


def order(operation: Operation) -> tuple[int, str]:
    """Reads first, deletions last: each call finds the objects the earlier ones left."""
    return ({"GET": 0, "DELETE": 2}.get(operation.method, 1), operation.path)


@pytest.mark.parametrize("scope", ["read", "write", "ci"])
def test_each_operation_refuses_a_token_exactly_where_its_scope_says(world, scope):
    _, secret = api_token_create(organization=world["organization"], name=f"only-{scope}", scopes=[scope],
                                 created_by=world["owner"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    schema = api_schema()
    components = schema.get("components", {}).get("schemas", {})
    checked, wrong = 0, []
    unknown: set[str] = set()
    for operation in sorted(operations(schema), key=order):
        path = fill_path(operation, own_values(operation, world["world"]))
        view = view_class(path)
        classes = list(view.permission_classes)
        if classes == [AllowAny]:
            continue  # anonymous endpoints (sign-in, public reports): no scope to enforce
        rules = [SCOPES.get(cls.__name__, {}).get(scope) for cls in classes]
        if None in rules:
            unknown.update(cls.__name__ for cls in classes if cls.__name__ not in SCOPES)
            continue
        takes_tokens = ApiTokenAuthentication in view.authentication_classes
        expected = takes_tokens and all(may(rule, operation.method) for rule in rules if rule is not None)
        response = call(client, operation, path, example_request(operation, components))
        refused = response.status_code in (401, 403)
        if refused == expected:
            wrong.append(f"{operation}: {response.status_code} for a {scope!r} token, expected "
                         f"{'allowed' if expected else 'refused'} ({', '.join(c.__name__ for c in classes)})")
        checked += 1
    assert not unknown, f"permission classes without a row in SCOPES (and docs/security.md): {sorted(unknown)}"
    assert not wrong, "\n".join(wrong)
    assert checked >= 40
