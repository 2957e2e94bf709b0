"""Did the Celery broker (Redis) lose what it held since a reconciler last looked?

Redis without persistence comes back from a restart empty: every queued task, and every
task a worker had taken but not yet acknowledged (acks_late), is gone, and nothing says so.
Each reconciler keeps a marker key in the broker; a missing marker means the broker's data
is gone (or this is its first look), and the reconciler then treats all unfinished work as
stranded at once instead of waiting for it to look old. Redoing work is always safe: every
step it redoes is idempotent. The marker is written only after the reconciler has done its
work, so a reconciliation that fails (PostgreSQL away too) is done again on its next run."""

from collections.abc import Iterator
from contextlib import contextmanager

import redis
from django.conf import settings
from django.utils import timezone

MARKER = "latencylab:broker-kept:{consumer}"


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=5)


@contextmanager
def broker_loss_check(consumer: str) -> Iterator[bool]:
    """Yields True when the broker lost its data since `consumer` last got here; marks it
    as seen when the block completes without an error."""
    client = _client()
    key = MARKER.format(consumer=consumer)
    try:
        yield not client.exists(key)
        client.set(key, timezone.now().isoformat())
    finally:
        client.close()
