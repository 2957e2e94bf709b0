"""Project-wide guards: migrations match the models, the committed OpenAPI schema
matches the code (the frontend's types are generated from it)."""

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
