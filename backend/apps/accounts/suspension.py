"""An operator suspends an organization (the Django admin's action): from then on its API
calls answer 403 (IsOrganizationMember, permissions.suspended_message) and its runs are not leased
(apps.scheduler.leasing), until it is reinstated. Nothing is deleted. The database takes its
queued runs out of the lease queue when suspended_at is set, and puts them back in their place
when it is cleared (a trigger, apps/comparisons/migrations/0009_run_queue_eligibility)."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from apps.core.operator_reason import operator_reason

from .models import Organization


@transaction.atomic
def organization_suspend(*, organization: Organization, reason: str, suspended_by: User) -> Organization:
    reason = operator_reason(reason)
    org = Organization.objects.select_for_update().get(pk=organization.pk)
    if org.suspended_at is None:  # suspending twice keeps the first time
        org.suspended_at = timezone.now()
    org.suspended_reason = f"{reason} (by {suspended_by.get_username()})"  # 300 + a username: fits 500
    org.save(update_fields=["suspended_at", "suspended_reason", "updated_at"])
    return org


@transaction.atomic
def organization_reinstate(*, organization: Organization) -> Organization:
    org = Organization.objects.select_for_update().get(pk=organization.pk)
    org.suspended_at, org.suspended_reason = None, ""
    org.save(update_fields=["suspended_at", "suspended_reason", "updated_at"])
    return org
