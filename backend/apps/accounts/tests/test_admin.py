"""Operators suspend and reinstate organizations in the Django admin: a suspended
organization's API calls answer 403 saying so, and its runs are not leased."""

import pytest
from django.test import Client

from apps.accounts.models import Organization
from testing.operators import admin_action, operator_client
from testing.runner_calls import lease

CHANGELIST = "/admin/accounts/organization/"


@pytest.mark.django_db
def test_suspend_asks_for_a_reason_then_refuses_the_organizations_api_calls(org, other_org, api):
    ops = operator_client()
    confirm = admin_action(ops, CHANGELIST, "suspend", [org.pk])
    assert confirm.status_code == 200
    assert b'name="reason"' in confirm.content
    assert Organization.objects.get(pk=org.pk).suspended_at is None

    done = admin_action(ops, CHANGELIST, "suspend", [org.pk], reason="unpaid invoices")
    assert done.status_code == 302
    org.refresh_from_db()
    assert org.suspended_at is not None
    assert org.suspended_reason == "unpaid invoices (by ops)"
    refused = api.get("/api/v1/comparisons")
    assert refused.status_code == 403
    assert refused.json()["detail"].startswith("The organization acme is suspended")
    assert "unpaid" not in refused.json()["detail"]  # the operator's note stays internal
    assert Organization.objects.get(pk=other_org.pk).suspended_at is None

    admin_action(ops, CHANGELIST, "reinstate", [org.pk])
    assert api.get("/api/v1/comparisons").status_code == 200


@pytest.mark.django_db
def test_a_suspended_organizations_session_is_refused_too(org, user):
    client = Client()
    client.force_login(user)
    admin_action(operator_client(), CHANGELIST, "suspend", [org.pk], reason="abuse report")
    response = client.get("/api/v1/comparisons")
    assert response.status_code == 403
    assert "suspended" in response.json()["detail"]


@pytest.mark.django_db
def test_a_suspended_organizations_runs_are_not_leased_until_it_is_reinstated(org, runner_api, queued_run):
    ops = operator_client()
    admin_action(ops, CHANGELIST, "suspend", [org.pk], reason="abuse report")
    assert lease(runner_api).status_code == 204
    admin_action(ops, CHANGELIST, "reinstate", [org.pk])
    leased = lease(runner_api)
    assert leased.status_code == 200
    assert leased.json()["runs"][0]["run_id"] == str(queued_run.pk)


@pytest.mark.django_db
def test_the_admin_shows_tokens_without_their_hashes(org, api):
    page = operator_client().get(f"/admin/accounts/organization/{org.pk}/change/")
    assert page.status_code == 200
    token = org.api_tokens.get()
    assert token.prefix.encode() in page.content
    assert token.token_hash.encode() not in page.content


@pytest.mark.django_db
def test_members_who_are_not_staff_are_refused(org, user):
    client = Client()
    client.force_login(user)
    for path in ("/admin/", CHANGELIST, f"{CHANGELIST}{org.pk}/change/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
    admin_action(client, CHANGELIST, "suspend", [org.pk], reason="self-suspend")
    assert Organization.objects.get(pk=org.pk).suspended_at is None


@pytest.mark.django_db
def test_staff_without_the_change_permission_cannot_run_the_actions(org):
    viewer = operator_client(username="ops-viewer", codenames=("view_organization",))
    changelist = viewer.get(CHANGELIST)
    assert changelist.status_code == 200
    assert b'value="suspend"' not in changelist.content
    admin_action(viewer, CHANGELIST, "suspend", [org.pk], reason="no")
    assert Organization.objects.get(pk=org.pk).suspended_at is None
