"""Operators' view of comparisons and runs (staff only), read-only but for cancelling a
comparison through apps.comparisons.services (runs never show their lease token), and the
organizations' monthly usage quotas with this month's usage."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.core.admin_tools import ReadOnlyAdmin, ReadOnlyInline, service_action

from .models import Comparison, Run, UsageQuota
from .quota import usage_quota_set
from .services import comparison_cancel
from .usage import device_minutes_this_month

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


@admin.register(UsageQuota)
class UsageQuotaAdmin(admin.ModelAdmin):
    """The one value operators type in: an organization's monthly device-minutes, written
    through apps.comparisons.quota.usage_quota_set (deleting the row removes the limit)."""

    list_display = ["organization", "monthly_device_minutes", "used_this_month"]
    search_fields = ["organization__slug", "organization__name"]
    list_select_related = ["organization"]
    autocomplete_fields = ["organization"]
    fields = ["organization", "monthly_device_minutes", "used_this_month"]

    def get_readonly_fields(self, request: HttpRequest, obj: UsageQuota | None = None) -> list[str]:
        return ["used_this_month"] if obj is None else ["organization", "used_this_month"]

    @admin.display(description="device-minutes used this month (UTC)")
    def used_this_month(self, obj: UsageQuota) -> str:
        if obj.organization_id is None:
            return "–"
        return f"{device_minutes_this_month(organization=obj.organization):,.0f}"

    def save_model(self, request: HttpRequest, obj: UsageQuota, form: Any, change: bool) -> None:
        quota = usage_quota_set(organization=obj.organization, monthly_device_minutes=obj.monthly_device_minutes)
        if quota is not None:
            obj.pk = quota.pk  # the row the service wrote (it may have existed already)

    def delete_model(self, request: HttpRequest, obj: UsageQuota) -> None:
        usage_quota_set(organization=obj.organization, monthly_device_minutes=None)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[UsageQuota]) -> None:
        for quota in queryset.select_related("organization"):
            self.delete_model(request, quota)
