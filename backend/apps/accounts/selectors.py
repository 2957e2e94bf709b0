import logging
from collections.abc import Iterable
from uuid import UUID

from django.db.models import QuerySet
from django.http import HttpRequest

from .models import ApiToken, Membership, Organization, Secret
from .secret_box import SecretsKeyError, open_sealed

log = logging.getLogger(__name__)


def organization_for_request(request: HttpRequest) -> Organization | None:
    """The organization a request acts for: the token's, or the session user's first membership."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiToken):
        return auth.organization
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    membership = Membership.objects.select_related("organization").filter(user=user).order_by("created_at").first()
    return membership.organization if membership else None


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
