"""The emails apps.accounts sends, through Django's email backend (console in development,
locmem in tests, SMTP in production), and the password reset link's signed parts."""

from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from .models import Invitation


def link_base(request_base_url: str) -> str:
    """The origin links point at: LATENCYLAB_PUBLIC_URL when set (never trust a Host
    header in an emailed link), else the request's own origin (development)."""
    return (settings.LATENCYLAB_PUBLIC_URL or request_base_url).rstrip("/")


def send_invitation(*, invitation_id: UUID, link: str) -> None:
    invitation = Invitation.objects.select_related("organization", "invited_by").get(pk=invitation_id)
    context = {"invitation": invitation, "link": link,
               "inviter": invitation.invited_by.get_username() if invitation.invited_by else "An administrator"}
    send_mail(subject=f"You are invited to {invitation.organization.name} on LatencyLab",
              message=render_to_string("accounts/email/invitation.txt", context),
              from_email=None, recipient_list=[invitation.email])


def send_password_reset(*, user: User, base_url: str) -> None:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    link = f"{base_url.rstrip('/')}/reset-password/{uid}/{default_token_generator.make_token(user)}"
    send_mail(subject="Reset your LatencyLab password",
              message=render_to_string("accounts/email/password_reset.txt", {"user": user, "link": link}),
              from_email=None, recipient_list=[user.email])


def user_of_reset_link(*, uid: str, token: str) -> User | None:
    """The user a reset link was made for, while its token holds (it stops holding once the
    password changes, or after PASSWORD_RESET_TIMEOUT)."""
    try:
        user = User.objects.get(pk=int(force_str(urlsafe_base64_decode(uid))))
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        return None
    return user if default_token_generator.check_token(user, token) else None
