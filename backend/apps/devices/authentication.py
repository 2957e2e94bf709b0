from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from apps.core.tokens import digest

from .models import EnrollmentToken, Runner


class RunnerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Runner <token>`: runner agents only ever reach the runner protocol."""

    keyword = "Runner"

    def authenticate(self, request: Request) -> tuple[Any, Runner] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith(self.keyword + " "):
            raise exceptions.NotAuthenticated("Authorization: Runner <token> is required.")
        runner = (
            Runner.objects.select_related("pool", "pool__organization")
            .filter(token_hash=digest(header[len(self.keyword) + 1 :].strip()))
            .first()
        )
        if runner is None:
            raise exceptions.AuthenticationFailed("Unknown runner token.")
        return (None, runner)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class IsRunner(BasePermission):
    message = ("This runner is disabled by an operator: its calls are refused and its devices get no work. Ask the "
               "LatencyLab operators to enable it.")

    def has_permission(self, request: Request, view: Any) -> bool:
        # A disabled runner is known (its token is valid) but refused: 403 with the message.
        return isinstance(request.auth, Runner) and request.auth.disabled_at is None

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        return True


def runner_of(request: Request) -> Runner:
    """The runner a request authenticated as (views guarded by IsRunner)."""
    runner = request.auth
    if not isinstance(runner, Runner):
        raise RuntimeError("runner_of() needs RunnerTokenAuthentication and IsRunner on the view")
    return runner


class EnrollmentTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Enroll <token>`: a lab host enrolling a runner into the token's pool.
    Unknown, expired and revoked tokens all answer 401 with the same words."""

    keyword = "Enroll"

    def authenticate(self, request: Request) -> tuple[Any, EnrollmentToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith(self.keyword + " "):
            raise exceptions.NotAuthenticated("Authorization: Enroll <enrollment token> is required.")
        token = (
            EnrollmentToken.objects.select_related("pool")
            .filter(token_hash=digest(header[len(self.keyword) + 1 :].strip()), revoked_at__isnull=True,
                    expires_at__gt=timezone.now())
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown, expired or revoked enrollment token.")
        return (None, token)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class HasEnrollmentToken(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, EnrollmentToken)


def enrollment_token_of(request: Request) -> EnrollmentToken:
    token = request.auth
    if not isinstance(token, EnrollmentToken):
        raise RuntimeError("enrollment_token_of() needs EnrollmentTokenAuthentication and HasEnrollmentToken")
    return token
