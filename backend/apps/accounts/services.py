import re
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from apps.core.errors import ApplicationError, Conflict
from apps.core.events import publish
from apps.core.tokens import digest, new_secret, visible_prefix

from . import events
from .models import SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES, ApiToken, Membership, Organization, Secret
from .secret_box import keyring, open_sealed, seal


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


# An API token lives at most this long when it expires at all (None: until revoked).
API_TOKEN_MAX_DAYS = 365
API_TOKEN_NAME_MAX = 100


@transaction.atomic
def api_token_create(
    *, organization: Organization, name: str, scopes: list[str], created_by: User | None = None,
    expires_in_days: int | None = None,
) -> tuple[ApiToken, str]:
    """Returns the token row and the secret, which is shown once and never stored."""
    allowed = sorted(ApiToken.Scope.values)
    unknown = sorted(set(scopes) - set(allowed))
    if not scopes or unknown:
        raise ApplicationError(
            f"scopes: must be a non-empty subset of {allowed}; got unknown {unknown}",
            extra={"scopes": [f"Choose one or more of {', '.join(allowed)}."]},
        )
    if not name.strip() or len(name) > API_TOKEN_NAME_MAX:
        raise ApplicationError(f"name: 1–{API_TOKEN_NAME_MAX} characters",
                               extra={"name": [f"1–{API_TOKEN_NAME_MAX} characters."]})
    if expires_in_days is not None and not 1 <= expires_in_days <= API_TOKEN_MAX_DAYS:
        raise ApplicationError(f"expires_in_days: between 1 and {API_TOKEN_MAX_DAYS}, or null for no expiry",
                               extra={"expires_in_days": [f"Between 1 and {API_TOKEN_MAX_DAYS}, or null for no "
                                                          "expiry."]})
    secret = new_secret("t")
    token = ApiToken.objects.create(
        organization=organization,
        created_by=created_by,
        name=name.strip(),
        prefix=visible_prefix(secret),
        token_hash=digest(secret),
        scopes=sorted(set(scopes)),
        expires_at=timezone.now() + timedelta(days=expires_in_days) if expires_in_days is not None else None,
    )
    publish(events.API_TOKEN_CREATED, organization_id=organization.pk, actor_id=created_by.pk if created_by else None,
            token_id=token.pk, token_name=token.name, scopes=token.scopes, expires_at=token.expires_at)
    return token, secret


@transaction.atomic
def api_token_revoke(*, token: ApiToken, revoked_by: User | None = None) -> ApiToken:
    """Idempotent: revoking twice keeps the first revocation time (and announces it once).
    Refused from the next request on."""
    if ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now()):
        publish(events.API_TOKEN_REVOKED, organization_id=token.organization_id,
                actor_id=revoked_by.pk if revoked_by else None, token_id=token.pk, token_name=token.name)
    token.refresh_from_db()
    return token


def _secret_value_problem(value: str) -> str | None:
    if not value:
        return "must not be empty"
    if any(c in value for c in "\r\n\x00"):
        return "must not contain CR, LF or NUL (it goes into a header value)"
    if len(value.encode()) > SECRET_VALUE_MAX_BYTES:
        return f"at most {SECRET_VALUE_MAX_BYTES} bytes (UTF-8)"
    return None


def _check_secret(name: str, value: str) -> None:
    if not re.match(SECRET_NAME_PATTERN, name):
        raise ApplicationError("secret name: 1–64 of A-Z, 0-9 and _, starting with a letter",
                               extra={"name": ["1–64 of A-Z, 0-9 and _, starting with a letter."]})
    if problem := _secret_value_problem(value):
        raise ApplicationError(f"secret value: {problem}", extra={"value": [f"The value {problem}."]})


@transaction.atomic
def secret_create(*, organization: Organization, name: str, value: str, created_by: User | None = None) -> Secret:
    """A new secret; 409 if the organization has one of that name (replace it with secret_set)."""
    _check_secret(name, value)
    if Secret.objects.filter(organization=organization, name=name).exists():
        raise Conflict(f"A secret named {name} exists; replace its value with PUT /api/v1/secrets/{name}.")
    key_id, sealed = seal(value, organization_id=organization.pk, name=name)
    return Secret.objects.create(organization=organization, name=name, key_id=key_id, sealed_value=sealed,
                                 created_by=created_by, updated_by=created_by)


@transaction.atomic
def secret_set(*, organization: Organization, name: str, value: str,
               updated_by: User | None = None) -> tuple[Secret, bool]:
    """Replace a secret's value, or create it; (the secret, whether it was created)."""
    _check_secret(name, value)
    key_id, sealed = seal(value, organization_id=organization.pk, name=name)
    secret = Secret.objects.select_for_update().filter(organization=organization, name=name).first()
    if secret is None:
        return Secret.objects.create(organization=organization, name=name, key_id=key_id, sealed_value=sealed,
                                     created_by=updated_by, updated_by=updated_by), True
    secret.key_id, secret.sealed_value, secret.updated_by = key_id, sealed, updated_by
    secret.save(update_fields=["key_id", "sealed_value", "updated_by", "updated_at"])
    return secret, False


@transaction.atomic
def secret_delete(*, organization: Organization, name: str) -> bool:
    """Whether it existed. A queued run that names it fails at its lease, saying so."""
    deleted, _ = Secret.objects.filter(organization=organization, name=name).delete()
    return deleted > 0


@transaction.atomic
def secrets_reencrypt() -> int:
    """Re-seal every value not under the current key (after a new key was put first in
    LATENCYLAB_SECRETS_KEY); how many were re-sealed. Then the old key can be dropped."""
    current = keyring().current
    count = 0
    for secret in Secret.objects.select_for_update().exclude(key_id=current):
        value = open_sealed(secret.key_id, secret.sealed_value, organization_id=secret.organization_id,
                            name=secret.name)
        secret.key_id, secret.sealed_value = seal(value, organization_id=secret.organization_id, name=secret.name)
        secret.save(update_fields=["key_id", "sealed_value", "updated_at"])
        count += 1
    return count
