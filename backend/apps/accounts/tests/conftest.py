import pytest

from apps.accounts import events
from apps.core import events as core_events

ACCOUNTS_EVENTS = (events.MEMBER_INVITED, events.MEMBER_REMOVED, events.MEMBER_ROLE_CHANGED,
                   events.API_TOKEN_CREATED, events.API_TOKEN_REVOKED)


@pytest.fixture
def published():
    """The apps.accounts events published during the test, as (name, payload), in order."""
    seen: list[tuple[str, dict]] = []

    def recorder(name: str):
        return lambda **payload: seen.append((name, payload))

    handlers = {name: recorder(name) for name in ACCOUNTS_EVENTS}
    for name, handler in handlers.items():
        core_events.subscribe(name, handler)
    yield seen
    for name, handler in handlers.items():
        core_events._handlers[name].remove(handler)  # noqa: SLF001  (core.events has no unsubscribe)
