"""Shared by every package's tests: under CI=true a skipped test fails (infra/testing/no_skips_under_ci.py)."""

pytest_plugins = ["no_skips_under_ci"]
