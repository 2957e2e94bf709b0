"""Reads of the audit log, always scoped by organization."""

from django.contrib.auth.models import User
from django.db.models import QuerySet

from apps.accounts.models import Organization

from .models import AuditEvent


def audit_events_for(*, organization: Organization) -> QuerySet[AuditEvent]:
    """Newest first (the list's filters: api/filters.py)."""
    return AuditEvent.objects.filter(organization=organization).order_by("-created_at", "-id")


def username_of(user_id: int) -> str:
    return User.objects.filter(pk=user_id).values_list("username", flat=True).first() or ""
