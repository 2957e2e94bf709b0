import logging
from collections.abc import Iterable
from uuid import UUID

from django.db.models import Case, QuerySet, Value, When
from django.http import HttpRequest

from apps.core.tokens import digest

from .models import ApiToken, Invitation, Membership, Organization, Secret
from .secret_box import SecretsKeyError, open_sealed

log = logging.getLogger(__name__)


# The session key holding the organization a signed-in user chose to act for (the top bar's switcher).
SESSION_ORGANIZATION_KEY = "latencylab_organization_id"


def organization_for_request(request: HttpRequest) -> Organization | None:
    """The organization a request acts for: the token's; for a session, the organization the
    user chose (while still a member of it), else their first membership."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiToken):
        return auth.organization
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    memberships = Membership.objects.select_related("organization").filter(user=user)
    session = getattr(request, "session", None)
    chosen = session.get(SESSION_ORGANIZATION_KEY) if session is not None else None
    membership = memberships.filter(organization_id=chosen).first() if chosen else None
    membership = membership or memberships.order_by("created_at").first()
    return membership.organization if membership else None


def memberships_of_user(*, user_id: int) -> QuerySet[Membership]:
    """The organizations a user belongs to, with their role in each (for the switcher)."""
    return Membership.objects.filter(user_id=user_id).select_related("organization").order_by("organization__name")


def members_of(*, organization: Organization) -> QuerySet[Membership]:
    """An organization's members, owners first, then by username."""
    order = Case(*(When(role=role, then=Value(i)) for i, role in enumerate(Membership.Role.values)))
    return (Membership.objects.filter(organization=organization).select_related("user")
            .order_by(order, "user__username"))


def invitations_pending_of(*, organization: Organization) -> QuerySet[Invitation]:
    """Invitations not yet accepted or revoked (expired ones too: they can be resent), newest first."""
    return (Invitation.objects.filter(organization=organization, accepted_at__isnull=True, revoked_at__isnull=True)
            .select_related("invited_by").order_by("-created_at"))


def invitation_by_secret(*, secret: str) -> Invitation | None:
    return Invitation.objects.select_related("organization", "invited_by").filter(token_hash=digest(secret)).first()


def api_tokens_of(*, organization: Organization) -> QuerySet[ApiToken]:
    """An organization's API tokens, newest first (another organization's id is simply not in it)."""
    return ApiToken.objects.filter(organization=organization).select_related("created_by").order_by("-created_at")


def secrets_of(*, organization: Organization) -> QuerySet[Secret]:
    """An organization's secrets by name, without their sealed values (listing never decrypts)."""
    return (Secret.objects.filter(organization=organization).defer("sealed_value")
            .select_related("created_by", "updated_by").order_by("name"))


def secret_names_of(*, organization_id: UUID) -> set[str]:
    return set(Secret.objects.filter(organization_id=organization_id).values_list("name", flat=True))


def secret_values(*, organization_id: UUID, names: Iterable[str]) -> dict[str, str]:
    """The plain values of the named secrets that exist, for a runner's lease only. A name
    the organization no longer has, or whose value no configured key opens, is absent (the
    runner fails that run, naming it)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = Secret.objects.filter(organization_id=organization_id, name__in=wanted).values_list(
        "name", "key_id", "sealed_value")
    values: dict[str, str] = {}
    for name, key_id, sealed in rows:
        try:
            values[name] = open_sealed(key_id, sealed, organization_id=organization_id, name=name)
        except SecretsKeyError as exc:  # an operator dropped a key before re-sealing under the new one
            log.error("organization %s: %s", organization_id, exc)
    return values
