"""The audit log listens to the lower apps' domain events (subscribed in apps.AuditConfig.ready)
and records each as an AuditEvent, inside the publisher's transaction: the record exists
exactly when the change it describes was committed."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apps.comparisons.events import COMPARISON_CANCELLED
from apps.core.events import subscribe
from apps.devices.events import DEVICE_QUARANTINE_RELEASED, RUNNER_BREAKER_RESET
from apps.reports.events import SHARE_LINK_CREATED, SHARE_LINK_REVOKED
from apps.webhooks.events import WEBHOOK_CREATED, WEBHOOK_DELETED, WEBHOOK_UPDATED

from .models import AuditEvent
from .selectors import username_of
from .services import audit_event_record

Action = AuditEvent.Action

# apps.accounts publishes these (apps/accounts/events.py); subscribed by name so the audit
# log does not depend on when that module appears.
MEMBER_INVITED = "accounts.member_invited"
MEMBER_REMOVED = "accounts.member_removed"
MEMBER_ROLE_CHANGED = "accounts.member_role_changed"
API_TOKEN_CREATED = "accounts.api_token_created"  # noqa: S105  (event names, not secrets)
API_TOKEN_REVOKED = "accounts.api_token_revoked"  # noqa: S105


@dataclass(frozen=True)
class Target:
    """How one event's payload names its target: the first present key of each list wins;
    every other payload field goes to the record's details."""

    action: str
    type: str
    id_keys: tuple[str, ...]
    label_keys: tuple[str, ...]


_MEMBER_IDS = ("membership_id", "invitation_id", "user_id")
_MEMBER_LABELS = ("email", "username")

TARGETS: dict[str, Target] = {
    MEMBER_INVITED: Target(Action.MEMBER_INVITED, "invitation", ("invitation_id", *_MEMBER_IDS), _MEMBER_LABELS),
    MEMBER_REMOVED: Target(Action.MEMBER_REMOVED, "member", _MEMBER_IDS, _MEMBER_LABELS),
    MEMBER_ROLE_CHANGED: Target(Action.MEMBER_ROLE_CHANGED, "member", _MEMBER_IDS, _MEMBER_LABELS),
    API_TOKEN_CREATED: Target(Action.API_TOKEN_CREATED, "api_token", ("token_id",), ("token_name",)),
    API_TOKEN_REVOKED: Target(Action.API_TOKEN_REVOKED, "api_token", ("token_id",), ("token_name",)),
    SHARE_LINK_CREATED: Target(Action.SHARE_LINK_CREATED, "share_link", ("share_link_id",), ("comparison_name",)),
    SHARE_LINK_REVOKED: Target(Action.SHARE_LINK_REVOKED, "share_link", ("share_link_id",), ("comparison_name",)),
    COMPARISON_CANCELLED: Target(Action.COMPARISON_CANCELLED, "comparison", ("comparison_id",),
                                 ("comparison_name",)),
    DEVICE_QUARANTINE_RELEASED: Target(Action.DEVICE_QUARANTINE_RELEASED, "device", ("device_id",),
                                       ("device_label",)),
    RUNNER_BREAKER_RESET: Target(Action.RUNNER_BREAKER_RESET, "runner", ("runner_id",), ("runner_name",)),
    WEBHOOK_CREATED: Target(Action.WEBHOOK_CREATED, "webhook", ("webhook_id",), ("url",)),
    WEBHOOK_UPDATED: Target(Action.WEBHOOK_UPDATED, "webhook", ("webhook_id",), ("url",)),
    WEBHOOK_DELETED: Target(Action.WEBHOOK_DELETED, "webhook", ("webhook_id",), ("url",)),
}


def _first(payload: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, str]:
    for key in keys:
        if payload.get(key) not in (None, ""):
            return key, str(payload[key])
    return None, ""


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)


def recorder(event: str) -> Callable[..., None]:
    target = TARGETS[event]

    def record(*, organization_id: Any, actor_id: int | None = None, actor_token_id: str | None = None,
               **payload: Any) -> None:
        if organization_id is None:
            return  # a hosted pool's device: LatencyLab's operators act there, no organization to tell
        id_key, target_id = _first(payload, target.id_keys)
        label_key, target_label = _first(payload, target.label_keys)
        if not target_label and payload.get("user_id") is not None:
            target_label = username_of(payload["user_id"])  # a member removed or re-roled: name them
        details = {k: v for k, v in payload.items() if k not in (id_key, label_key)}
        audit_event_record(organization_id=organization_id, action=target.action, actor_id=actor_id,
                           actor_token_id=actor_token_id, target_type=target.type, target_id=target_id,
                           target_label=target_label, details=_json_safe(details))

    record.__name__ = f"record_{event.replace('.', '_')}"
    return record


_RECORDERS = {event: recorder(event) for event in TARGETS}


def register() -> None:
    for event, handler in _RECORDERS.items():
        subscribe(event, handler)
