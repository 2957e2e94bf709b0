from django.conf import settings
from django.db import models

from apps.core.models import TimeStampedModel


class Organization(TimeStampedModel):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    # Set by an operator (the Django admin): the organization's API calls answer 403 and its
    # runs are not leased until it is reinstated.
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return self.slug


class Membership(TimeStampedModel):
    class Role(models.TextChoices):
        OWNER = "owner"
        ADMIN = "admin"
        MEMBER = "member"
        VIEWER = "viewer"

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "user"], name="membership_unique_user_per_org")]


class ApiToken(TimeStampedModel):
    class Scope(models.TextChoices):
        READ = "read"
        WRITE = "write"
        CI = "ci"

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="api_tokens")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, db_index=True)
    token_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="refused from then on; null: never expires")


# What `{{secret.NAME}}` may name: upper-case, as environment variables are.
SECRET_NAME_PATTERN = r"^[A-Z][A-Z0-9_]{0,63}$"  # noqa: S105  (a name pattern, not a password)
SECRET_VALUE_MAX_BYTES = 8192


class Secret(TimeStampedModel):
    """A value an organization's specs reference as `{{secret.NAME}}` in request headers
    (API keys, bearer tokens). Stored sealed (apps.accounts.secret_box: AES-GCM under the
    key `key_id`); the API never returns it, and only a lease of a run whose spec names it
    carries it, to the runner."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="secrets")
    name = models.CharField(max_length=64)
    key_id = models.CharField(max_length=32, help_text="the LATENCYLAB_SECRETS_KEY entry that sealed the value")
    sealed_value = models.BinaryField(help_text="nonce ‖ AES-GCM ciphertext ‖ tag")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organization", "name"], name="secret_unique_name_per_org"),
            models.CheckConstraint(condition=models.Q(name__regex=SECRET_NAME_PATTERN), name="secret_name_format"),
        ]

    def __str__(self) -> str:
        return self.name  # never the value


class Invitation(TimeStampedModel):
    """An emailed offer to join an organization with a role. The link's secret is stored only
    as its SHA-256 digest; the link works once, until it expires or is revoked."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=16, choices=Membership.Role.choices, default=Membership.Role.MEMBER)
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["organization", "email"])]
