"""Pool enrollment tokens (API for owners and admins) and `POST /api/runner/v1/register`
(contract README, "Enrollment"), over real HTTP handling and PostgreSQL."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import api_token_create, user_ensure_member
from apps.core.tokens import digest
from apps.devices.models import EnrollmentToken, Runner
from apps.devices.services import pool_get_or_create

TOKENS = "/api/v1/pools/local/enrollment-tokens"
REGISTER = "/api/runner/v1/register"
BODY = {"name": "mac-mini-3", "hostname": "mac-mini-3.lab", "version": "0.2.0", "drivers": ["android", "ios"]}


def member_client(org, role: str) -> APIClient:
    user = user_ensure_member(organization=org, username=f"user-{role}", password="pw-123456", role=role)
    client = APIClient()
    client.force_login(user)
    return client


def enroller(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Enroll {token}")
    return client


@pytest.fixture
def enrollment_secret(api, pool) -> str:
    response = api.post(TOKENS, {"name": "zurich lab"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["token"]


@pytest.mark.django_db
def test_an_admin_creates_a_token_shown_once_and_stored_hashed(org, pool):
    admin = member_client(org, Membership.Role.ADMIN)
    response = admin.post(TOKENS, {"name": "zurich lab", "expires_in_days": 3}, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    secret = created["token"]
    assert secret.startswith("lle_")
    assert created["prefix"] == secret[:12]
    assert created["status"] == "active"
    assert created["created_by"] == "user-admin"
    assert created["pool"] == "local"
    stored = EnrollmentToken.objects.get()
    assert stored.token_hash == digest(secret)
    assert secret not in str(stored.__dict__)
    assert timedelta(days=2, hours=23) < stored.expires_at - timezone.now() <= timedelta(days=3)

    listed = admin.get(TOKENS).json()
    assert [t["id"] for t in listed] == [created["id"]]
    assert "token" not in listed[0]
    assert listed[0]["runners_enrolled"] == 0


@pytest.mark.django_db
def test_token_lifetime_is_bounded_and_defaults_to_a_week(api, pool):
    too_long = api.post(TOKENS, {"expires_in_days": 91}, format="json")
    assert too_long.status_code == 400
    assert "90" in too_long.json()["expires_in_days"][0]
    assert api.post(TOKENS, {"expires_in_days": 0}, format="json").status_code == 400
    assert EnrollmentToken.objects.count() == 0
    api.post(TOKENS, {}, format="json")
    lifetime = EnrollmentToken.objects.get().expires_at - timezone.now()
    assert timedelta(days=6, hours=23) < lifetime <= timedelta(days=7)


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Membership.Role.MEMBER, Membership.Role.VIEWER])
def test_members_and_viewers_may_not_manage_tokens(org, pool, enrollment_secret, role):
    client = member_client(org, role)
    token_id = EnrollmentToken.objects.get().id
    assert client.post(TOKENS, {}, format="json").status_code == 403
    assert client.get(TOKENS).status_code == 403
    assert client.post(f"{TOKENS}/{token_id}/revoke").status_code == 403
    assert EnrollmentToken.objects.filter(revoked_at__isnull=True).count() == 1


@pytest.mark.django_db
def test_api_tokens_need_the_write_scope_and_an_admin_behind_them(org, pool, user):
    def bearer(scopes, created_by=None):
        _, secret = api_token_create(organization=org, name="t", scopes=scopes, created_by=created_by)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return client

    assert bearer(["read"]).get(TOKENS).status_code == 403
    assert bearer(["ci"]).post(TOKENS, {}, format="json").status_code == 403
    member = user_ensure_member(organization=org, username="bob", password="pw-123456", role="member")
    assert bearer(["write"], created_by=member).post(TOKENS, {}, format="json").status_code == 403
    assert bearer(["write"], created_by=user).post(TOKENS, {}, format="json").status_code == 201  # alice owns acme
    assert bearer(["read", "write"]).post(TOKENS, {}, format="json").status_code == 201  # operator-minted


@pytest.mark.django_db
def test_another_orgs_pool_and_hosted_pools_are_not_enrollable(api, other_org, pool):
    pool_get_or_create(organization=other_org, slug="theirs", name="Theirs")
    assert api.post("/api/v1/pools/theirs/enrollment-tokens", {}, format="json").status_code == 404
    assert api.post("/api/v1/pools/nope/enrollment-tokens", {}, format="json").status_code == 404
    assert EnrollmentToken.objects.count() == 0


@pytest.mark.django_db
def test_register_creates_a_runner_that_speaks_with_its_own_token(pool, enrollment_secret):
    response = enroller(enrollment_secret).post(REGISTER, BODY, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["pool"] == "local"
    assert body["runner_token"].startswith("llr_")
    runner = Runner.objects.get(pk=body["runner_id"])
    assert (runner.name, runner.hostname, runner.version, runner.drivers) == (
        "mac-mini-3", "mac-mini-3.lab", "0.2.0", ["android", "ios"])
    assert runner.token_hash == digest(body["runner_token"])
    assert runner.enrolled_with.pool == pool
    assert EnrollmentToken.objects.get().last_used_at is not None

    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Runner {body['runner_token']}")
    assert agent.post("/api/runner/v1/lease", {"devices": [], "wait_s": 0}, format="json").status_code == 204
    # The enrollment token is no runner token, and the reverse.
    assert enroller(body["runner_token"]).post(REGISTER, {**BODY, "name": "x"}, format="json").status_code == 401
    assert APIClient(HTTP_AUTHORIZATION=f"Runner {enrollment_secret}").post(
        "/api/runner/v1/lease", {"devices": []}, format="json").status_code == 401


@pytest.mark.django_db
def test_a_duplicate_runner_name_in_the_pool_is_409_and_changes_nothing(pool, enrollment_secret):
    assert enroller(enrollment_secret).post(REGISTER, BODY, format="json").status_code == 201
    again = enroller(enrollment_secret).post(REGISTER, {**BODY, "hostname": "other"}, format="json")
    assert again.status_code == 409
    assert "mac-mini-3" in again.json()["detail"]
    assert Runner.objects.get(name="mac-mini-3").hostname == "mac-mini-3.lab"


@pytest.mark.django_db
def test_register_rejects_bad_input_with_field_paths(pool, enrollment_secret):
    response = enroller(enrollment_secret).post(
        REGISTER, {"name": "mac mini/3", "version": "x" * 33, "drivers": ["android", "symbian"]}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"name", "version", "drivers"}
    assert "1" in body["drivers"]
    assert Runner.objects.count() == 0


@pytest.mark.django_db
def test_unknown_expired_and_revoked_enrollment_tokens_are_401(api, pool, enrollment_secret):
    assert enroller("lle_unknown").post(REGISTER, BODY, format="json").status_code == 401
    assert APIClient().post(REGISTER, BODY, format="json").status_code == 401

    EnrollmentToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = enroller(enrollment_secret).post(REGISTER, BODY, format="json")
    assert expired.status_code == 401
    assert expired["WWW-Authenticate"] == "Enroll"
    assert api.get(TOKENS).json()[0]["status"] == "expired"

    EnrollmentToken.objects.update(expires_at=timezone.now() + timedelta(days=1))
    token_id = EnrollmentToken.objects.get().id
    revoked = api.post(f"{TOKENS}/{token_id}/revoke")
    assert revoked.status_code == 200
    assert revoked.json()["status"] == "revoked"
    assert enroller(enrollment_secret).post(REGISTER, BODY, format="json").status_code == 401
    assert Runner.objects.count() == 0


@pytest.mark.django_db
def test_revoking_keeps_enrolled_runners_working(api, pool, enrollment_secret):
    runner_token = enroller(enrollment_secret).post(REGISTER, BODY, format="json").json()["runner_token"]
    api.post(f"{TOKENS}/{EnrollmentToken.objects.get().id}/revoke")
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Runner {runner_token}")
    assert agent.post("/api/runner/v1/lease", {"devices": [], "wait_s": 0}, format="json").status_code == 204
    assert api.get(TOKENS).json()[0]["runners_enrolled"] == 1
