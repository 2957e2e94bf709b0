"""docker-compose.yml, validated as `docker compose config` would (compose-go: the compose
specification's schema, interpolation, anchors, depends_on), without a Docker engine."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
REQUIRED = {"LATENCYLAB_SECRETS_KEY": "k1:" + "A" * 43 + "=", "LATENCYLAB_RUNNER_TOKEN": "llr_example",
            "LATENCYLAB_SECRET_KEY": "x" * 64}
SERVICES = {"postgres", "redis", "web", "worker", "beat", "target", "host-runner"}


def config(composecheck: Path, path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LATENCYLAB_")}
    return subprocess.run([str(composecheck), str(path)], capture_output=True, text=True, timeout=60,
                          env={**clean, **env}, cwd=path.parent)


@pytest.fixture(scope="module")
def project(composecheck: Path) -> dict:
    result = config(composecheck, COMPOSE, REQUIRED)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_file_resolves_with_every_service_the_design_names(project):
    assert SERVICES <= set(project["services"]), sorted(project["services"])


def test_the_application_services_run_one_image_built_from_the_repository(project):
    app = {name: project["services"][name] for name in ("web", "worker", "beat", "target", "host-runner")}
    assert {svc["image"] for svc in app.values()} == {"latencylab:local"}
    build = app["web"]["build"]
    assert (Path(build["context"]) / build["dockerfile"]).is_file()


def test_the_application_waits_for_healthy_storage_and_for_migrations(project):
    services = project["services"]
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    # The web container is healthy when it can serve: database, broker, migrations (/readyz).
    assert "http://localhost:8000/readyz" in services["web"]["healthcheck"]["test"]


def test_secrets_must_be_given_rather_than_defaulted(composecheck):
    result = config(composecheck, COMPOSE, {k: v for k, v in REQUIRED.items() if k != "LATENCYLAB_SECRETS_KEY"})
    assert result.returncode == 1
    assert "required variable LATENCYLAB_SECRETS_KEY is missing" in result.stderr


def test_the_validator_refuses_what_docker_compose_refuses(composecheck, tmp_path):
    """So a green run means something: an unknown key and a dangling depends_on both fail."""
    unknown = tmp_path / "unknown.yml"
    unknown.write_text("services:\n  web:\n    image: x\n    restart_policy: always\n")
    result = config(composecheck, unknown, {})
    assert result.returncode == 1
    assert "restart_policy" in result.stderr
    dangling = tmp_path / "dangling.yml"
    dangling.write_text("services:\n  web:\n    image: x\n    depends_on: [db]\n")
    result = config(composecheck, dangling, {})
    assert result.returncode == 1
    assert 'undefined service "db"' in result.stderr
