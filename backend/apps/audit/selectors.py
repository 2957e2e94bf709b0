"""Reads of the audit log, always scoped by organization."""

import datetime as dt

from django.contrib.auth.models import User
from django.db.models import QuerySet

from apps.accounts.models import Organization

from .models import AuditEvent


def audit_events_for(*, organization: Organization, action: str | None = None, since: dt.datetime | None = None,
                     until: dt.datetime | None = None, actor_id: int | None = None) -> QuerySet[AuditEvent]:
    """Newest first; `since` inclusive, `until` exclusive; `actor_id`: a user's id."""
    events = AuditEvent.objects.filter(organization=organization)
    if action:
        events = events.filter(action=action)
    if since is not None:
        events = events.filter(created_at__gte=since)
    if until is not None:
        events = events.filter(created_at__lt=until)
    if actor_id is not None:
        events = events.filter(actor_user_id=actor_id)
    return events.order_by("-created_at", "-id")


def username_of(user_id: int) -> str:
    return User.objects.filter(pk=user_id).values_list("username", flat=True).first() or ""
