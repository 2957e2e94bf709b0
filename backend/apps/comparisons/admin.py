"""Operators' view of comparisons and runs (staff only), read-only but for cancelling a
comparison through apps.comparisons.services. Runs never show their lease token."""

from django.contrib import admin
from django.http import HttpRequest

from apps.core.admin_tools import ReadOnlyAdmin, ReadOnlyInline, service_action

from .models import Comparison, Run
from .services import comparison_cancel

RUN_FIELDS = ("slot", "network_profile", "pool", "device", "status", "attempt", "next_block", "blocks_total",
              "error_kind", "started_at", "finished_at")


class RunInline(ReadOnlyInline):
    model = Run
    fields = RUN_FIELDS
    readonly_fields = RUN_FIELDS
    ordering = ["slot", "network_profile"]


def _cancel(request: HttpRequest, comparison: Comparison) -> str:
    comparison = comparison_cancel(comparison=comparison)
    return f"Cancelled (now {comparison.status})"


@admin.register(Comparison)
class ComparisonAdmin(ReadOnlyAdmin):
    list_display = ["name", "organization", "status", "created_by", "created_at", "finished_at"]
    list_filter = ["status", "created_at"]
    search_fields = ["name", "organization__slug", "created_by__username"]
    list_select_related = ["organization", "created_by"]
    date_hierarchy = "created_at"
    inlines = [RunInline]
    actions = [service_action(name="cancel_comparison", description="Cancel the selected comparisons",
                              perform=_cancel)]


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = ["comparison", "slot", "network_profile", "device", "status", "attempt", "error_kind",
                    "started_at", "finished_at"]
    list_filter = ["status", "error_kind", "pool__kind"]
    search_fields = ["comparison__name", "comparison__organization__slug", "device__serial"]
    list_select_related = ["comparison", "device"]
    exclude = ["lease_token"]
