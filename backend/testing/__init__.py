"""Helpers shared by the backend's tests: builders of test data (factories), the runner-protocol
calls a runner makes (runner_calls) and polling (waiting). Fixtures live in the conftest.py files.
Only tests import this package; nothing under apps/ or config/ does."""
