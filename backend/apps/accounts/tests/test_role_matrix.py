"""What each role may do, for every endpoint of the API: the URL conf is walked, so a new
endpoint fails test_every_endpoint_has_a_policy until someone decides who may call it.
A "may" request passes the permission check (any answer but 401/403: an empty body's 400,
an unknown id's 404); a "may not" is a 403. docs/security.md carries the same table."""

import uuid

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import api_token_create
from apps.results.api.urls import urlpatterns as results_urlpatterns
from testing.clients import bearer, session_client

# The samples export's route is a regular expression (a UUID, then the format suffix).
SAMPLES_EXPORT = next(str(p.pattern) for p in results_urlpatterns if p.name == "comparison-samples")

ROLES = ["viewer", "member", "admin", "owner"]
VIEWER, MEMBER, ADMIN, OWNER = ROLES  # the least role that may

# (route, method) -> the least role that may, and whether a session is required.
POLICY: dict[tuple[str, str], tuple[str, bool]] = {
    ("api/v1/auth/me", "GET"): (VIEWER, False),
    ("api/v1/auth/organization", "POST"): (VIEWER, True),
    ("api/v1/organizations", "GET"): (VIEWER, True),
    ("api/v1/organizations", "POST"): (VIEWER, True),
    ("api/v1/members", "GET"): (VIEWER, False),
    ("api/v1/members/leave", "POST"): (VIEWER, True),
    ("api/v1/members/<uuid:membership_id>", "PATCH"): (OWNER, True),
    ("api/v1/members/<uuid:membership_id>", "DELETE"): (OWNER, True),
    ("api/v1/invitations", "GET"): (ADMIN, True),
    ("api/v1/invitations", "POST"): (ADMIN, True),
    ("api/v1/invitations/<uuid:invitation_id>/resend", "POST"): (ADMIN, True),
    ("api/v1/invitations/<uuid:invitation_id>/revoke", "POST"): (ADMIN, True),
    ("api/v1/tokens", "GET"): (ADMIN, True),
    ("api/v1/tokens", "POST"): (ADMIN, True),
    ("api/v1/tokens/<uuid:token_id>/revoke", "POST"): (ADMIN, True),
    ("api/v1/secrets", "GET"): (VIEWER, False),
    ("api/v1/secrets", "POST"): (ADMIN, False),
    ("api/v1/secrets/<str:name>", "PUT"): (ADMIN, False),
    ("api/v1/secrets/<str:name>", "DELETE"): (ADMIN, False),
    ("api/v1/pools", "GET"): (VIEWER, False),
    ("api/v1/pools/<slug:slug>/enrollment-tokens", "GET"): (ADMIN, False),
    ("api/v1/pools/<slug:slug>/enrollment-tokens", "POST"): (ADMIN, False),
    ("api/v1/pools/<slug:slug>/enrollment-tokens/<uuid:token_id>/revoke", "POST"): (ADMIN, False),
    ("api/v1/pools/<slug:slug>/aa-report", "GET"): (VIEWER, False),
    ("api/v1/runners", "GET"): (VIEWER, False),
    ("api/v1/runners/<uuid:runner_id>/reset-breaker", "POST"): (ADMIN, False),
    ("api/v1/devices", "GET"): (VIEWER, False),
    ("api/v1/devices/<uuid:device_id>", "GET"): (VIEWER, False),
    ("api/v1/devices/<uuid:device_id>/release", "POST"): (ADMIN, False),
    ("api/v1/comparisons", "GET"): (VIEWER, False),
    ("api/v1/comparisons", "POST"): (MEMBER, False),
    ("api/v1/comparisons/validate", "POST"): (MEMBER, False),
    ("api/v1/comparisons/<uuid:comparison_id>", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/cancel", "POST"): (MEMBER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/runs/<uuid:run_id>/artifacts", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/runs/<uuid:run_id>/artifacts/<uuid:artifact_id>", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/results", "GET"): (VIEWER, False),
    (f"api/v1/{SAMPLES_EXPORT}", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/verdict", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/verdict/history", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/shares", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/shares", "POST"): (MEMBER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/shares/<uuid:share_id>/revoke", "POST"): (MEMBER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/report.html", "GET"): (VIEWER, False),
    ("api/v1/comparisons/<uuid:comparison_id>/report.pdf", "GET"): (VIEWER, False),
    ("api/v1/shares", "GET"): (VIEWER, False),
    ("api/v1/presets", "GET"): (VIEWER, False),
    ("api/v1/har-import", "POST"): (MEMBER, False),
    ("api/v1/imports", "POST"): (MEMBER, False),
    ("api/v1/trends", "GET"): (VIEWER, False),
    ("api/v1/trends.csv", "GET"): (VIEWER, False),
    ("api/v1/trends/options", "GET"): (VIEWER, False),
    ("api/v1/home", "GET"): (VIEWER, False),
    ("api/v1/network-profiles", "GET"): (VIEWER, False),
    ("api/v1/network-profiles", "POST"): (ADMIN, False),
    ("api/v1/network-profiles/bounds", "GET"): (VIEWER, False),
    ("api/v1/webhooks", "GET"): (VIEWER, False),
    ("api/v1/webhooks", "POST"): (ADMIN, False),
    ("api/v1/webhooks/<uuid:webhook_id>", "GET"): (VIEWER, False),
    ("api/v1/webhooks/<uuid:webhook_id>", "PATCH"): (ADMIN, False),
    ("api/v1/webhooks/<uuid:webhook_id>", "DELETE"): (ADMIN, False),
    ("api/v1/webhooks/<uuid:webhook_id>/deliveries", "GET"): (VIEWER, False),
    ("api/v1/webhooks/<uuid:webhook_id>/deliveries/<uuid:delivery_id>/redeliver", "POST"): (ADMIN, False),
    ("api/v1/audit-events", "GET"): (ADMIN, False),
    ("api/v1/usage", "GET"): (OWNER, False),
}

