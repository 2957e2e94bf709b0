from typing import Any

from rest_framework.request import Request

from apps.accounts.models import ApiToken
from apps.accounts.permissions import IsOrganizationMember, organization_of, role_in

from ..selectors import MANAGER_ROLES


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
