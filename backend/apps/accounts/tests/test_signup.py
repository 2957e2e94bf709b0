"""Sign-up makes a user who owns a new organization and is signed in; bad input is a 400
naming the field and changes nothing; sign-up can be closed; a user of several
organizations chooses which one the session acts for, and reads stay scoped to it."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from apps.accounts.models import Membership, Organization
from apps.comparisons.services import comparison_create
from apps.devices.services import pool_get_or_create
from testing.clients import session_client
from testing.factories import SPEC

GOOD = {"username": "grace", "email": "grace@example.com", "password": "lantern-orbit-42",
        "organization_name": "Hopper Labs"}


def signup(client: APIClient, **changes) -> object:
    return client.post("/api/v1/auth/signup", {**GOOD, **changes}, format="json")


@pytest.mark.django_db
def test_sign_up_creates_an_owned_organization_and_signs_in():
    client = APIClient(enforce_csrf_checks=True)
    response = signup(client)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "grace"
    assert body["organization"] == {"slug": "hopper-labs", "name": "Hopper Labs"}
    assert body["role"] == "owner"
    assert body["organizations"] == [{"slug": "hopper-labs", "name": "Hopper Labs", "role": "owner"}]
    # The session works: the new owner reads their (empty) organization.
    assert client.get("/api/v1/auth/me").json()["organization"]["slug"] == "hopper-labs"
    assert client.get("/api/v1/comparisons").json()["count"] == 0
    user = User.objects.get(username="grace")
    assert user.email == "grace@example.com"
    assert user.check_password("lantern-orbit-42")


@pytest.mark.django_db
@pytest.mark.parametrize("changes, field, says", [
    ({"password": "short"}, "password", "at least 10 characters"),
    ({"password": "1234567890123"}, "password", "entirely numeric"),
    ({"password": "password123"}, "password", "too common"),
    ({"password": "grace@example.com"}, "password", "too similar"),
    ({"username": "bad name!"}, "username", "Letters, digits"),
    ({"email": "not-an-email"}, "email", "valid email"),
    ({"organization_name": ""}, "organization_name", "blank"),
    ({"organization_name": "x" * 201}, "organization_name", "200"),
])
def test_bad_sign_up_is_a_400_naming_the_field_and_creates_nothing(changes, field, says):
    response = signup(APIClient(), **changes)
    assert response.status_code == 400, response.content
    assert says in " ".join(response.json()[field])
    assert not User.objects.exists()
    assert not Organization.objects.exists()


@pytest.mark.django_db
def test_a_taken_username_or_email_is_refused(org):
    session_client(org, "grace")
    taken = signup(APIClient())
    assert taken.status_code == 400
    assert "taken" in taken.json()["username"][0]
    User.objects.filter(username="grace").update(email="grace@example.com")
    in_use = signup(APIClient(), username="grace2")
    assert in_use.status_code == 400
    assert "email" in in_use.json()
    assert Organization.objects.count() == 1


@pytest.mark.django_db
def test_a_second_organization_of_the_same_name_gets_its_own_slug(org):
    signup(APIClient())
    response = signup(APIClient(), username="linus", email="linus@example.com")
    assert response.status_code == 201
    assert response.json()["organization"]["slug"] == "hopper-labs-2"


@pytest.mark.django_db
def test_closed_sign_up_is_refused(settings):
    assert APIClient().get("/api/v1/auth/signup").json() == {"open": True}
    settings.LATENCYLAB_OPEN_SIGNUP = False
    assert APIClient().get("/api/v1/auth/signup").json() == {"open": False}
    response = signup(APIClient())
    assert response.status_code == 403
    assert "invitation" in response.json()["detail"]
    assert not User.objects.exists()


@pytest.mark.django_db
def test_a_user_of_two_organizations_switches_and_each_read_stays_scoped(org, other_org):
    client = session_client(org, "alice")
    Membership.objects.create(organization=other_org, user=client.user, role=Membership.Role.VIEWER)
    for each in (org, other_org):
        pool_get_or_create(organization=each, slug="local", name="Local")
    mine = comparison_create(organization=org, submitted_spec=SPEC)
    theirs = comparison_create(organization=other_org, submitted_spec=SPEC)

    me = client.get("/api/v1/auth/me").json()
    assert me["organization"]["slug"] == "acme"
    assert [(o["slug"], o["role"]) for o in me["organizations"]] == [("acme", "owner"), ("globex", "viewer")]
    assert [c["id"] for c in client.get("/api/v1/comparisons").json()["results"]] == [str(mine.id)]

    switched = client.post("/api/v1/auth/organization", {"slug": "globex"}, format="json")
    assert switched.status_code == 200
    assert (switched.json()["organization"]["slug"], switched.json()["role"]) == ("globex", "viewer")
    assert [c["id"] for c in client.get("/api/v1/comparisons").json()["results"]] == [str(theirs.id)]
    assert client.get(f"/api/v1/comparisons/{mine.id}").status_code == 404
    # As a viewer of globex, alice may not start a comparison there.
    refused = client.post("/api/v1/comparisons", SPEC, format="json")
    assert refused.status_code == 403
    assert "Viewers have read-only access" in refused.json()["detail"]

    assert client.post("/api/v1/auth/organization", {"slug": "initech"}, format="json").status_code == 404
    assert client.get("/api/v1/auth/me").json()["organization"]["slug"] == "globex"


@pytest.mark.django_db
def test_a_signed_in_user_creates_another_organization_and_acts_for_it(org):
    client = session_client(org, "alice", role=Membership.Role.VIEWER)
    created = client.post("/api/v1/organizations", {"name": "Side Project"}, format="json")
    assert created.status_code == 201, created.content
    assert (created.json()["organization"]["slug"], created.json()["role"]) == ("side-project", "owner")
    listed = client.get("/api/v1/organizations").json()
    assert {(o["slug"], o["role"]) for o in listed} == {("acme", "viewer"), ("side-project", "owner")}
