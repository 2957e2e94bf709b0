"""The audit log: what each audited change records (through the real API and services,
whose domain events apps.audit hears), and who may read it with which filters."""

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import api_token_create, user_ensure_member
from apps.audit.models import AuditEvent
from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.core.events import publish
from apps.devices.models import Device
from testing.factories import SPEC


def signed_in(org, username: str, role: str) -> APIClient:
    user = user_ensure_member(organization=org, username=username, password=f"pw-{username}-123", role=role)
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def owner(org):
    return signed_in(org, "olivia", Membership.Role.OWNER)


def actions(org, *only: str) -> list[str]:
    events = AuditEvent.objects.filter(organization=org).order_by("created_at", "id")
    return [e.action for e in events if not only or e.action in only]


@pytest.mark.django_db
def test_share_link_created_and_revoked_are_recorded_with_actor_and_open_count(org, pool, owner):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    created = owner.post(f"/api/v1/comparisons/{comparison.id}/shares", {"expires_in_days": 7}, format="json")
    assert created.status_code == 201, created.content
    link_id = created.json()["id"]
    revoked = owner.post(f"/api/v1/comparisons/{comparison.id}/shares/{link_id}/revoke")
    assert revoked.status_code == 200, revoked.content
    owner.post(f"/api/v1/comparisons/{comparison.id}/shares/{link_id}/revoke")  # again: nothing new happens

    events = owner.get("/api/v1/audit-events?action=share_link.revoked").json()["results"]
    assert len(events) == 1
    assert events[0]["actor"]["label"] == "olivia"
    assert events[0]["target"] == {"type": "share_link", "id": link_id, "label": comparison.name}
    assert events[0]["details"]["open_count"] == 0
    assert actions(org, "share_link.created", "share_link.revoked") == ["share_link.created", "share_link.revoked"]


@pytest.mark.django_db
def test_webhook_changes_are_recorded_with_what_changed_and_the_token_that_did_it(org, api):
    created = api.post("/api/v1/webhooks", {"url": "https://ci.example.com/hooks"}, format="json").json()
    assert api.patch(f"/api/v1/webhooks/{created['id']}", {"active": False}, format="json").status_code == 200
    assert api.delete(f"/api/v1/webhooks/{created['id']}").status_code == 204

    events = api.get("/api/v1/audit-events").json()["results"]
    webhook_events = [e for e in events if e["target"]["type"] == "webhook"]
    assert [e["action"] for e in webhook_events] == ["webhook.deleted", "webhook.updated", "webhook.created"]
    assert {e["target"]["label"] for e in webhook_events} == {"https://ci.example.com/hooks"}
    assert webhook_events[1]["details"]["changes"] == {"active": False}
    assert webhook_events[2]["details"]["changes"]["events"] == ["comparison.finished", "comparison.failed"]
    # The fixture's token has no creator: the token alone is the actor.
    assert webhook_events[0]["actor"]["id"] is None
    assert webhook_events[0]["actor"]["token_id"]
    assert webhook_events[0]["actor"]["label"].startswith("API token 'test' (")


@pytest.mark.django_db
def test_cancelling_a_comparison_is_recorded_once(org, pool, owner):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    assert owner.post(f"/api/v1/comparisons/{comparison.id}/cancel").status_code == 200
    assert owner.post(f"/api/v1/comparisons/{comparison.id}/cancel").status_code == 200
    event = AuditEvent.objects.get(organization=org, action="comparison.cancelled")
    assert (event.target_id, event.target_label, event.actor_label) == (str(comparison.id), comparison.name, "olivia")


@pytest.mark.django_db
def test_releasing_a_device_from_quarantine_is_recorded(org, owner, runner_api):
    device = Device.objects.get(serial="host-lab-1")
    Device.objects.filter(pk=device.pk).update(state=Device.State.QUARANTINED)
    assert owner.post(f"/api/v1/devices/{device.id}/release").status_code == 200
    event = AuditEvent.objects.get(organization=org, action="device.quarantine_released")
    assert event.target_id == str(device.id)
    assert "host-lab-1" in event.target_label
    assert event.actor_label == "olivia"


@pytest.mark.django_db
def test_account_events_are_recorded_by_name_with_their_targets(org, user):
    bob = user_ensure_member(organization=org, username="bob", password="pw-bob-123", role=Membership.Role.MEMBER)
    publish("accounts.member_invited", organization_id=org.pk, actor_id=user.pk, invitation_id="inv-1",
            email="carol@example.com", role="viewer")
    publish("accounts.member_role_changed", organization_id=org.pk, actor_id=user.pk, membership_id="m-1",
            user_id=bob.pk, role="admin", old_role="member")
    publish("accounts.member_removed", organization_id=org.pk, actor_id=None, membership_id="m-1", user_id=bob.pk,
            role="admin", left=False)
    publish("accounts.api_token_revoked", organization_id=org.pk, actor_id=user.pk, token_id="t-1",
            token_name="ci-main")
    events = {e.action: e for e in AuditEvent.objects.filter(organization=org)}
    invited = events["member.invited"]
    assert (invited.target_type, invited.target_id, invited.target_label) == ("invitation", "inv-1",
                                                                               "carol@example.com")
    assert invited.details == {"role": "viewer"}
    assert invited.actor_label == "alice"
    changed = events["member.role_changed"]
    assert (changed.target_label, changed.details) == ("bob", {"user_id": bob.pk, "role": "admin",
                                                               "old_role": "member"})
    assert events["member.removed"].actor_label == ""  # an operator's command: the system
    assert (events["api_token.revoked"].target_id, events["api_token.revoked"].target_label) == ("t-1", "ci-main")


