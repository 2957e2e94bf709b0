from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from .models import ApiToken, Membership, Organization
from .selectors import organization_for_request

# The request attribute IsOrganizationMember stores the acting organization under; read it with organization_of().
ORGANIZATION_ATTR = "organization"
# Where role_in() keeps the role it looked up, so a request asks the database once.
_ROLE_ATTR = "_organization_role"

SIGN_IN_MESSAGE = "Authentication with a member of an organization, or an API token, is required."
VIEWER_MESSAGE = ("Viewers have read-only access to this organization; an owner or admin can make you a member "
                  "to run comparisons.")
NO_ROLE_MESSAGE = "This API token's creator is no longer a member of the organization; the token acts for no one."
SCOPE_MESSAGE = "This API token's scopes do not allow this; writes need the write or ci scope."


def suspended_message(organization: Organization) -> str:
    """What a suspended organization's callers read (apps.accounts.suspension; never the
    operator's own note of why)."""
    return (f"The organization {organization.slug} is suspended: its API calls are refused and its comparisons "
            "do not run. Contact the LatencyLab operators.")


class IsOrganizationMember(BasePermission):
    """Every API call acts for one organization with a role: everyone reads, viewers only
    read; tokens also need a scope for the verb. The default permission of the API."""

    message = SIGN_IN_MESSAGE

    def has_permission(self, request: Request, view: Any) -> bool:
        org = organization_for_request(request)
        if org is None:
            return False
        setattr(request, ORGANIZATION_ATTR, org)
        if org.suspended_at is not None:
            self.message = suspended_message(org)
            return False
        role = role_in(organization=org, request=request)
        if role is None:
            self.message = NO_ROLE_MESSAGE
            return False
        if isinstance(request.auth, ApiToken):
            needed = {"read", "write", "ci"} if request.method in SAFE_METHODS else {"write", "ci"}
            if not needed & set(request.auth.scopes):
                self.message = SCOPE_MESSAGE
                return False
        if request.method not in SAFE_METHODS and role == Membership.Role.VIEWER:
            self.message = VIEWER_MESSAGE
            return False
        return True


def organization_of(request: Request) -> Organization:
    """The organization a request acts for, as IsOrganizationMember (the default permission) resolved it."""
    org = getattr(request, ORGANIZATION_ATTR, None)
    if not isinstance(org, Organization):
        raise RuntimeError("organization_of() needs the IsOrganizationMember permission on the view")
    return org


# Who may write an organization's secrets (and, in apps.devices, manage its pools).
ADMIN_ROLES = (Membership.Role.OWNER, Membership.Role.ADMIN)


def role_in(*, organization: Organization, request: Request) -> str | None:
    """The acting user's role in the organization. An API token acts with its creator's
    role (a token cannot do more than the person who made it); one minted by an operator
    (no creator) is an organization credential and counts as an admin's."""
    cached = getattr(request, _ROLE_ATTR, None)
    if cached is not None and cached[0] == organization.pk:
        return cached[1]
    user = request.user
    if isinstance(request.auth, ApiToken) and request.auth.created_by_id is None:
        role: str | None = Membership.Role.ADMIN
    elif not user.is_authenticated:
        role = None
    else:
        role = Membership.objects.filter(organization=organization, user=user).values_list("role", flat=True).first()
    setattr(request, _ROLE_ATTR, (organization.pk, role))
    return role


def is_organization_admin(request: Request) -> bool:
    """Owners and admins; an API token also needs the `write` scope."""
    if isinstance(request.auth, ApiToken) and ApiToken.Scope.WRITE not in request.auth.scopes:
        return False
    return role_in(organization=organization_of(request), request=request) in ADMIN_ROLES


class IsOrganizationAdmin(IsOrganizationMember):
    """Owners and admins only, for reads too (enrolling runners, releasing devices)."""

    message = "Only an owner or admin of the organization may do this (API tokens need the write scope)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return super().has_permission(request, view) and is_organization_admin(request)


class IsOrganizationAdminForWrites(IsOrganizationMember):
    """Members read; owners and admins write."""

    message = "Only an owner or admin of the organization may do this (API tokens need the write scope)."

    def has_permission(self, request: Request, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        return request.method in SAFE_METHODS or is_organization_admin(request)


class IsOrganizationAdminSignedIn(IsOrganizationAdmin):
    """Owners and admins in a signed-in session; never an API token (managing API tokens:
    a leaked token must not mint wider or longer-lived ones)."""

    message = "Only an owner or admin of the organization, signed in, may do this; API tokens cannot."

    def has_permission(self, request: Request, view: Any) -> bool:
        return not isinstance(request.auth, ApiToken) and super().has_permission(request, view)


class IsOrganizationOwnerSignedIn(IsOrganizationMember):
    """Owners in a signed-in session (changing roles, removing members)."""

    message = "Only an owner of the organization, signed in, may do this; API tokens cannot."

    def has_permission(self, request: Request, view: Any) -> bool:
        if isinstance(request.auth, ApiToken) or not super().has_permission(request, view):
            return False
        return role_in(organization=organization_of(request), request=request) == Membership.Role.OWNER


class IsSignedInMember(IsOrganizationMember):
    """Any member, viewers included, in a signed-in session: what one does for oneself
    (leaving an organization)."""

    message = "Sign in to do this; API tokens cannot."

    def has_permission(self, request: Request, view: Any) -> bool:
        if isinstance(request.auth, ApiToken):
            return False
        org = organization_for_request(request)
        if org is None:
            return False
        setattr(request, ORGANIZATION_ATTR, org)
        return role_in(organization=org, request=request) is not None
