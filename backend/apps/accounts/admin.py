"""Operators' view of organizations (staff only): members and API tokens read-only, never a
token's hash or a secret's value; suspend and reinstate through apps.accounts.suspension."""

from django.contrib import admin
from django.http import HttpRequest

from apps.core.admin_tools import ReadOnlyAdmin, ReadOnlyInline, operator_of, reason_action, service_action

from .models import ApiToken, Membership, Organization
from .suspension import organization_reinstate, organization_suspend


class MembershipInline(ReadOnlyInline):
    model = Membership
    fields = readonly_fields = ("user", "role", "created_at")


class ApiTokenInline(ReadOnlyInline):
    model = ApiToken
    fields = readonly_fields = ("name", "prefix", "scopes", "created_by", "last_used_at", "expires_at", "revoked_at")
    show_change_link = False


def _suspend(request: HttpRequest, org: Organization, reason: str) -> str:
    organization_suspend(organization=org, reason=reason, suspended_by=operator_of(request))
    return f"Suspended: {reason}"


def _reinstate(request: HttpRequest, org: Organization) -> str:
    organization_reinstate(organization=org)
    return "Reinstated"


@admin.register(Organization)
class OrganizationAdmin(ReadOnlyAdmin):
    list_display = ["slug", "name", "created_at", "suspended_at"]
    list_filter = [("suspended_at", admin.EmptyFieldListFilter), "created_at"]
    search_fields = ["slug", "name", "memberships__user__username", "memberships__user__email"]
    inlines = [MembershipInline, ApiTokenInline]
    actions = [
        reason_action(name="suspend", description="Suspend the selected organizations",
                      help_text="Their API calls will answer 403 and their comparisons will not run until they are "
                                "reinstated. Nothing is deleted.",
                      perform=_suspend),
        service_action(name="reinstate", description="Reinstate the selected organizations", perform=_reinstate),
    ]
