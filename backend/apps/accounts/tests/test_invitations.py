"""Invitations: an owner (or, for members and viewers, an admin) invites by email; the
emailed link opens the invitation once, for a new user who signs up or a signed-in one;
revoking or resending kills the old link. Each step publishes its domain event."""

import re

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from apps.accounts.models import Invitation, Membership
from apps.core.tokens import digest
from apps.devices.services import pool_get_or_create
from testing.clients import session_client
from testing.factories import SPEC

LINK = re.compile(r"http://testserver/invitations/(\S+)")


def invite(client: APIClient, email: str, role: str, capture) -> object:
    with capture(execute=True):
        return client.post("/api/v1/invitations", {"email": email, "role": role}, format="json")


def link_secret(mail) -> str:
    match = LINK.search(mail.body)
    assert match, mail.body
    return match.group(1)


@pytest.mark.django_db
def test_an_invited_person_signs_up_from_the_emailed_link_and_sees_the_org(
        org, mailoutbox, django_capture_on_commit_callbacks, published):
    pool_get_or_create(organization=org, slug="local", name="Local")
    owner = session_client(org, "olivia")
    response = invite(owner, "vic@example.com", "viewer", django_capture_on_commit_callbacks)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["email"], body["role"], body["status"], body["invited_by"]) == (
        "vic@example.com", "viewer", "pending", "olivia")

    [mail] = mailoutbox
    assert mail.to == ["vic@example.com"]
    assert "Acme" in mail.subject
    secret = link_secret(mail)
    # Stored only as a digest.
    assert Invitation.objects.get(pk=body["id"]).token_hash == digest(secret)
    assert secret not in str(owner.get("/api/v1/invitations").content)

    guest = APIClient()
    preview = guest.get(f"/api/v1/auth/invitations/{secret}")
    assert preview.status_code == 200
    assert (preview.json()["organization"], preview.json()["role"], preview.json()["email"]) == (
        "Acme", "viewer", "vic@example.com")
    weak = guest.post(f"/api/v1/auth/invitations/{secret}/accept", {"username": "vic", "password": "123"},
                      format="json")
    assert weak.status_code == 400
    assert "password" in weak.json()
    accepted = guest.post(f"/api/v1/auth/invitations/{secret}/accept",
                          {"username": "vic", "password": "quiet-harbor-77"}, format="json")
    assert accepted.status_code == 200, accepted.content
    assert (accepted.json()["organization"]["slug"], accepted.json()["role"]) == ("acme", "viewer")
    # Signed in: the viewer reads the organization and may not start a comparison.
    assert guest.get("/api/v1/comparisons").status_code == 200
    refused = guest.post("/api/v1/comparisons", SPEC, format="json")
    assert refused.status_code == 403
    assert "read-only" in refused.json()["detail"]
    # The link worked once.
    assert guest.get(f"/api/v1/auth/invitations/{secret}").status_code == 410
    again = APIClient().post(f"/api/v1/auth/invitations/{secret}/accept",
                             {"username": "eve", "password": "quiet-harbor-77"}, format="json")
    assert again.status_code == 410
    assert owner.get("/api/v1/invitations").json() == []
    assert ("accounts.member_invited", {"organization_id": org.pk, "actor_id": owner.user.pk,
                                        "invitation_id": Invitation.objects.get().pk, "email": "vic@example.com",
                                        "role": "viewer"}) in published


@pytest.mark.django_db
def test_a_signed_in_user_accepts_and_acts_for_the_new_org(org, other_org, mailoutbox,
                                                            django_capture_on_commit_callbacks):
    invite(session_client(org, "olivia"), "bob@example.com", "member", django_capture_on_commit_callbacks)
    bob = session_client(other_org, "bob")
    accepted = bob.post(f"/api/v1/auth/invitations/{link_secret(mailoutbox[0])}/accept", {}, format="json")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["organization"]["slug"] == "acme"
    assert {o["slug"] for o in accepted.json()["organizations"]} == {"acme", "globex"}
    assert Membership.objects.get(organization=org, user=bob.user).role == "member"


