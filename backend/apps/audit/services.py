"""Writes for the audit log: one record per audited event (see handlers.py for which)."""

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from apps.accounts.models import ApiToken

from .models import AuditEvent

_LABEL_MAX = 300


def _actor_label(user: User | None, token: ApiToken | None) -> str:
    if token is not None:
        via = f"API token {token.name!r} ({token.prefix}…)"
        return f"{user.get_username()} via {via}" if user is not None else via
    return user.get_username() if user is not None else ""


@transaction.atomic
def audit_event_record(*, organization_id: Any, action: str, actor_id: int | None, actor_token_id: str | None,
                       target_type: str, target_id: str, target_label: str,
                       details: dict[str, Any]) -> AuditEvent:
    user = User.objects.filter(pk=actor_id).first() if actor_id is not None else None
    token = ApiToken.objects.filter(pk=actor_token_id).first() if actor_token_id else None
    return AuditEvent.objects.create(
        organization_id=organization_id, action=action, actor_user=user, actor_token=token,
        actor_label=_actor_label(user, token)[:200], target_type=target_type, target_id=target_id[:64],
        target_label=target_label[:_LABEL_MAX], details=details)
