"""What the image runs (infra/docker/Dockerfile sets DJANGO_SETTINGS_MODULE to this module):
the base settings, refusing to start without the keys that development derives."""

from django.core.exceptions import ImproperlyConfigured

from apps.accounts.secret_box import SecretsKeyError, parse_keyring

from .base import *  # noqa: F403
from .base import LATENCYLAB_SECRETS_KEY

if not LATENCYLAB_SECRETS_KEY:
    raise ImproperlyConfigured(
        "LATENCYLAB_SECRETS_KEY is required in production: key_id:base64key (32 random bytes), e.g. "
        "k1:$(python -c 'import secrets, base64; print(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())') "
        "(docs/api.md, Secrets)")
try:
    parse_keyring(LATENCYLAB_SECRETS_KEY)
except SecretsKeyError as exc:
    raise ImproperlyConfigured(str(exc)) from None
