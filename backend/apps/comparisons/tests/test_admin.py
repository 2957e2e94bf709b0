"""Operators see comparisons and runs in the Django admin (never a lease token) and may
cancel a comparison through apps.comparisons.services."""

import pytest
from django.test import Client

from apps.comparisons.models import Comparison, UsageQuota
from testing.factories import SPEC
from testing.operators import admin_action, operator_client
from testing.runner_calls import lease

CHANGELIST = "/admin/comparisons/comparison/"


@pytest.mark.django_db
def test_an_operator_cancels_a_comparison(runner_api, queued_run):
    assert lease(runner_api).status_code == 200  # cancelled while a runner holds the run
    ops = operator_client()
    admin_action(ops, CHANGELIST, "cancel_comparison", [queued_run.comparison_id])
    comparison = Comparison.objects.get(pk=queued_run.comparison_id)
    assert comparison.status == Comparison.Status.CANCELLED
    assert comparison.runs.get().status == "cancelled"


@pytest.mark.django_db
def test_run_pages_never_show_the_lease_token(runner_api, queued_run):
    token = lease(runner_api).json()["runs"][0]["lease_token"]
    ops = operator_client()
    for path in (f"{CHANGELIST}{queued_run.comparison_id}/change/", f"/admin/comparisons/run/{queued_run.pk}/change/",
                 "/admin/comparisons/run/"):
        page = ops.get(path)
        assert page.status_code == 200
        assert token.encode() not in page.content


@pytest.mark.django_db
def test_members_who_are_not_staff_are_refused(user, queued_run):
    client = Client()
    client.force_login(user)
    assert client.get(CHANGELIST).status_code == 302
    admin_action(client, CHANGELIST, "cancel_comparison", [queued_run.comparison_id])
    assert Comparison.objects.get(pk=queued_run.comparison_id).status != Comparison.Status.CANCELLED


QUOTAS = "/admin/comparisons/usagequota/"


@pytest.mark.django_db
def test_an_operator_sets_changes_and_removes_a_quota_through_the_service(org, pool, api):
    ops = operator_client()
    added = ops.post(f"{QUOTAS}add/", {"organization": str(org.pk), "monthly_device_minutes": "0"})
    assert added.status_code == 302, added.content.decode()[-2000:]
    quota = UsageQuota.objects.get(organization=org)
    assert quota.monthly_device_minutes == 0
    # The quota is what comparison_create checks: with 0 minutes left, a new comparison is refused.
    assert api.post("/api/v1/comparisons", SPEC, format="json").status_code == 403

    listed = ops.get(QUOTAS)
    assert b"device-minutes used this month" in listed.content.lower()
    ops.post(f"{QUOTAS}{quota.pk}/change/", {"monthly_device_minutes": "500"})
    assert UsageQuota.objects.get(organization=org).monthly_device_minutes == 500
    assert api.post("/api/v1/comparisons", SPEC, format="json").status_code == 201

    ops.post(f"{QUOTAS}{quota.pk}/delete/", {"post": "yes"})
    assert not UsageQuota.objects.filter(organization=org).exists()


@pytest.mark.django_db
def test_members_who_are_not_staff_cannot_set_quotas(org, user):
    client = Client()
    client.force_login(user)
    assert client.post(f"{QUOTAS}add/", {"organization": str(org.pk), "monthly_device_minutes": "1"}).status_code \
        == 302
    assert not UsageQuota.objects.exists()
