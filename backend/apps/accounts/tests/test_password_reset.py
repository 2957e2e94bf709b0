"""Password reset: asking always answers the same (no telling who has an account); the
emailed link sets a new password once, through the password validators."""

import re

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from testing.clients import session_client

LINK = re.compile(r"http://testserver/reset-password/([^/\s]+)/(\S+)")


def ask(email: str):
    return APIClient().post("/api/v1/auth/password-reset", {"email": email}, format="json")


@pytest.mark.django_db
def test_the_emailed_link_sets_a_new_password_once(org, mailoutbox):
    session_client(org, "alice")
    User.objects.filter(username="alice").update(email="alice@example.com")
    response = ask("ALICE@example.com")
    assert response.status_code == 200
    [mail] = mailoutbox
    assert mail.to == ["alice@example.com"]
    uid, token = LINK.search(mail.body).groups()

    confirm = {"uid": uid, "token": token, "new_password": "123"}
    weak = APIClient().post("/api/v1/auth/password-reset/confirm", confirm, format="json")
    assert weak.status_code == 400
    assert "new_password" in weak.json()
    done = APIClient().post("/api/v1/auth/password-reset/confirm", {**confirm, "new_password": "violet-canyon-19"},
                            format="json")
    assert done.status_code == 200, done.content
    signed_in = APIClient().post("/api/v1/auth/login", {"username": "alice", "password": "violet-canyon-19"},
                                 format="json")
    assert signed_in.status_code == 200
    # Used once: the token was bound to the old password.
    again = APIClient().post("/api/v1/auth/password-reset/confirm", {**confirm, "new_password": "other-canyon-20"},
                             format="json")
    assert again.status_code == 400
    assert "not valid" in again.json()["detail"]


@pytest.mark.django_db
def test_an_unknown_email_gets_the_same_answer_and_no_mail(org, mailoutbox):
    session_client(org, "alice")
    User.objects.filter(username="alice").update(email="alice@example.com")
    known, unknown = ask("alice@example.com"), ask("nobody@example.com")
    assert (unknown.status_code, unknown.json()) == (known.status_code, known.json())
    assert len(mailoutbox) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("body", [{"email": "not-an-email"}, {}])
def test_a_bad_request_names_the_field(body, mailoutbox):
    response = APIClient().post("/api/v1/auth/password-reset", body, format="json")
    assert response.status_code == 400
    assert "email" in response.json()


@pytest.mark.django_db
def test_a_forged_link_is_refused(org):
    session_client(org, "alice")
    response = APIClient().post("/api/v1/auth/password-reset/confirm",
                                {"uid": "MQ", "token": "abc-123", "new_password": "violet-canyon-19"}, format="json")
    assert response.status_code == 400
    assert not User.objects.get(username="alice").check_password("violet-canyon-19")
