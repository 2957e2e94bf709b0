"""Device-farm builders and calls: runners speaking the real runner protocol over DRF's
test client, with phone descriptors shaped as the contract README's example."""

from typing import Any

from rest_framework.test import APIClient

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import runner_register

from .factories import SPEC, make_sample


def phone(serial: str, model: str = "Pixel 8", **fields: Any) -> dict[str, Any]:
    descriptor = {"serial": serial, "platform": "android", "model": model, "os_version": "14",
                  "capabilities": {"protocols": ["h1", "h2", "h3", "grpc"], "sdk": 34}, "state": "available",
                  "reason": None, "battery": 87.0, "charging": True, "temperature": 31.5, "thermal_status": "none",
                  "fingerprint": {"manufacturer": "Google", "build": "AP2A.240805.005"}}
    descriptor.update(fields)
    return descriptor


def runner_client(pool, name: str, devices: list[dict[str, Any]]) -> APIClient:
    """A registered runner that said hello with `devices`."""
    runner, secret = runner_register(pool=pool, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {secret}")
    client.runner = runner  # type: ignore[attr-defined]
    response = hello(client, devices)
    assert response.status_code == 200, response.content
    return client


def hello(client: APIClient, devices: list[dict[str, Any]]):
    return client.post("/api/runner/v1/hello", {
        "runner": {"name": client.runner.name, "version": "0.2.0", "drivers": ["android"], "hostname": "lab.local"},
        "devices": devices}, format="json")


def heartbeat(client: APIClient, devices: list[dict[str, Any]], runs: list[dict[str, str]] | None = None):
    return client.post("/api/runner/v1/heartbeat", {"devices": devices, "runs": runs or []}, format="json")


def lease(client: APIClient, serials: list[str]):
    return client.post("/api/runner/v1/lease", {"devices": serials, "wait_s": 0}, format="json")


def leased_run(client: APIClient, serials: list[str]) -> dict[str, Any]:
    response = lease(client, serials)
    assert response.status_code == 200, (response.status_code, response.content)
    (run,) = response.json()["runs"]
    return run


def finish(client: APIClient, leased: dict[str, Any], status: str, error_kind: str | None = None,
           error: str | None = None):
    return client.post(f"/api/runner/v1/runs/{leased['run_id']}/finish", {
        "lease_token": leased["lease_token"], "status": status, "error_kind": error_kind, "error": error,
        "fingerprint": {"platform": "android", "model": "Pixel 8"}}, format="json")


def upload_block(client: APIClient, leased: dict[str, Any], block: int) -> None:
    """Store one block of three h2 samples under the lease."""
    body = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": block, "block": block,
            "samples": [make_sample("h2", block, i) for i in range(3)]}
    response = client.post(f"/api/runner/v1/runs/{leased['run_id']}/samples", body, format="json")
    assert response.status_code == 200, response.content


def android_comparison(org, pool_slug: str = "local", count: int = 1, **spec: Any) -> Comparison:
    comparison = comparison_create(organization=org, submitted_spec={
        **SPEC, "name": "farm", "devices": {"pool": pool_slug, "platforms": ["android"], "count": count}, **spec})
    comparison_plan(comparison_id=str(comparison.id))
    return comparison
