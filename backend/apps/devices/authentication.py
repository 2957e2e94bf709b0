import functools
from typing import Any

from django.db import connection
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from apps.accounts.models import Organization
from apps.core.tokens import digest

from .models import DevicePool, EnrollmentToken, Runner


class RunnerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Runner <token>`: runner agents only ever reach the runner protocol."""

    keyword = "Runner"

    def authenticate(self, request: Request) -> tuple[Any, Runner] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith(self.keyword + " "):
            raise exceptions.NotAuthenticated("Authorization: Runner <token> is required.")
        runner = runner_by_token_hash(digest(header[len(self.keyword) + 1 :].strip()))
        if runner is None:
            raise exceptions.AuthenticationFailed("Unknown runner token.")
        return (None, runner)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


_MODELS = (Runner, DevicePool, Organization)


@functools.cache
def _runner_query() -> tuple[str, list[tuple[list[str], list[tuple[int, list[Any], Any]]]]]:
    """The SQL of runner_by_token_hash and, per model, its fields' attnames and the converters
    (the ORM's from_db_value: a JSONField's value arrives as text) of the columns that have any."""
    quote = connection.ops.quote_name
    columns, models = [], []
    for alias, model in zip("rpo", _MODELS, strict=True):
        names, converters = [], []
        for index, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(alias)
            if found := connection.ops.get_db_converters(column) + column.get_db_converters(connection):
                converters.append((index, found, column))
            attname, db_column = field.get_attname_column()
            names.append(attname)
            columns.append(f"{alias}.{quote(str(db_column))}")
        models.append((names, converters))
    # Quoted names of the models' own columns and tables only; the token hash is a parameter.
    sql = (f"SELECT {', '.join(columns)} FROM {quote(Runner._meta.db_table)} AS r "  # noqa: S608
           f"JOIN {quote(DevicePool._meta.db_table)} AS p ON p.id = r.pool_id "
           f"LEFT JOIN {quote(Organization._meta.db_table)} AS o ON o.id = p.organization_id "
           "WHERE r.token_hash = %s")
    return sql, models


def runner_by_token_hash(token_hash: str) -> Runner | None:
    """The runner with that token hash, with its pool and the pool's organization (None for a
    hosted pool) loaded: Runner.objects.select_related("pool", "pool__organization"), in SQL
    written once per process. Every runner call authenticates, and the ORM's compiling of that
    query cost more than running it (~1 ms of a ~1.5 ms call)."""
    sql, models = _runner_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [token_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    instances: list[Any] = []
    start = 0
    for model, (names, converters) in zip(_MODELS, models, strict=True):
        values = list(row[start:start + len(names)])
        start += len(names)
        if values[0] is None:  # a hosted pool's organization
            instances.append(None)
            continue
        for index, functions, column in converters:
            for function in functions:
                values[index] = function(values[index], column, connection)
        instances.append(model.from_db(connection.alias, names, values))
    runner, pool, organization = instances
    Runner.pool.field.set_cached_value(runner, pool)
    DevicePool.organization.field.set_cached_value(pool, organization)
    return runner


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
