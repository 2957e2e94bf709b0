"""Members: everyone reads the list; owners change roles and remove members, never the last
owner; anyone leaves; a removed member's API tokens act for no one. Changes publish events."""

from uuid import UUID

import pytest

from apps.accounts.models import Membership
from apps.accounts.services import api_token_create
from testing.clients import bearer, session_client


def members(client) -> dict[str, dict]:
    return {m["username"]: m for m in client.get("/api/v1/members").json()}


@pytest.mark.django_db
def test_every_member_reads_the_list_owners_first(org, other_org):
    owner = session_client(org, "olivia")
    viewer = session_client(org, "vic", role="viewer")
    session_client(org, "ada", role="admin")
    session_client(other_org, "gus")
    listed = viewer.get("/api/v1/members")
    assert listed.status_code == 200
    assert [(m["username"], m["role"], m["is_you"]) for m in listed.json()] == [
        ("olivia", "owner", False), ("ada", "admin", False), ("vic", "viewer", True)]
    assert members(owner)["olivia"]["is_you"]


@pytest.mark.django_db
def test_an_owner_changes_a_role_and_it_takes_effect(org, published):
    owner = session_client(org, "olivia")
    mo = session_client(org, "mo", role="member")
    membership_id = members(owner)["mo"]["id"]
    changed = owner.patch(f"/api/v1/members/{membership_id}", {"role": "viewer"}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["role"] == "viewer"
    assert mo.post("/api/v1/network-profiles", {}, format="json").status_code == 403
    assert ("accounts.member_role_changed", {
        "organization_id": org.pk, "actor_id": owner.user.pk, "membership_id": UUID(membership_id),
        "user_id": mo.user.pk, "username": "mo", "role": "viewer", "old_role": "member"}) in published
    bad = owner.patch(f"/api/v1/members/{membership_id}", {"role": "emperor"}, format="json")
    assert bad.status_code == 400
    assert "owner, admin, member, viewer" in bad.json()["role"][0]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["admin", "member", "viewer"])
def test_only_owners_change_roles_or_remove(org, role):
    actor = session_client(org, "ada", role=role)
    session_client(org, "mo", role="member")
    membership_id = members(actor)["mo"]["id"]
    assert actor.patch(f"/api/v1/members/{membership_id}", {"role": "admin"}, format="json").status_code == 403
    assert actor.delete(f"/api/v1/members/{membership_id}").status_code == 403
    assert Membership.objects.get(pk=membership_id).role == "member"


@pytest.mark.django_db
def test_the_last_owner_can_be_neither_demoted_nor_removed_nor_leave(org):
    owner = session_client(org, "olivia")
    own_id = members(owner)["olivia"]["id"]
    demoted = owner.patch(f"/api/v1/members/{own_id}", {"role": "admin"}, format="json")
    assert demoted.status_code == 409
    assert "last owner" in demoted.json()["detail"]
    assert owner.delete(f"/api/v1/members/{own_id}").status_code == 409
    assert owner.post("/api/v1/members/leave").status_code == 409
    # With a second owner, the first may step down.
    second = session_client(org, "otto", role="admin")
    assert owner.patch(f"/api/v1/members/{members(owner)['otto']['id']}", {"role": "owner"},
                       format="json").status_code == 200
    assert owner.patch(f"/api/v1/members/{own_id}", {"role": "admin"}, format="json").status_code == 200
    assert second.delete(f"/api/v1/members/{members(second)['otto']['id']}").status_code == 409


@pytest.mark.django_db
def test_a_removed_member_and_their_tokens_lose_access(org, published):
    owner = session_client(org, "olivia")
    ada = session_client(org, "ada", role="admin")
    _, secret = api_token_create(organization=org, name="ada's CI", scopes=["read", "write"], created_by=ada.user)
    assert bearer(secret).get("/api/v1/comparisons").status_code == 200
    membership_id = members(owner)["ada"]["id"]
    assert owner.delete(f"/api/v1/members/{membership_id}").status_code == 204
    assert ada.get("/api/v1/comparisons").status_code == 403
    refused = bearer(secret).get("/api/v1/comparisons")
    assert refused.status_code == 403
    assert "no longer a member" in refused.json()["detail"]
    assert ("accounts.member_removed", {"organization_id": org.pk, "actor_id": owner.user.pk,
                                        "membership_id": UUID(membership_id), "user_id": ada.user.pk, "username": "ada",
                                        "role": "admin", "left": False}) in published


@pytest.mark.django_db
def test_a_member_leaves(org, other_org, published):
    session_client(org, "olivia")
    mo = session_client(org, "mo", role="viewer")
    Membership.objects.create(organization=other_org, user=mo.user, role="member")
    assert mo.post("/api/v1/members/leave").status_code == 204
    assert not Membership.objects.filter(organization=org, user=mo.user).exists()
    assert mo.get("/api/v1/auth/me").json()["organization"]["slug"] == "globex"
    [(name, payload)] = published
    assert (name, payload["left"], payload["actor_id"]) == ("accounts.member_removed", True, mo.user.pk)


@pytest.mark.django_db
def test_another_organizations_member_is_not_found(org, other_org):
    owner = session_client(org, "olivia")
    gus = session_client(other_org, "gus", role="member")
    gus_id = members(gus)["gus"]["id"]
    assert owner.patch(f"/api/v1/members/{gus_id}", {"role": "viewer"}, format="json").status_code == 404
    assert owner.delete(f"/api/v1/members/{gus_id}").status_code == 404
    assert Membership.objects.get(pk=gus_id).role == "member"


@pytest.mark.django_db
def test_token_events_are_published(org, published):
    owner = session_client(org, "olivia")
    created = owner.post("/api/v1/tokens", {"name": "ci", "scopes": ["ci"]}, format="json").json()
    owner.post(f"/api/v1/tokens/{created['id']}/revoke")
    owner.post(f"/api/v1/tokens/{created['id']}/revoke")  # twice: announced once
    assert [(name, p["token_id"], p["token_name"], p["actor_id"]) for name, p in published] == [
        ("accounts.api_token_created", UUID(created["id"]), "ci", owner.user.pk),
        ("accounts.api_token_revoked", UUID(created["id"]), "ci", owner.user.pk)]
