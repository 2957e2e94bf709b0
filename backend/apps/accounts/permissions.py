from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from .models import ApiToken
from .selectors import organization_for_request


class IsOrganizationMember(BasePermission):
    """Every API call acts for one organization; tokens also need a scope for the verb."""

    message = "Authentication with a member of an organization, or an API token, is required."

    def has_permission(self, request: Request, view: Any) -> bool:
        org = organization_for_request(request)
        if org is None:
            return False
        request.organization = org  # type: ignore[attr-defined]
        if isinstance(request.auth, ApiToken):
            needed = {"read", "write", "ci"} if request.method in SAFE_METHODS else {"write", "ci"}
            return bool(needed & set(request.auth.scopes))
        return True
