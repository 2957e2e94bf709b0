"""Project-wide guards: migrations match the models, the committed OpenAPI schema
matches the code (the frontend's types are generated from it)."""

import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

BACKEND = Path(__file__).resolve().parents[3]


@pytest.mark.django_db
def test_no_missing_migrations():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}\n(exit {exc.code})")


def test_committed_openapi_schema_is_current(tmp_path):
    fresh = tmp_path / "openapi.yaml"
    call_command("spectacular", "--file", str(fresh), "--validate", "--fail-on-warn")
    committed = (BACKEND / "openapi.yaml").read_text()
    assert fresh.read_text() == committed, (
        "backend/openapi.yaml is stale: run `cd backend && ../.venv/bin/python manage.py spectacular "
        "--file openapi.yaml` and `npm run gen:api` in frontend/"
    )


def test_the_wsgi_module_imports_the_views_before_the_first_request():
    """gunicorn's workers import config.wsgi as they start: the URLconf and the views come with
    it, so a worker's first request does not wait for them (it waited ~0.4 s)."""
    views = ["apps.runner_protocol.api.views", "apps.results.api.comparison_views"]
    probe = f"import sys, config.wsgi; print(*[name in sys.modules for name in {views!r}])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=BACKEND)
    assert out.stdout.split() == ["True", "True"]
