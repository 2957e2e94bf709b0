from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
RUNNER_LEASE_WAIT_MAX_S = 2
# The suite makes thousands of calls from one address and one token per test; the rate-limit
# tests lower these with override_settings.
API_RATE = ANON_RATE = SIGN_IN_RATE = RUNNER_RATE = PUBLIC_REPORT_RATE = "100000/minute"
