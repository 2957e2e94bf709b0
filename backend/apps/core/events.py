"""Domain events: how a lower app announces what happened so that a higher app can react
without the lower one importing it (the apps depend one way: core ← accounts ← devices,
network ← comparisons ← results ← webhooks, runner_protocol).

The publishing app names its events (e.g. apps.comparisons.events); the listening app
subscribes in its AppConfig.ready(). Handlers run synchronously inside the publisher's
transaction, so one that starts asynchronous work defers it with transaction.on_commit.
"""

from collections import defaultdict
from collections.abc import Callable
from typing import Any

Handler = Callable[..., None]

_handlers: dict[str, list[Handler]] = defaultdict(list)


def subscribe(event: str, handler: Handler) -> None:
    """Idempotent: a handler subscribed twice (ready() run again in tests) runs once."""
    if handler not in _handlers[event]:
        _handlers[event].append(handler)


def publish(event: str, **payload: Any) -> None:
    for handler in list(_handlers[event]):
        handler(**payload)


def subscribers(event: str) -> list[Handler]:
    return list(_handlers[event])
