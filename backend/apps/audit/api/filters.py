"""The audit log's filters (apps.core.filtering)."""

from typing import Any

from django import forms
from django_filters import rest_framework as filters

from apps.core.filtering import IntegerFilter, StrictFilterSet, UtcDateTimeFilter

from ..models import AuditEvent


class AuditEventFilterForm(forms.Form):
    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        since, until = cleaned.get("since"), cleaned.get("until")
        if since is not None and until is not None and until <= since:
            self.add_error("until", "Must be later than since.")
        return cleaned


class AuditEventFilterSet(StrictFilterSet):
    action = filters.ChoiceFilter(choices=AuditEvent.Action.choices)
    since = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte",
                              help_text="from this time on (inclusive), ISO 8601")
    until = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt",
                              help_text="before this time (exclusive), ISO 8601")
    actor = IntegerFilter(field_name="actor_user_id", min_value=1, help_text="a user's id (actor.id)")

    class Meta:
        model = AuditEvent
        fields: list[str] = []
        form = AuditEventFilterForm
