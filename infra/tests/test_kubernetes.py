"""infra/k8s: the base and its small and large overlays, rendered by kustomize and validated
against Kubernetes' own schemas (kubernetes-validate, strict: unknown fields refused), then
checked for what the service needs: probes on the endpoints the backend serves, autoscalers
on the deployments they name, one beat, migrations as a job, configuration from secrets."""

import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "infra" / "k8s"
KUBERNETES_VERSION = "1.33"
OVERLAYS = ("small", "large")


def render(kustomize: Path, path: Path) -> list[dict]:
    result = subprocess.run([str(kustomize), "build", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="module")
def installations(kustomize: Path) -> dict[str, dict[tuple[str, str], dict]]:
    return {name: {(doc["kind"], doc["metadata"]["name"]): doc for doc in render(kustomize, K8S / "overlays" / name)}
            for name in OVERLAYS}


def containers(doc: dict) -> dict[str, dict]:
    return {c["name"]: c for c in doc["spec"]["template"]["spec"]["containers"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_object_is_valid_kubernetes(installations, overlay):
    for doc in installations[overlay].values():
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_the_validator_refuses_what_the_api_server_refuses():
    """So a green run means something: a misspelt field and a wrong type both fail."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"}, "spec": {"portz": []}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(service, KUBERNETES_VERSION, strict=True)
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
                  "spec": {"replicas": "two", "selector": {}, "template": {}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_web_worker_beat_runner_and_the_migration_job_are_there(installations, overlay):
    objects = installations[overlay]
    for name in ("latencylab-web", "latencylab-worker", "latencylab-beat", "latencylab-runner"):
        assert ("Deployment", name) in objects, name
    assert ("Job", "latencylab-migrate") in objects
    assert objects[("Job", "latencylab-migrate")]["spec"]["template"]["spec"]["containers"][0]["command"] == [
        "python", "manage.py", "migrate", "--noinput"]
    assert objects[("Deployment", "latencylab-beat")]["spec"]["replicas"] == 1
    assert objects[("Deployment", "latencylab-beat")]["spec"]["strategy"]["type"] == "Recreate"
    assert objects[("Deployment", "latencylab-runner")]["spec"]["replicas"] == 1


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_web_and_workers_scale_horizontally(installations, overlay):
    objects = installations[overlay]
    for name in ("latencylab-web", "latencylab-worker"):
        hpa = objects[("HorizontalPodAutoscaler", name)]
        assert (hpa["spec"]["scaleTargetRef"]["kind"], hpa["spec"]["scaleTargetRef"]["name"]) == ("Deployment", name)
        assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
        assert objects[("Deployment", name)]["spec"]["replicas"] == hpa["spec"]["minReplicas"]


def test_the_large_installation_is_larger(installations):
    small, large = installations["small"], installations["large"]
    for name in ("latencylab-web", "latencylab-worker"):
        key = ("HorizontalPodAutoscaler", name)
        assert large[key]["spec"]["maxReplicas"] > small[key]["spec"]["maxReplicas"]
        assert large[key]["spec"]["minReplicas"] > small[key]["spec"]["minReplicas"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_use_the_health_endpoints_the_backend_serves(installations, overlay):
    web = containers(installations[overlay][("Deployment", "latencylab-web")])["web"]
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["startupProbe"]["httpGet"]["path"] == "/healthz"
    health = (REPO / "backend" / "apps" / "core" / "health.py").read_text()
    assert '"/healthz": live' in health
    assert '"/readyz": ready' in health
    settings = (REPO / "backend" / "config" / "settings" / "base.py").read_text()
    assert '"apps.core.health.HealthProbeMiddleware"' in settings


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_configuration_comes_from_the_config_map_and_secrets_never_from_the_manifests(installations, overlay):
    objects = installations[overlay]
    config = objects[("ConfigMap", "latencylab-config")]["data"]
    assert config["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    secret_names = {"SECRET_KEY", "SECRETS_KEY", "DB_PASSWORD", "RUNNER_TOKEN"}
    assert not {key for key in config if key.removeprefix("LATENCYLAB_") in secret_names}
    assert not [doc for doc in objects.values() if doc["kind"] == "Secret"]
    for name in ("latencylab-web", "latencylab-worker", "latencylab-beat"):
        env_from = containers(objects[("Deployment", name)])[name.removeprefix("latencylab-")]["envFrom"]
        assert {"configMapRef": {"name": "latencylab-config"}} in env_from
        assert {"secretRef": {"name": "latencylab"}} in env_from
    runner = containers(objects[("Deployment", "latencylab-runner")])["runner"]
    token = next(e for e in runner["env"] if e["name"] == "LATENCYLAB_RUNNER_TOKEN")
    assert token["valueFrom"]["secretKeyRef"] == {"name": "latencylab-runner", "key": "token"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_image_is_the_release_image(installations, overlay):
    images = {c["image"] for doc in installations[overlay].values() if doc["kind"] in ("Deployment", "Job")
              for c in doc["spec"]["template"]["spec"]["containers"]}
    assert images == {"registry.example.com/latencylab:0.0.0"}