@pytest.mark.django_db
def test_a_hosted_pools_device_released_by_operators_records_nothing(org):
    publish("devices.quarantine_released", organization_id=None, actor_id=None, actor_token_id=None,
            device_id="d-1", device_label="Pixel 8 (X)")
    assert not AuditEvent.objects.exists()


@pytest.mark.django_db
def test_nothing_is_recorded_when_the_change_rolls_back(org, pool, owner):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    Comparison.objects.filter(pk=comparison.pk).update(organization=org)
    bad = owner.post(f"/api/v1/comparisons/{comparison.id}/shares", {"expires_in_days": 0}, format="json")
    assert bad.status_code == 400, bad.content
    assert actions(org, "share_link.created") == []


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Membership.Role.MEMBER, Membership.Role.VIEWER])
def test_members_and_viewers_cannot_read_the_audit_log(org, role):
    response = signed_in(org, "mallory", role).get("/api/v1/audit-events")
    assert response.status_code == 403
    assert "owner or admin" in response.json()["detail"]


@pytest.mark.django_db
def test_admins_read_it_and_a_read_only_token_cannot(org):
    assert signed_in(org, "adam", Membership.Role.ADMIN).get("/api/v1/audit-events").status_code == 200
    _, secret = api_token_create(organization=org, name="reader", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert reader.get("/api/v1/audit-events").status_code == 403


@pytest.mark.django_db
def test_another_organizations_events_are_never_listed(org, other_org, owner):
    publish("accounts.api_token_revoked", organization_id=other_org.pk, actor_id=None, token_id="theirs",
            token_name="globex-ci")
    publish("accounts.api_token_revoked", organization_id=org.pk, actor_id=None, token_id="ours", token_name="acme-ci")
    listed = owner.get("/api/v1/audit-events?action=api_token.revoked").json()
    assert [e["target"]["id"] for e in listed["results"]] == ["ours"]


@pytest.mark.django_db
def test_filters_by_time_and_actor_and_paginates_newest_first(org, user, owner):
    for i in range(30):
        publish("accounts.api_token_revoked", organization_id=org.pk, actor_id=user.pk if i % 2 else None,
                token_id=f"t-{i}", token_name=f"token {i}")
    base = timezone.now() - dt.timedelta(days=30)
    revoked = list(AuditEvent.objects.filter(action="api_token.revoked").order_by("target_label"))
    for event in revoked:
        AuditEvent.objects.filter(pk=event.pk).update(created_at=base + dt.timedelta(days=int(event.target_id[2:])))

    first = owner.get("/api/v1/audit-events?action=api_token.revoked").json()
    assert first["count"] == 30
    assert [e["target"]["id"] for e in first["results"][:3]] == ["t-29", "t-28", "t-27"]
    assert len(first["results"]) == 25
    second = owner.get(first["next"]).json()
    assert [e["target"]["id"] for e in second["results"]] == ["t-4", "t-3", "t-2", "t-1", "t-0"]

    window = owner.get("/api/v1/audit-events", {"action": "api_token.revoked",
                                                "since": (base + dt.timedelta(days=10)).isoformat(),
                                                "until": (base + dt.timedelta(days=13)).isoformat()}).json()
    assert [e["target"]["id"] for e in window["results"]] == ["t-12", "t-11", "t-10"]

    by_alice = owner.get("/api/v1/audit-events", {"action": "api_token.revoked", "actor": user.pk}).json()
    assert by_alice["count"] == 15
    assert {e["actor"]["label"] for e in by_alice["results"]} == {"alice"}

    # Any ISO 8601 offset is the same moment, also one PostgreSQL would refuse (beyond ±15:59).
    far_east = (base + dt.timedelta(days=10)).astimezone(dt.timezone(dt.timedelta(hours=17, minutes=44)))
    assert far_east.utcoffset() == dt.timedelta(hours=17, minutes=44)
    since_far_east = owner.get("/api/v1/audit-events", {"action": "api_token.revoked", "since": far_east.isoformat(),
                                                        "until": (base + dt.timedelta(days=13)).isoformat()})
    assert [e["target"]["id"] for e in since_far_east.json()["results"]] == ["t-12", "t-11", "t-10"]


@pytest.mark.django_db
@pytest.mark.parametrize("query, field, message", [
    ({"action": "comparison.exploded"}, "action",
     "action: comparison.exploded is not one of member.invited, member.removed, member.role_changed, "
     "api_token.created, api_token.revoked, share_link.created, share_link.revoked, comparison.cancelled, "
     "device.quarantine_released, runner.breaker_reset, webhook.created, webhook.updated, webhook.deleted"),
    ({"since": "yesterday"}, "since", "since: expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z"),
    ({"since": "2026-11-02T00:00:00Z", "until": "2026-11-01T00:00:00Z"}, "until", "Must be later than since."),
    ({"since": "0001-01-01T00:00:00+05:00"}, "since",  # its UTC is before year 1
     "since: expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z"),
    ({"actor": "0"}, "actor", "actor: expected a whole number ≥ 1"),
    ({"actor": "alice"}, "actor", "actor: expected a whole number ≥ 1"),
    ({"acton": "member.invited"}, "acton",
     "acton: not a parameter of this endpoint; it takes action, since, until, actor, page, format"),
])
def test_bad_filters_answer_400_naming_the_field(owner, query, field, message):
    response = owner.get("/api/v1/audit-events", query)
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
