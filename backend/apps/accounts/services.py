from django.contrib.auth.models import User
from django.db import transaction

from apps.core.errors import ApplicationError
from apps.core.tokens import digest, new_secret, visible_prefix

from .models import ApiToken, Membership, Organization


@transaction.atomic
def organization_get_or_create(*, slug: str, name: str) -> Organization:
    org, _ = Organization.objects.get_or_create(slug=slug, defaults={"name": name})
    return org


@transaction.atomic
def user_ensure_member(
    *, organization: Organization, username: str, password: str, role: str = Membership.Role.OWNER
) -> User:
    """Create the user if missing, (re)set the password, and make it a member of the org."""
    user, _ = User.objects.get_or_create(username=username)
    user.set_password(password)
    user.save()
    Membership.objects.get_or_create(organization=organization, user=user, defaults={"role": role})
    return user


@transaction.atomic
def api_token_create(
    *, organization: Organization, name: str, scopes: list[str], created_by: User | None = None
) -> tuple[ApiToken, str]:
    """Returns the token row and the secret, which is shown once and never stored."""
    unknown = sorted(set(scopes) - set(ApiToken.Scope.values))
    if not scopes or unknown:
        raise ApplicationError(
            f"scopes: must be a non-empty subset of {sorted(ApiToken.Scope.values)}; got unknown {unknown}"
        )
    secret = new_secret("t")
    token = ApiToken.objects.create(
        organization=organization,
        created_by=created_by,
        name=name,
        prefix=visible_prefix(secret),
        token_hash=digest(secret),
        scopes=sorted(set(scopes)),
    )
    return token, secret
