"""Liveness and readiness for orchestrators (Kubernetes probes, Compose healthchecks, load
balancers). Plain Django views: no authentication, session, throttling or database work on
the liveness path, so a slow database never makes the process look dead and get restarted.

- live: the process answers HTTP. Restarting it would not fix anything else.
- ready: it can serve: PostgreSQL answers, the Celery broker (Redis) answers, and every
  migration this code expects is applied (during a rolling upgrade, new web pods stay out of
  the load balancer until the migration job has run). Each failed check is named in the body.
"""

import time
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.http.response import HttpResponseBase
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

CHECK_TIMEOUT_S = 2.0


class HealthProbeMiddleware:
    """First in MIDDLEWARE: answers /healthz and /readyz before the site's own rules. A
    kubelet probes the pod's IP over plain HTTP, which ALLOWED_HOSTS (CommonMiddleware) and
    the production HTTPS redirect (SecurityMiddleware) would both refuse; the probes are
    about the process, not the site, and return nothing a client could misuse."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.probes = {"/healthz": live, "/readyz": ready}

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        probe = self.probes.get(request.path_info)
        return probe(request) if probe is not None else self.get_response(request)


@never_cache
@require_GET
def live(request: HttpRequest) -> HttpResponseBase:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def ready(request: HttpRequest) -> HttpResponseBase:
    checks: dict[str, Callable[[], None]] = {"database": _database, "migrations": _migrations, "broker": _broker}
    results: dict[str, dict[str, object]] = {}
    for name, check in checks.items():
        started = time.perf_counter()
        try:
            check()
        except Exception as exc:  # noqa: BLE001 — any failure means not ready; the body says which and why
            results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        else:
            results[name] = {"ok": True}
        results[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
    ok = all(result["ok"] for result in results.values())
    return JsonResponse({"status": "ok" if ok else "unavailable", "checks": results}, status=200 if ok else 503)


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise DatabaseError("SELECT 1 did not return 1")


# Once every migration is applied it stays applied for this process's code: checked until then only.
_migrations_applied = False


def _migrations() -> None:
    global _migrations_applied  # noqa: PLW0603 — a per-process latch, see above
    if _migrations_applied:
        return
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in pending[:5])
        raise RuntimeError(f"{len(pending)} migration(s) not applied yet: {names}")
    _migrations_applied = True


def _broker() -> None:
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=CHECK_TIMEOUT_S,
                                  socket_connect_timeout=CHECK_TIMEOUT_S)
    try:
        client.ping()
    finally:
        client.close()
