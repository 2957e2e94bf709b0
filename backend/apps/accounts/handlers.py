"""Reactions of the accounts app to its own events (subscribed in apps.AccountsConfig.ready):
the tasks sit above the services, so the services announce and this module schedules."""

from functools import partial

from django.db import transaction

from apps.core.events import subscribe

from .events import PASSWORD_RESET_REQUESTED
from .tasks import send_password_reset_mail


def mail_password_reset_after_commit(*, email: str, base_url: str) -> None:
    transaction.on_commit(partial(send_password_reset_mail.delay, email, base_url))


def register() -> None:
    subscribe(PASSWORD_RESET_REQUESTED, mail_password_reset_after_commit)
