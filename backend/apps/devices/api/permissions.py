from typing import Any

from rest_framework.request import Request

from apps.accounts.models import ApiToken, Membership, Organization
from apps.accounts.permissions import IsOrganizationMember, organization_of

from ..selectors import MANAGER_ROLES


def role_in(*, organization: Organization, request: Request) -> str | None:
    """The acting user's role in the organization. An API token acts with its creator's
    role (a token cannot do more than the person who made it); one minted by an operator
    (no creator) is an organization credential and counts as an admin's."""
    user = request.user
    if isinstance(request.auth, ApiToken) and request.auth.created_by_id is None:
        return Membership.Role.ADMIN
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(organization=organization, user=user).values_list("role", flat=True).first()


def can_manage_pools(request: Request) -> bool:
    """Enroll runners, release devices from quarantine: owners and admins; API tokens also
    need the `write` scope."""
    if isinstance(request.auth, ApiToken) and ApiToken.Scope.WRITE not in request.auth.scopes:
        return False
    return role_in(organization=organization_of(request), request=request) in MANAGER_ROLES


class IsPoolManager(IsOrganizationMember):
    message = "Only an owner or admin of the organization may do this (API tokens need the write scope)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return super().has_permission(request, view) and can_manage_pools(request)
