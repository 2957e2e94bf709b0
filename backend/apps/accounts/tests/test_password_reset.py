"""Password reset: asking always answers the same, and the request neither looks the address
up nor sends mail (a real Celery worker does both), so neither its answer nor its timing tells
who has an account; the emailed link sets a new password once, through the password validators."""

import re

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from config.celery import app as celery_app
from testing.clients import session_client
from testing.waiting import wait_for

LINK = re.compile(r"http://testserver/reset-password/([^/\s]+)/(\S+)")


def ask(email: str):
    return APIClient().post("/api/v1/auth/password-reset", {"email": email}, format="json")


@pytest.fixture
def mail_worker():
    """A real Celery worker on the test broker: the reset mail is its work."""
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


@pytest.mark.django_db(transaction=True)
def test_the_emailed_link_sets_a_new_password_once(org, mailoutbox, mail_worker):
    session_client(org, "alice")
    User.objects.filter(username="alice").update(email="alice@example.com")
    response = ask("ALICE@example.com")
    assert response.status_code == 200
    assert wait_for(lambda: len(mailoutbox) == 1, 30)
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


@pytest.mark.django_db(transaction=True)
def test_an_unknown_email_gets_the_same_answer_and_no_mail(org, mailoutbox, mail_worker):
    session_client(org, "alice")
    User.objects.filter(username="alice").update(email="alice@example.com")
    known, unknown = ask("alice@example.com"), ask("nobody@example.com")
    assert (unknown.status_code, unknown.json()) == (known.status_code, known.json())
    assert wait_for(lambda: len(mailoutbox) == 1, 30)
    ask("ALICE@EXAMPLE.COM ")  # the worker is in order: once this one's mail is out, the unknown's was handled
    assert wait_for(lambda: len(mailoutbox) == 2, 30)
    assert [m.to for m in mailoutbox] == [["alice@example.com"]] * 2


@pytest.mark.django_db
def test_asking_does_not_look_the_address_up(org):
    """What the request does is the same for an address with an account and one without."""
    session_client(org, "alice")
    User.objects.filter(username="alice").update(email="alice@example.com")
    for email in ("alice@example.com", "nobody@example.com"):
        with CaptureQueriesContext(connection) as queries:
            assert ask(email).status_code == 200
        assert not [q for q in queries.captured_queries if "auth_user" in q["sql"]], email


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
