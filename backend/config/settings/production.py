"""What the image runs (infra/docker/Dockerfile sets DJANGO_SETTINGS_MODULE to this module):
the base settings, hardened, refusing to start without the keys that development derives.
docs/security.md, "Production settings", explains each choice."""

from django.core.exceptions import ImproperlyConfigured

from apps.accounts.secret_box import SecretsKeyError, parse_keyring

from .base import *  # noqa: F403
from .base import LATENCYLAB_SECRETS_KEY, LOGGING, SECRET_KEY, env

DEV_SECRET_KEYS = {"dev-only-insecure-key-change-me", "change-me-in-production"}
SECRET_KEY_MIN_LENGTH = 50

if (SECRET_KEY in DEV_SECRET_KEYS or SECRET_KEY.startswith("django-insecure-")
        or len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH or len(set(SECRET_KEY)) < 5):
    raise ImproperlyConfigured(
        f"LATENCYLAB_SECRET_KEY must be set to a random value of at least {SECRET_KEY_MIN_LENGTH} characters in "
        "production (sessions, CSRF and password resets are signed with it), e.g. "
        "$(python -c 'import secrets; print(secrets.token_urlsafe(50))')")
if not LATENCYLAB_SECRETS_KEY:
    raise ImproperlyConfigured(
        "LATENCYLAB_SECRETS_KEY is required in production: key_id:base64key (32 random bytes), e.g. "
        "k1:$(python -c 'import secrets, base64; print(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())') "
        "(docs/api.md, Secrets)")
try:
    parse_keyring(LATENCYLAB_SECRETS_KEY)
except SecretsKeyError as exc:
    raise ImproperlyConfigured(str(exc)) from None

# Not from the environment: a stray LATENCYLAB_DEBUG=1 must not turn on tracebacks in pages.
DEBUG = False
WEBHOOKS_ALLOW_LOOPBACK = False

# Cookies only over HTTPS (browsers also accept them on http://localhost, the single-host
# compose file). The CSRF cookie stays readable by the dashboard's script, which copies it into
# the X-CSRFToken header; the session cookie never is.
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SECURE = True
CSRF_COOKIE_SAMESITE = "Lax"

# LATENCYLAB_TLS_PROXY=1 (the default): a TLS-terminating proxy (an ingress, a load balancer)
# serves the site over HTTPS and sets X-Forwarded-Proto; it must overwrite a client's own
# header. Plain HTTP is then redirected to HTTPS, and HSTS is sent (Django sends it on
# secure requests only). 0: the process is reached over plain HTTP on a trusted host.
TLS_PROXY = env("TLS_PROXY", "1") == "1"
if TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # Health probes reach the process over plain HTTP from inside the cluster.
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/auth/csrf$", r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = int(env("HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env("HSTS_INCLUDE_SUBDOMAINS", "1") == "1"
SECURE_HSTS_PRELOAD = env("HSTS_PRELOAD", "0") == "1"

# Log collectors get one JSON object per line with the request, comparison and run ids
# (apps.core.log_context); LATENCYLAB_LOG_FORMAT=text for reading by eye.
LOGGING["handlers"]["console"]["formatter"] = env("LOG_FORMAT", "json")  # type: ignore[index]
