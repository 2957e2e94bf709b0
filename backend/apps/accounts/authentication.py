from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from apps.core.tokens import digest

from .models import ApiToken


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` for CI and scripts. The org comes from the token."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith(self.keyword + " "):
            return None
        secret = header[len(self.keyword) + 1 :].strip()
        token = (
            ApiToken.objects.select_related("organization", "created_by")
            .filter(token_hash=digest(secret), revoked_at__isnull=True)
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        now = timezone.now()
        if token.expires_at is not None and token.expires_at <= now:
            raise exceptions.AuthenticationFailed(
                f"API token expired at {token.expires_at.isoformat().replace('+00:00', 'Z')}; create a new one.")
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return (token.created_by or AnonymousUser(), token)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