# Open to anyone (their own checks: a password, an invitation or share link's secret, a
# runner's token), so outside the role table.
PUBLIC = {
    "api/v1/auth/csrf", "api/v1/auth/login", "api/v1/auth/logout", "api/v1/auth/signup",
    "api/v1/auth/password-reset", "api/v1/auth/password-reset/confirm",
    "api/v1/auth/invitations/<str:token>", "api/v1/auth/invitations/<str:token>/accept",
    "api/v1/schemas/comparison-spec", "api/v1/public/reports/<str:token>",
    "api/v1/public/reports/<str:token>/card.png", "api/v1/public/reports/<str:token>/report.html",
    "api/v1/public/reports/<str:token>/report.pdf", "api/schema/", "api/docs/", "r/<str:token>",
}
RUNNER_PREFIX = "api/runner/v1/"  # runner and enrollment tokens: apps.runner_protocol's tests


def api_endpoints() -> list[tuple[str, str]]:
    """(route, HTTP method) of every DRF view in the URL conf."""
    found = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern) and hasattr(pattern.callback, "cls"):
                route = prefix + str(pattern.pattern)
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(pattern.callback.cls, method):
                        found.append((route, method.upper()))

    walk(get_resolver().url_patterns)
    return found


def concrete(route: str) -> str:
    """A request path for the route: unknown ids (a 404 once permitted), the pool `local`."""
    path = route.replace(SAMPLES_EXPORT, f"comparisons/{uuid.uuid4()}/samples.csv")
    for kind in ("uuid:membership_id", "uuid:invitation_id", "uuid:token_id", "uuid:device_id", "uuid:comparison_id",
                 "uuid:run_id", "uuid:artifact_id", "uuid:share_id", "uuid:webhook_id", "uuid:delivery_id",
                 "uuid:runner_id"):
        path = path.replace(f"<{kind}>", str(uuid.uuid4()))
    return "/" + path.replace("<slug:slug>", "local").replace("<str:name>", "NO_SUCH_SECRET")


def test_every_endpoint_has_a_policy():
    missing = [(route, method) for route, method in api_endpoints()
               if (route, method) not in POLICY and route not in PUBLIC and not route.startswith(RUNNER_PREFIX)]
    assert not missing, f"say who may call these in POLICY (and docs/security.md): {missing}"
    stale = set(POLICY) - set(api_endpoints())
    assert not stale, f"POLICY names endpoints that no longer exist: {stale}"


def call(client: APIClient, route: str, method: str):
    return getattr(client, method.lower())(concrete(route), {}, format="json")


def may(role: str, least: str) -> bool:
    return ROLES.index(role) >= ROLES.index(least)


def mismatches(client: APIClient, role: str, *, by_token: bool) -> list[str]:
    wrong = []
    # Leaving last: it ends the membership the other calls rely on.
    for (route, method), (least, session_only) in sorted(POLICY.items(), key=lambda e: e[0][0].endswith("leave")):
        expected = may(role, least) and not (session_only and by_token)
        status = call(client, route, method).status_code
        if expected == (status in (401, 403)):
            wrong.append(f"{method} {route}: {status}, expected {'allowed' if expected else '401/403'}")
    return wrong


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_each_role_in_a_session_may_do_exactly_its_part(org, pool, role):
    session_client(org, "first-owner")  # so an owner's leaving is the only thing refused by the last-owner rule
    client = session_client(org, f"the-{role}", role=role)
    assert mismatches(client, role, by_token=False) == []


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_an_api_token_acts_with_its_creators_role_and_never_for_session_only_endpoints(org, pool, role):
    creator = session_client(org, f"the-{role}", role=role).user
    _, secret = api_token_create(organization=org, name="all scopes", scopes=["read", "write", "ci"],
                                 created_by=creator)
    assert mismatches(bearer(secret), role, by_token=True) == []


@pytest.mark.django_db
def test_a_viewer_is_told_why(org):
    viewer = session_client(org, "vic", role=Membership.Role.VIEWER)
    refused = viewer.post("/api/v1/comparisons", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["detail"].startswith("Viewers have read-only access")


@pytest.mark.django_db
def test_an_anonymous_caller_may_do_nothing(org, pool):
    anonymous = APIClient()
    for route, method in POLICY:
        assert call(anonymous, route, method).status_code in (401, 403), (method, route)
