"""How a Celery task of ours retries a transient failure: which errors pass by themselves,
and the waits between tries. One place, so every task that retries does it the same way;
a task takes it as `@shared_task(..., **RETRY_TRANSIENT_DATABASE_ERRORS)`.

Celery's `max_retries` alone does nothing: a task is retried only when it calls
`self.retry()` or raises an error named in `autoretry_for`. Only idempotent tasks take
these settings (a retry runs the whole task again)."""

from typing import Any

from django.db import InterfaceError, OperationalError

# PostgreSQL going away and coming back — a restart, a failover, a connection dropped or
# terminated (OperationalError; InterfaceError for a connection already closed) — and what a
# busy database answers that a second try does not meet (a deadlock, a serialization
# failure: subclasses of psycopg's OperationalError, which Django raises as its own). Not
# retried: an error in the data or the code (IntegrityError, ProgrammingError, anything
# else), which would fail the same way every time.
TRANSIENT_DATABASE_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)

# Try k waits a random 0…5·2^k s (Celery's full jitter, so tasks that failed together do
# not retry in step): at most 5, 10, 20 and 40 s, 75 s in all, about as long as PostgreSQL
# takes to restart (the runner agent waits as long, docs/runners.md). What outlasts the
# retries is redone from PostgreSQL by the reconcilers (comparisons.reconcile,
# results.reconcile_analyses, webhooks.requeue_stranded), which find the work undone.
RETRY_TRANSIENT_DATABASE_ERRORS: dict[str, Any] = {
    "autoretry_for": TRANSIENT_DATABASE_ERRORS,
    "retry_backoff": 5,
    "retry_backoff_max": 40,
    "retry_jitter": True,
    "max_retries": 4,
}
