"""config.settings.production, as the image runs it (in a subprocess: settings load once per
process): refuses to start without real keys, and then passes `check --deploy`."""

import base64
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[3]
GOOD_SECRET_KEY = secrets.token_urlsafe(50)
GOOD_SECRETS_KEY = "k1:" + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
PRINT_SETTINGS = """
import json, django
from django.conf import settings
django.setup()
names = ["DEBUG", "WEBHOOKS_ALLOW_LOOPBACK", "SESSION_COOKIE_SECURE", "SESSION_COOKIE_HTTPONLY", "CSRF_COOKIE_SECURE",
         "SECURE_HSTS_SECONDS", "SECURE_SSL_REDIRECT", "SECURE_PROXY_SSL_HEADER", "X_FRAME_OPTIONS",
         "SECURE_REFERRER_POLICY"]
print(json.dumps({n: getattr(settings, n, None) for n in names}))
"""


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LATENCYLAB_SECRET")}
    clean |= {"DJANGO_SETTINGS_MODULE": "config.settings.production", **env}
    return subprocess.run([sys.executable, *args], cwd=BACKEND, env=clean, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("secret_key", [None, "dev-only-insecure-key-change-me", "change-me-in-production",
                                        "short-but-random-Zq8", "a" * 60])
def test_it_refuses_to_start_without_a_real_secret_key(secret_key):
    env = {"LATENCYLAB_SECRETS_KEY": GOOD_SECRETS_KEY}
    if secret_key is not None:
        env["LATENCYLAB_SECRET_KEY"] = secret_key
    done = run(["-c", "import config.settings.production"], **env)
    assert done.returncode != 0
    assert "ImproperlyConfigured: LATENCYLAB_SECRET_KEY must be set to a random value of at least 50" in done.stderr


def test_it_refuses_to_start_without_the_secrets_key():
    done = run(["-c", "import config.settings.production"], LATENCYLAB_SECRET_KEY=GOOD_SECRET_KEY)
    assert done.returncode != 0
    assert "ImproperlyConfigured: LATENCYLAB_SECRETS_KEY is required in production" in done.stderr


def test_debug_and_loopback_webhooks_stay_off_whatever_the_environment_says():
    done = run(["-c", PRINT_SETTINGS], LATENCYLAB_SECRET_KEY=GOOD_SECRET_KEY, LATENCYLAB_SECRETS_KEY=GOOD_SECRETS_KEY,
               LATENCYLAB_DEBUG="1", LATENCYLAB_WEBHOOKS_ALLOW_LOOPBACK="1")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout.strip().splitlines()[-1])
    assert values == {
        "DEBUG": False, "WEBHOOKS_ALLOW_LOOPBACK": False, "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True, "CSRF_COOKIE_SECURE": True, "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_SSL_REDIRECT": True, "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "X_FRAME_OPTIONS": "DENY", "SECURE_REFERRER_POLICY": "same-origin",
    }


def test_check_deploy_passes_with_only_the_documented_warning():
    done = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
               LATENCYLAB_SECRET_KEY=GOOD_SECRET_KEY, LATENCYLAB_SECRETS_KEY=GOOD_SECRETS_KEY)
    security = [line for line in (done.stdout + done.stderr).splitlines() if "(security." in line]
    # HSTS preload is an opt-in (LATENCYLAB_HSTS_PRELOAD=1): docs/security.md, "Production settings".
    assert [line.split(")")[0] for line in security] == ["?: (security.W021"]
