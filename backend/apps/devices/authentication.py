from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from apps.core.tokens import digest

from .models import Runner


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
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, Runner)

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        return True


def runner_of(request: Request) -> Runner:
    """The runner a request authenticated as (views guarded by IsRunner)."""
    runner = request.auth
    if not isinstance(runner, Runner):
        raise RuntimeError("runner_of() needs RunnerTokenAuthentication and IsRunner on the view")
    return runner
