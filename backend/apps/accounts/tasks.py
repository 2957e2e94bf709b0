"""Thin Celery tasks: ids in, a service call, nothing else (docs/architecture.md, "Inside an app")."""

from celery import shared_task

from .member_services import password_reset_mail_send


@shared_task(name="accounts.send_password_reset_mail", acks_late=True, ignore_result=True)
def send_password_reset_mail(email: str, base_url: str) -> None:
    # Idempotent enough: a redelivered task sends a second link, and either link works once.
    password_reset_mail_send(email=email, base_url=base_url)
