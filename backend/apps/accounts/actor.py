"""Who did something, for the audit log: services that change what an organization's owners
want to trace take an `actor` and pass it on with the domain event they publish."""

from dataclasses import dataclass
from typing import Any

from rest_framework.request import Request

from .models import ApiToken


@dataclass(frozen=True)
class Actor:
    """A signed-in user, or an API token (with the user who made it, if any)."""

    user_id: int | None = None
    token_id: str | None = None

    def event_fields(self) -> dict[str, Any]:
        """The keyword payload every audited event carries about its actor."""
        return {"actor_id": self.user_id, "actor_token_id": self.token_id}


# Work no person or token asked for (a management command, a task).
NO_ACTOR = Actor()


def actor_of(request: Request) -> Actor:
    token = request.auth if isinstance(request.auth, ApiToken) else None
    user_id = request.user.pk if request.user.is_authenticated else None
    return Actor(user_id=user_id, token_id=str(token.pk) if token else None)