@pytest.mark.django_db
@pytest.mark.parametrize("inviter_role, role, allowed", [
    ("owner", "owner", True), ("owner", "admin", True), ("admin", "admin", False), ("admin", "owner", False),
    ("admin", "member", True), ("admin", "viewer", True),
])
def test_admins_invite_members_and_viewers_only(org, inviter_role, role, allowed, mailoutbox,
                                                 django_capture_on_commit_callbacks):
    inviter = session_client(org, "ines", role=inviter_role)
    response = invite(inviter, "new@example.com", role, django_capture_on_commit_callbacks)
    assert response.status_code == (201 if allowed else 403), response.content
    assert len(mailoutbox) == (1 if allowed else 0)
    if not allowed:
        assert "Admins may invite members and viewers only." in response.json()["role"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["member", "viewer"])
def test_members_and_viewers_cannot_invite(org, role, mailoutbox, django_capture_on_commit_callbacks):
    response = invite(session_client(org, "mo", role=role), "new@example.com", "viewer",
                      django_capture_on_commit_callbacks)
    assert response.status_code == 403
    assert not Invitation.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("body, field", [({"email": "nope", "role": "member"}, "email"),
                                             ({"email": "a@example.com", "role": "king"}, "role")])
def test_a_bad_invitation_is_a_400_naming_the_field(org, body, field):
    response = session_client(org, "olivia").post("/api/v1/invitations", body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_inviting_a_member_is_a_conflict(org):
    session_client(org, "bob")
    User.objects.filter(username="bob").update(email="bob@example.com")
    response = session_client(org, "olivia").post("/api/v1/invitations", {"email": "BOB@example.com"},
                                                  format="json")
    assert response.status_code == 409


@pytest.mark.django_db
def test_revoking_kills_the_link_and_resending_replaces_it(org, other_org, mailoutbox,
                                                          django_capture_on_commit_callbacks):
    owner = session_client(org, "olivia")
    first = invite(owner, "rae@example.com", "member", django_capture_on_commit_callbacks).json()
    old_secret = link_secret(mailoutbox[0])
    with django_capture_on_commit_callbacks(execute=True):
        resent = owner.post(f"/api/v1/invitations/{first['id']}/resend")
    assert resent.status_code == 200
    new_secret = link_secret(mailoutbox[1])
    assert new_secret != old_secret
    assert APIClient().get(f"/api/v1/auth/invitations/{old_secret}").status_code == 404
    assert APIClient().get(f"/api/v1/auth/invitations/{new_secret}").status_code == 200

    revoked = owner.post(f"/api/v1/invitations/{first['id']}/revoke")
    assert revoked.status_code == 200
    assert revoked.json()["status"] == "revoked"
    gone = APIClient().post(f"/api/v1/auth/invitations/{new_secret}/accept",
                            {"username": "rae", "password": "quiet-harbor-77"}, format="json")
    assert gone.status_code == 410
    assert "revoked" in gone.json()["detail"]
    assert not Membership.objects.filter(user__username="rae").exists()
    # Another organization's owner cannot see or touch it.
    other = session_client(other_org, "gus")
    assert other.post(f"/api/v1/invitations/{first['id']}/revoke").status_code == 404


@pytest.mark.django_db
def test_an_expired_link_is_refused(org, mailoutbox, django_capture_on_commit_callbacks):
    invite(session_client(org, "olivia"), "late@example.com", "member", django_capture_on_commit_callbacks)
    Invitation.objects.update(expires_at="2000-01-01T00:00:00Z")
    response = APIClient().get(f"/api/v1/auth/invitations/{link_secret(mailoutbox[0])}")
    assert response.status_code == 410
    assert "expired" in response.json()["detail"]


@pytest.mark.django_db
def test_an_api_token_cannot_invite(api):
    response = api.post("/api/v1/invitations", {"email": "x@example.com", "role": "viewer"}, format="json")
    assert response.status_code == 403
