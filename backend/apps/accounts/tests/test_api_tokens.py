"""/api/v1/tokens: owners and admins, signed in, create (the secret once), list and revoke
API tokens; expiry is enforced by the authentication; API tokens cannot manage tokens."""

import datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.accounts.models import ApiToken, Membership
from apps.accounts.services import api_token_create
from apps.core.tokens import digest
from testing.clients import bearer, session_client


@pytest.mark.django_db
def test_an_owner_creates_a_token_whose_secret_is_shown_once_and_works(org):
    owner = session_client(org, "olivia")
    created = owner.post("/api/v1/tokens", {"name": "GitHub Actions", "scopes": ["ci", "read"],
                                            "expires_in_days": 30}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    secret = body["token"]
    assert secret.startswith("llt_")
    assert len(secret) > 40
    assert body["prefix"] == secret[:12]
    assert (body["name"], body["scopes"], body["created_by"], body["status"]) == (
        "GitHub Actions", ["ci", "read"], "olivia", "active")
    expires = datetime.datetime.fromisoformat(body["expires_at"])
    assert abs(expires - (timezone.now() + datetime.timedelta(days=30))) < datetime.timedelta(minutes=1)
    assert ApiToken.objects.get(pk=body["id"]).token_hash == digest(secret)

    listed = owner.get("/api/v1/tokens")
    assert listed.status_code == 200
    [row] = listed.json()
    assert "token" not in row
    assert secret.encode() not in listed.content
    assert row["last_used_at"] is None

    assert bearer(secret).get("/api/v1/comparisons").status_code == 200
    [row] = owner.get("/api/v1/tokens").json()
    assert row["last_used_at"] is not None
    # Its scopes hold: ci may write, and a token of read alone may not.
    _, reader = api_token_create(organization=org, name="reader", scopes=["read"])
    refused = bearer(reader).post("/api/v1/webhooks", {"url": "https://ci.example.com/h"}, format="json")
    assert refused.status_code == 403


@pytest.mark.django_db
def test_no_expiry_by_default_and_revoke_refuses_the_token_from_then_on(org):
    owner = session_client(org, "olivia")
    body = owner.post("/api/v1/tokens", {"name": "forever", "scopes": ["read"]}, format="json").json()
    assert body["expires_at"] is None
    secret = body["token"]
    assert bearer(secret).get("/api/v1/auth/me").status_code == 200

    revoked = owner.post(f"/api/v1/tokens/{body['id']}/revoke")
    assert revoked.status_code == 200, revoked.content
    assert revoked.json()["status"] == "revoked"
    first = revoked.json()["revoked_at"]
    refused = bearer(secret).get("/api/v1/auth/me")
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]
    again = owner.post(f"/api/v1/tokens/{body['id']}/revoke")
    assert (again.status_code, again.json()["revoked_at"]) == (200, first)


@pytest.mark.django_db
def test_an_expired_token_is_refused_with_401_saying_so(org):
    token, secret = api_token_create(organization=org, name="short", scopes=["read"], expires_in_days=1)
    assert bearer(secret).get("/api/v1/auth/me").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - datetime.timedelta(seconds=1))
    refused = bearer(secret).get("/api/v1/comparisons")
    assert refused.status_code == 401
    assert "token expired" in refused.json()["detail"]
    assert refused["WWW-Authenticate"] == "Bearer"
    token.refresh_from_db()
    assert token.last_used_at is not None  # from the first, accepted call only
    [row] = session_client(org, "olivia").get("/api/v1/tokens").json()
    assert row["status"] == "expired"


@pytest.mark.django_db
@pytest.mark.parametrize("body, field, message", [
    ({"scopes": ["read"]}, "name", "name"),
    ({"name": "", "scopes": ["read"]}, "name", "1–100"),
    ({"name": "x" * 101, "scopes": ["read"]}, "name", "100"),
    ({"name": "ci"}, "scopes", "required"),
    ({"name": "ci", "scopes": []}, "scopes", "read, write"),
    ({"name": "ci", "scopes": ["admin"]}, "scopes", "choose from ci, read, write"),
    ({"name": "ci", "scopes": ["read"], "expires_in_days": 0}, "expires_in_days", "Between 1 and 365"),
    ({"name": "ci", "scopes": ["read"], "expires_in_days": 366}, "expires_in_days", "Between 1 and 365"),
    ({"name": "ci", "scopes": ["read"], "expires_in_days": "soon"}, "expires_in_days", "Between 1 and 365"),
])
def test_bad_input_gets_a_400_naming_the_field_and_creates_nothing(org, body, field, message):
    response = session_client(org, "olivia").post("/api/v1/tokens", body, format="json")
    assert response.status_code == 400, response.content
    assert message in str(response.json()[field])
    assert ApiToken.objects.count() == 0


@pytest.mark.django_db
def test_members_and_api_tokens_cannot_manage_tokens(org, api):
    member = session_client(org, "mo", role=Membership.Role.MEMBER)
    assert member.get("/api/v1/tokens").status_code == 403
    assert member.post("/api/v1/tokens", {"name": "x", "scopes": ["read"]}, format="json").status_code == 403
    admin = session_client(org, "ada", role=Membership.Role.ADMIN)
    token = admin.post("/api/v1/tokens", {"name": "x", "scopes": ["read"]}, format="json").json()
    # Even an all-scopes organization token: a leaked token must not mint or revoke tokens.
    assert api.get("/api/v1/tokens").status_code == 403
    minted = api.post("/api/v1/tokens", {"name": "wider", "scopes": ["read", "write", "ci"]}, format="json")
    assert minted.status_code == 403
    assert "API tokens cannot" in minted.json()["detail"]
    assert api.post(f"/api/v1/tokens/{token['id']}/revoke").status_code == 403
    assert member.post(f"/api/v1/tokens/{token['id']}/revoke").status_code == 403
    assert ApiToken.objects.get(pk=token["id"]).revoked_at is None
    assert ApiToken.objects.count() == 2  # the fixture's and the admin's


@pytest.mark.django_db
def test_another_organizations_token_answers_404(org, other_org):
    theirs, secret = api_token_create(organization=other_org, name="globex ci", scopes=["read"])
    owner = session_client(org, "olivia")
    assert owner.post(f"/api/v1/tokens/{theirs.id}/revoke").status_code == 404
    assert owner.post("/api/v1/tokens/00000000-0000-4000-8000-000000000000/revoke").status_code == 404
    assert owner.get("/api/v1/tokens").json() == []
    assert bearer(secret).get("/api/v1/auth/me").status_code == 200


@pytest.mark.django_db
def test_mint_api_token_command_still_prints_a_working_token(org, capsys):
    call_command("mint_api_token", "--org", "acme", "--name", "demo")
    secret = capsys.readouterr().out.strip()
    assert bearer(secret).get("/api/v1/auth/me").status_code == 200
    call_command("mint_api_token", "--org", "acme", "--name", "week", "--scopes", "read", "--expires-in-days", "7")
    assert ApiToken.objects.get(name="week").expires_at is not None
    assert ApiToken.objects.get(name="demo").expires_at is None
