"""Usage metering (device-minutes per organization, month and pool, from run attempts) and
the monthly quota that refuses new comparisons once reached."""

import datetime as dt

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import user_ensure_member
from apps.comparisons.models import Comparison, Run, RunAttempt, UsageQuota
from apps.comparisons.quota import usage_quota_set
from apps.comparisons.services import comparison_create, comparison_plan
from apps.comparisons.usage import month_start, usage_by_month
from apps.devices.services import pool_get_or_create
from testing.factories import SPEC, run_measured_comparison

NOW = dt.datetime(2026, 11, 15, 12, 0, tzinfo=dt.UTC)


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def planned_run(org, pool_slug: str) -> Run:
    comparison = comparison_create(organization=org, submitted_spec={**SPEC, "devices": {"pool": pool_slug}})
    comparison_plan(comparison_id=str(comparison.id))
    return comparison.runs.get()


def attempt(run: Run, number: int, start: dt.datetime, end: dt.datetime | None) -> RunAttempt:
    return RunAttempt.objects.create(run=run, number=number, started_at=start, ended_at=end,
                                     outcome=RunAttempt.Outcome.OK if end else RunAttempt.Outcome.RUNNING)


def signed_in(org, username: str, role: str) -> APIClient:
    client = APIClient()
    client.force_login(user_ensure_member(organization=org, username=username, password="pw-123456", role=role))
    return client


@pytest.fixture
def farm(org):
    return pool_get_or_create(organization=org, slug="farm", name="Farm")


@pytest.mark.django_db
def test_device_minutes_add_up_per_month_and_pool(org, other_org, pool, farm):
    local_run = planned_run(org, "local")
    attempt(local_run, 1, at("2026-11-10T10:00"), at("2026-11-10T10:30"))  # 30 min
    attempt(local_run, 2, at("2026-11-12T09:00"), at("2026-11-12T09:12:30"))  # 12.5 min
    cancelled = planned_run(org, "local")
    Run.objects.filter(pk=cancelled.pk).update(status=Run.Status.CANCELLED, finished_at=at("2026-11-14T08:45"))
    attempt(cancelled, 1, at("2026-11-14T08:00"), None)  # cut short by the cancel: 45 min
    running = planned_run(org, "local")
    attempt(running, 1, at("2026-11-15T11:55"), None)  # still running: 5 min so far
    # Counts in the month it started in (October), in the farm pool.
    attempt(planned_run(org, "farm"), 1, at("2026-10-31T23:50"), at("2026-11-01T00:10"))
    attempt(planned_run(org, "farm"), 1, at("2026-07-01T00:00"), at("2026-07-01T01:00"))  # beyond 3 months
    theirs = pool_get_or_create(organization=other_org, slug="local", name="Theirs")
    attempt(planned_run(other_org, theirs.slug), 1, at("2026-11-02T00:00"), at("2026-11-02T05:00"))

    months = usage_by_month(organization=org, months=3, now=NOW)
    assert [m.month for m in months] == [dt.date(2026, 11, 1), dt.date(2026, 10, 1), dt.date(2026, 9, 1)]
    assert [(p.pool_slug, p.device_minutes) for p in months[0].pools] == [("local", 92.5)]
    assert [(p.pool_slug, p.pool_name, p.device_minutes) for p in months[1].pools] == [("farm", "Farm", 20.0)]
    assert months[2].pools == []
    assert months[0].device_minutes == 92.5


@pytest.mark.django_db
def test_a_measured_comparison_counts_the_time_its_device_was_leased(org, runner_api):
    comparison = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.5}, seed=3,
                                         blocks=2)
    assert comparison.status == Comparison.Status.FINISHED
    held = RunAttempt.objects.get(run__comparison=comparison)
    expected = (held.ended_at - held.started_at).total_seconds() / 60
    months = usage_by_month(organization=org, months=1)
    assert [p.pool_slug for p in months[0].pools] == ["local"]
    assert months[0].pools[0].device_minutes == pytest.approx(expected, abs=0.01)
    assert expected > 0


@pytest.mark.django_db
def test_owners_read_usage_with_the_quota(org, pool):
    run = planned_run(org, "local")
    start = month_start(dt.datetime.now(dt.UTC))
    attempt(run, 1, start, start + dt.timedelta(minutes=90))
    usage_quota_set(organization=org, monthly_device_minutes=1200)
    body = signed_in(org, "olivia", Membership.Role.OWNER).get("/api/v1/usage?months=2").json()
    assert body["monthly_quota_device_minutes"] == 1200
    assert len(body["months"]) == 2
    assert body["months"][0] == {"month": f"{start:%Y-%m}", "device_minutes": 90.0,
                                 "pools": [{"pool": "local", "pool_name": "Local", "device_minutes": 90.0}]}
    assert body["months"][1]["pools"] == []


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Membership.Role.ADMIN, Membership.Role.MEMBER, Membership.Role.VIEWER])
def test_only_owners_see_usage(org, role):
    response = signed_in(org, "someone", role).get("/api/v1/usage")
    assert response.status_code == 403
    assert "owner" in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("months", ["0", "37", "twelve"])
def test_months_out_of_range_answer_400_naming_the_range(org, months):
    response = signed_in(org, "olivia", Membership.Role.OWNER).get("/api/v1/usage", {"months": months})
    assert response.status_code == 400
    assert "months" in response.json()


@pytest.mark.django_db
def test_a_reached_quota_refuses_new_comparisons_and_creates_nothing(org, pool, api):
    start = month_start(dt.datetime.now(dt.UTC))
    attempt(planned_run(org, "local"), 1, start, start + dt.timedelta(minutes=60))
    before = Comparison.objects.count()

    usage_quota_set(organization=org, monthly_device_minutes=60)
    refused = api.post("/api/v1/comparisons", SPEC, format="json")
    assert refused.status_code == 403, refused.content
    assert refused.json()["detail"].startswith(
        f"This organization has used 60 of its 60 device-minutes for {start:%B %Y} (UTC)")
    assert set(refused.json()) == {"detail"}  # the one error shape every client shows as it is
    assert Comparison.objects.count() == before

    usage_quota_set(organization=org, monthly_device_minutes=61)
    assert api.post("/api/v1/comparisons", SPEC, format="json").status_code == 201
    usage_quota_set(organization=org, monthly_device_minutes=None)
    assert not UsageQuota.objects.exists()
    assert api.post("/api/v1/comparisons", SPEC, format="json").status_code == 201


@pytest.mark.django_db
def test_operators_set_and_remove_quotas_with_the_command(org, capsys):
    call_command("set_usage_quota", "acme", "1200")
    assert UsageQuota.objects.get(organization=org).monthly_device_minutes == 1200
    assert "acme: 1,200 device-minutes a month" in capsys.readouterr().out
    call_command("set_usage_quota", "acme", "none")
    assert not UsageQuota.objects.exists()
    for bad in ("-5", "1.5", "10000001", "lots"):
        with pytest.raises(CommandError, match="from 0 to 10,000,000"):
            call_command("set_usage_quota", "acme", bad)
    with pytest.raises(CommandError, match="No organization"):
        call_command("set_usage_quota", "nope", "10")
    assert not UsageQuota.objects.exists()
