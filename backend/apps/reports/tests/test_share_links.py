"""Share links over the API: create (the URL once), list, revoke and who may; expiry bounds;
another organization's ids answer 404."""

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import user_ensure_member
from apps.comparisons.services import comparison_create
from apps.core.tokens import digest
from apps.devices.services import pool_get_or_create
from apps.reports.models import ShareLink
from apps.results.tests.openapi_schemas import schema_errors
from testing.factories import SPEC


def session_client(org, username: str, role: str) -> tuple[APIClient, object]:
    user = user_ensure_member(organization=org, username=username, password="pw-123456789", role=role)
    client = APIClient()
    client.force_authenticate(user)
    return client, user


@pytest.mark.django_db
def test_create_shows_the_url_once_and_stores_only_a_digest(api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    response = api.post(f"/api/v1/comparisons/{comparison.id}/shares", {"expires_in_days": 7}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert schema_errors("ShareLinkCreated", body) == []
    token = body["token"]
    assert body["url"].endswith(f"/r/{token}")
    assert len(token) >= 4 + 32  # prefix + ≥ 24 random bytes in base64url
    link = ShareLink.objects.get()
    assert link.token_hash == digest(token)
    assert token not in link.token_hash
    assert body["prefix"] == token[:12] == link.prefix
    assert body["state"] == "active"
    assert body["open_count"] == 0
    assert abs(link.expires_at - (timezone.now() + dt.timedelta(days=7))) < dt.timedelta(minutes=1)
    listed = api.get(f"/api/v1/comparisons/{comparison.id}/shares").json()["results"]
    assert [row["id"] for row in listed] == [body["id"]]
    assert schema_errors("ShareLinkOutput", listed[0]) == []
    assert "token" not in listed[0]
    assert "url" not in listed[0]
    assert api.get("/api/v1/shares").json()["results"][0]["comparison"] == {"id": str(comparison.id),
                                                                            "name": comparison.name}


@pytest.mark.django_db
@pytest.mark.parametrize("payload, field", [
    ({"expires_in_days": 0}, "expires_in_days"),
    ({"expires_in_days": 366}, "expires_in_days"),
    ({"expires_at": "2000-01-01T00:00:00Z"}, "expires_at"),
    ({"expires_in_days": 3, "expires_at": "2999-01-01T00:00:00Z"}, "expires_at"),
])
def test_expiry_out_of_bounds_is_a_400_naming_the_field_and_creates_nothing(api, org, pool, payload, field):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    response = api.post(f"/api/v1/comparisons/{comparison.id}/shares", payload, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert not ShareLink.objects.exists()


@pytest.mark.django_db
def test_expiry_an_hour_ahead_is_accepted(api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    at = (timezone.now() + dt.timedelta(hours=2)).isoformat()
    assert api.post(f"/api/v1/comparisons/{comparison.id}/shares", {"expires_at": at},
                    format="json").status_code == 201


@pytest.mark.django_db
def test_members_create_and_revoke_their_own_admins_revoke_any_viewers_neither(org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    url = f"/api/v1/comparisons/{comparison.id}/shares"
    member, member_user = session_client(org, "member", Membership.Role.MEMBER)
    other_member, _ = session_client(org, "member2", Membership.Role.MEMBER)
    admin, _ = session_client(org, "admin", Membership.Role.ADMIN)
    viewer, _ = session_client(org, "viewer", Membership.Role.VIEWER)
    assert viewer.post(url, {}, format="json").status_code == 403
    first = member.post(url, {}, format="json").json()
    second = member.post(url, {}, format="json").json()
    assert first["created_by"] == "member"
    assert other_member.post(f"{url}/{first['id']}/revoke").status_code == 403
    assert ShareLink.objects.get(pk=first["id"]).revoked_at is None
    revoked = member.post(f"{url}/{first['id']}/revoke")
    assert revoked.status_code == 200
    assert revoked.json()["state"] == "revoked"
    assert admin.post(f"{url}/{second['id']}/revoke").json()["state"] == "revoked"
    assert viewer.get("/api/v1/shares").status_code == 200  # viewers may see the links


@pytest.mark.django_db
def test_another_organizations_ids_answer_404(api, org, other_org, pool):
    ours = comparison_create(organization=org, submitted_spec=SPEC)
    pool_get_or_create(organization=other_org, slug="local", name="Local")
    theirs = comparison_create(organization=other_org, submitted_spec=SPEC)
    outsider, _ = session_client(other_org, "mallory", Membership.Role.OWNER)
    link = api.post(f"/api/v1/comparisons/{ours.id}/shares", {}, format="json").json()
    assert outsider.get(f"/api/v1/comparisons/{ours.id}/shares").status_code == 404
    assert outsider.post(f"/api/v1/comparisons/{ours.id}/shares", {}, format="json").status_code == 404
    assert outsider.post(f"/api/v1/comparisons/{ours.id}/shares/{link['id']}/revoke").status_code == 404
    # Their own comparison's URL with our link's id: not found either.
    assert outsider.post(f"/api/v1/comparisons/{theirs.id}/shares/{link['id']}/revoke").status_code == 404
    assert outsider.get("/api/v1/shares").json()["results"] == []
    assert outsider.get(f"/api/v1/comparisons/{ours.id}/report.html").status_code == 404
    assert ShareLink.objects.get().revoked_at is None
