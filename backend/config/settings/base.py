"""Settings shared by every environment. Everything host-specific comes from the
environment (LATENCYLAB_*), so one image serves compose, Kubernetes and `make up`."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from latencylab_contract import error_kinds

BASE_DIR = Path(__file__).resolve().parent.parent.parent
REPO_DIR = BASE_DIR.parent


def env(name: str, default: str) -> str:
    return os.environ.get(f"LATENCYLAB_{name}", default)


SECRET_KEY = env("SECRET_KEY", "dev-only-insecure-key-change-me")
# Organization secrets' encryption keys (apps.accounts.secret_box): `key_id:base64key[,…]`, the
# first encrypts. Empty: a key derived from SECRET_KEY, for `make up` and tests only
# (config.settings.production refuses to start without it).
LATENCYLAB_SECRETS_KEY = env("SECRETS_KEY", "")
DEBUG = env("DEBUG", "0") == "1"
ALLOWED_HOSTS = env("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in env("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",  # operators only (is_staff): docs/security.md, "Operators: the Django admin"
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "apps.core",
    "apps.accounts",
    "apps.devices",
    "apps.comparisons",
    "apps.scheduler",
    "apps.results",
    "apps.network",
    "apps.webhooks",
    "apps.reports",
    "apps.runner_protocol",
    "apps.monitoring",
    "apps.audit",
]

MIDDLEWARE = [
    "apps.core.health.HealthProbeMiddleware",  # before host checks and HTTPS redirects (its docstring)
    "apps.core.http_metrics.HttpMetricsMiddleware",  # HTTP latency by route for /metrics (apps.monitoring)
    "apps.core.request_ids.RequestIdMiddleware",  # X-Request-ID, and the ids every log line carries
    # Compresses answers for clients that accept gzip, after every middleware below has written its
    # part: a 200,000-sample comparison's results are ~400 KB of JSON, ~10x smaller gzipped (a third of
    # a second on a 10 Mbit/s link). Django's adds random padding against BREACH; the SPA's files come
    # compressed already (apps.core.spa), and an answer with a Content-Encoding, or of a media type
    # compressed already (a .gz artifact, a PDF), is left alone.
    "apps.core.compression.GZipUncompressedMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "apps.core.body_limits.BodySizeLimitMiddleware",
    "apps.core.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": env("DB_NAME", "latencylab"),
        "USER": env("DB_USER", "latencylab"),
        "PASSWORD": env("DB_PASSWORD", "latencylab"),
        "HOST": env("DB_HOST", "127.0.0.1"),
        "PORT": env("DB_PORT", "5432"),
        # Seconds a web thread keeps its connection between requests. Every thread may keep
        # one: with many threads per process (a large runner farm's long-polls) set 0, so
        # that connections stay bounded by requests in progress (docs/operations.md).
        "CONN_MAX_AGE": int(env("DB_CONN_MAX_AGE", "60")),
        # A kept connection is checked before a request uses it: after PostgreSQL restarts,
        # the first request of each thread reconnects instead of failing with a 500.
        "CONN_HEALTH_CHECKS": True,
    }
}
# A connection pool per process (psycopg_pool) instead of a connection kept per thread: for
# web processes with many threads (a large farm's long-polls, docs/operations.md), so that
# connections stay bounded by the pool and a request waits for one (DB_POOL_TIMEOUT_S) rather
# than failing when PostgreSQL's max_connections is reached. Unset or 0: no pool.
if DB_POOL_MAX_SIZE := int(env("DB_POOL_MAX_SIZE", "0")):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them
    DATABASES["default"]["OPTIONS"] = {"pool": {"min_size": 2, "max_size": DB_POOL_MAX_SIZE,
                                                "timeout": float(env("DB_POOL_TIMEOUT_S", "30"))}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# Anyone may sign up and create an organization; "0": invitations only (hosted operators).
LATENCYLAB_OPEN_SIGNUP = env("OPEN_SIGNUP", "1") == "1"
# The origin emailed links (invitations, password reset) point at, e.g. https://latencylab.example.com.
# Empty: the request's own origin, which is fine in development only (a Host header is the client's).
LATENCYLAB_PUBLIC_URL = env("PUBLIC_URL", "")
# Console in development (the mail is in the web server's log); production sets SMTP.
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env("EMAIL_PORT", "25"))
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env("EMAIL_USE_TLS", "0") == "1"
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "LatencyLab <noreply@localhost>")

STATIC_URL = "/static/"
STATIC_ROOT = REPO_DIR / "var" / "staticfiles"
# The built React app (frontend/dist) is served on the same origin as the API.
FRONTEND_DIST = Path(env("FRONTEND_DIST", str(REPO_DIR / "frontend" / "dist")))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.accounts.permissions.IsOrganizationMember"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    # Every list view filters through a FilterSet (its filterset_class, or one that takes no filter),
    # and a query parameter it does not take is a 400 (apps.core.filtering).
    "DEFAULT_FILTER_BACKENDS": ["apps.core.filtering.StrictFilterBackend"],
    "PAGE_SIZE": 25,
    "EXCEPTION_HANDLER": "apps.core.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Rates: API_RATE, ANON_RATE below; views with their own limits (sign-in, public reports,
    # the runner protocol) name their throttle classes.
    "DEFAULT_THROTTLE_CLASSES": ["apps.core.throttling.ClientRateThrottle"],
    # How many proxies in front of the web process append to X-Forwarded-For: the client IP
    # the per-IP limits count is the one the nearest trusted proxy saw (0: the socket's peer,
    # so a client cannot pick its own address).
    "NUM_PROXIES": int(env("NUM_PROXIES", "0")),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "LatencyLab API",
    "DESCRIPTION": "Benchmark network protocols on real phones: comparisons, results, verdicts, runners.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/",
    # Self-hosted Swagger UI: device labs and CI machines may have no CDN access.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # drf-spectacular's own enum hook first, then every operation's refusals (apps.core.error_responses).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "apps.core.error_responses.document_error_responses"],
    "ENUM_NAME_OVERRIDES": {
        "ComparisonStatusEnum": "apps.comparisons.models.Comparison.Status",
        "RunStatusEnum": "apps.comparisons.models.Run.Status",
        "PlatformEnum": ["host", "android", "ios"],
        "DeviceStateEnum": "apps.devices.models.Device.State",
        "PoolKindEnum": "apps.devices.models.DevicePool.Kind",
        "RunnerDeviceStateEnum": ["available", "busy", "not_ready", "unauthorized", "offline"],
        "RunErrorKindEnum": "apps.comparisons.models.Run.ErrorKind",
        # What a runner may report: the contract's table of error kinds (apps.comparisons.blame).
        "FinishErrorKindEnum": [kind for kind, row in error_kinds().items() if row["runner_reports"]],
        "EnrollmentTokenStatusEnum": ["active", "expired", "revoked"],
        "AuditActionEnum": "apps.audit.models.AuditEvent.Action",
    },
}

REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# How often work whose task was lost (a Redis restart) is rebuilt from PostgreSQL
# (apps.*.reconcile); the fault tests shorten it.
RECONCILE_INTERVAL_S = float(env("RECONCILE_INTERVAL_S", "60"))
CELERY_BEAT_SCHEDULE = {
    "reap-expired-leases": {"task": "comparisons.reap_expired_leases", "schedule": 10.0},
    "requeue-stranded-webhooks": {"task": "webhooks.requeue_stranded", "schedule": RECONCILE_INTERVAL_S},
    "reconcile-comparisons": {"task": "comparisons.reconcile", "schedule": RECONCILE_INTERVAL_S},
    "reconcile-analyses": {"task": "results.reconcile_analyses", "schedule": RECONCILE_INTERVAL_S},
    # The sample table's month partitions made ahead, and old ones dropped (apps.results.storage.retention).
    "maintain-sample-storage": {"task": "results.maintain_sample_storage", "schedule": 3600.0},
}

# The shared cache (share links' rendered reports, their open counts, API rate limits) lives on
# the same Redis as the broker, under its own key prefix.
CACHES = {
    "default": {
        # Django's Redis cache, leaving a Redis that failed alone for 10 s (apps.core.cache_outage).
        "BACKEND": "apps.core.cache_outage.BreakerRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "latencylab-cache",
        # Bounded waits: an unreachable Redis must fail a cache call (the rate limits then let
        # requests through, apps.core.throttling) rather than hold the request for the
        # kernel's TCP connect timeout (minutes).
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 5},
    }
}
# Rate limits (apps.core.throttling; 429 with Retry-After), "<n>/<second|minute|hour|day>":
# per API token or signed-in user on the API,
API_RATE = env("API_RATE", "1200/minute")
# per client IP for anonymous calls,
ANON_RATE = env("ANON_RATE", "120/minute")
# per client IP on sign-in, sign-up and password reset (on top of ANON_RATE),
SIGN_IN_RATE = env("SIGN_IN_RATE", "20/minute")
# per runner on the runner protocol (an agent needs a few calls a minute per device),
RUNNER_RATE = env("RUNNER_RATE", "3000/minute")
# per client IP on the public share-link endpoints (/api/v1/public/reports/…).
PUBLIC_REPORT_RATE = env("PUBLIC_REPORT_RATE", "120/minute")
# Prints report PDFs (apps.reports.pdf): a name on PATH or a path.
LATENCYLAB_CHROMIUM = env("CHROMIUM", "chromium")

# Runner protocol timings (device-runner/contract/README.md; docs/architecture.md, "The flow
# of one comparison").
RUNNER_LEASE_SECONDS = int(env("RUNNER_LEASE_SECONDS", "60"))
RUNNER_OFFLINE_SECONDS = int(env("RUNNER_OFFLINE_SECONDS", "30"))
RUNNER_MAX_ATTEMPTS = 3
RUNNER_LEASE_WAIT_MAX_S = 25
# Runner-protocol requests a web process works on at once; the rest wait their turn
# without a database connection (apps.core.admission; a long-poll's wait does not count).
RUNNER_WORK_SLOTS = int(env("RUNNER_WORK_SLOTS", "8"))
RUNNER_MAX_BATCH_SAMPLES = 20_000
# Samples are kept this many days (whole months are dropped once all of their days are older;
# docs/operations.md); unset or empty: kept forever.
_retention = env("SAMPLE_RETENTION_DAYS", "").strip()
if _retention and not (_retention.isdigit() and 1 <= int(_retention) <= 36500):
    raise ImproperlyConfigured(f"LATENCYLAB_SAMPLE_RETENTION_DAYS={_retention!r}: a whole number of days from 1 to "
                               "36500, or empty to keep samples forever")
SAMPLE_RETENTION_DAYS = int(_retention) if _retention else None
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024 * 1024
# Request body bounds by path prefix, the longest prefix wins (apps.core.body_limits: 413
# from Content-Length, before the body is read). A runner's block of samples and imported
# measurements are the large bodies; sign-in and sign-up are anonymous and small.
REQUEST_BODY_LIMITS = {
    "/": int(env("MAX_BODY_BYTES", str(16 * 1024 * 1024))),
    "/api/runner/v1/": DATA_UPLOAD_MAX_MEMORY_SIZE,
    "/api/v1/imports": DATA_UPLOAD_MAX_MEMORY_SIZE,
    "/api/v1/auth/": 64 * 1024,
}

# Where people reach the dashboard; links in webhooks and reports point here.
PUBLIC_URL = env("PUBLIC_URL", "http://127.0.0.1:8000")
# /metrics (apps.monitoring) answers only `Authorization: Bearer <this>`; unset: no /metrics (404).
LATENCYLAB_METRICS_TOKEN = env("METRICS_TOKEN", "")
# Webhooks to loopback are for development and tests only; production sets this to 0.
WEBHOOKS_ALLOW_LOOPBACK = env("WEBHOOKS_ALLOW_LOOPBACK", "1") == "1"

# Sent on every response (apps.core.csp), in development too. Styles may be inline: Plotly
# and the Swagger UI set style attributes and inject <style> elements. Nothing may frame a
# page (share links included: a report is linked, not embedded).
CONTENT_SECURITY_POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "worker-src": ["'self'", "blob:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
X_FRAME_OPTIONS = "DENY"
# A share link's token is in its URL: never send a URL to another origin.
SECURE_REFERRER_POLICY = "same-origin"

# text (development's default) or json: one object per line with the request, comparison and
# run ids (apps.core.log_context; production's default).
LOG_FORMAT = env("LOG_FORMAT", "text")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Credentials never reach a log line (apps.core.log_redaction); then the ids are attached.
    "filters": {"redact_secrets": {"()": "apps.core.log_redaction.RedactSecretsFilter"},
                "log_context": {"()": "apps.core.log_context.LogContextFilter"}},
    "formatters": {"json": {"()": "apps.core.log_context.JsonFormatter"},
                   "text": {"format": "%(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_secrets", "log_context"],
                             "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    # Django's own handlers (runserver's request lines, DEBUG's console) would bypass the
    # filter: its loggers write through the root's console handler instead.
    "loggers": {name: {"handlers": [], "propagate": True} for name in ("django", "django.server")},
}
# The Celery worker logs through the same filtered handler instead of its own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
