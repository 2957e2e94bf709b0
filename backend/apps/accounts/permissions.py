from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from .models import ApiToken, Organization
from .selectors import organization_for_request

# The request attribute IsOrganizationMember stores the acting organization under; read it with organization_of().
ORGANIZATION_ATTR = "organization"


class IsOrganizationMember(BasePermission):
    """Every API call acts for one organization; tokens also need a scope for the verb."""

    message = "Authentication with a member of an organization, or an API token, is required."

    def has_permission(self, request: Request, view: Any) -> bool:
        org = organization_for_request(request)
        if org is None:
            return False
        setattr(request, ORGANIZATION_ATTR, org)
        if isinstance(request.auth, ApiToken):
            needed = {"read", "write", "ci"} if request.method in SAFE_METHODS else {"write", "ci"}
            return bool(needed & set(request.auth.scopes))
        return True


def organization_of(request: Request) -> Organization:
    """The organization a request acts for, as IsOrganizationMember (the default permission) resolved it."""
    org = getattr(request, ORGANIZATION_ATTR, None)
    if not isinstance(org, Organization):
        raise RuntimeError("organization_of() needs the IsOrganizationMember permission on the view")
    return org
