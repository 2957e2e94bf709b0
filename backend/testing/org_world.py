"""One organization holding one object of every kind the API addresses by id — a measured and
analysed comparison with its runs, samples and an artifact, a share link, a network profile, a
webhook with a delivery, an API token, a secret, a pool with an enrollment token, a runner and
its device, an imported comparison, a second member and an invitation — built through the
public API and the runner protocol as a customer would. The isolation walk points another
organization's credentials at these ids; a row snapshot shows that nothing of them changed."""

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps as django_apps
from django.db import models
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.accounts.services import api_token_create, organization_get_or_create, user_ensure_member
from apps.comparisons.artifacts import run_artifact_store
from apps.comparisons.models import Run
from apps.devices.services import pool_get_or_create, runner_hello, runner_register
from apps.webhooks.services import webhook_deliveries_create

from .factories import SPEC, run_measured_comparison

# Everything the world names is prefixed with this, so a listing that leaks it is easy to spot.
MARK = "acme-only"


@dataclass
class OrgWorld:
    organization: Organization
    ids: dict[str, str] = field(default_factory=dict)  # kind of id → one of this organization's values

    def markers(self) -> set[str]:
        """Strings that appear in no other organization's answers: our objects' UUIDs and names."""
        named = {value for value in self.ids.values() if MARK in value.lower().replace("_", "-") or len(value) >= 32}
        return {MARK, str(self.organization.pk)} | named | owned_uuids(self.organization.pk)


# Path parameter → the kind of id it takes (OrgWorld.ids). `token_id` names two kinds.
PATH_PARAMETER_KINDS = {
    "comparison_id": "comparison", "run_id": "run", "artifact_id": "artifact", "share_id": "share",
    "webhook_id": "webhook", "delivery_id": "delivery", "device_id": "device", "slug": "pool_slug",
    "name": "secret_name", "membership_id": "membership", "invitation_id": "invitation", "runner_id": "runner",
}


def id_kind(path: str, parameter: str) -> str | None:
    """The kind of object a path parameter names; None for one this file does not know."""
    if parameter == "token_id":
        return "enrollment_token" if "/pools/" in path else "api_token"
    return PATH_PARAMETER_KINDS.get(parameter)


def signed_in(username: str, password: str) -> APIClient:
    client = APIClient()
    if not client.login(username=username, password=password):
        raise RuntimeError(f"{username} could not sign in")
    return client


def _created(response: Any) -> dict[str, Any]:
    if response.status_code != 201:
        raise RuntimeError(f"{response.request['PATH_INFO']}: {response.status_code} {response.content[:300]!r}")
    return response.json()


def org_world_build(*, organization: Organization, owner_password: str, owner_username: str,
                    runner_api: Any, pool_slug: str) -> OrgWorld:
    """`runner_api`: a client speaking as a runner of this organization's private pool
    `pool_slug` with the host device host-lab-1 (conftest's `runner_api`)."""
    world = OrgWorld(organization)
    owner = signed_in(owner_username, owner_password)
    comparison = run_measured_comparison(
        runner_api, organization, spec={**SPEC, "name": f"{MARK}-comparison", "blocks": 2,
                                        "devices": {"pool": pool_slug, "count": 1}},
        speed={"https-h1": 1.0, "h2": 0.8}, seed=5, blocks=2)
    run = Run.objects.get(comparison=comparison)
    artifact = run_artifact_store(runner=runner_api.runner, run_id=str(run.id), lease_token=run.lease_token,
                                  name="block-0-fastlane.log", content_type="text/plain", data=b"log line\n")
    share = _created(owner.post(f"/api/v1/comparisons/{comparison.id}/shares", {"expires_in_days": 7}, format="json"))
    webhook = _created(owner.post("/api/v1/webhooks", {"url": f"https://{MARK}.example.com/hook"}, format="json"))
    [delivery] = webhook_deliveries_create(comparison_id=str(comparison.id))
    _created(owner.post("/api/v1/network-profiles", {"name": f"{MARK}-profile", "description": MARK,
                                                      "spec": {"down": {"delay_ms": 40}, "up": {"delay_ms": 40}}},
                        format="json"))
    secret = _created(owner.post("/api/v1/secrets", {"name": "ACME_ONLY_SECRET", "value": "v"}, format="json"))
    enrollment = _created(owner.post(f"/api/v1/pools/{pool_slug}/enrollment-tokens", {"name": f"{MARK}-enroll"},
                                     format="json"))
    token, _ = api_token_create(organization=organization, name=f"{MARK}-token", scopes=["read"])
    measurements = "arm,device,round,sequence,ms,bytes\nx,d,0,0,1,0\nx,d,0,1,2,0\ny,d,0,0,3,0\n"
    imported = owner.generic("POST", f"/api/v1/imports?name={MARK}-import", measurements, content_type="text/csv")
    member = user_ensure_member(organization=organization, username=f"{MARK}-member", password="pw-member-123",
                                role="member")
    world.ids.update({
        "comparison": str(comparison.id), "run": str(run.id), "artifact": str(artifact.id), "share": share["id"],
        "share_token": share["token"], "webhook": webhook["id"], "delivery": str(delivery.id),
        "secret_name": secret["name"], "pool_slug": pool_slug, "enrollment_token": enrollment["id"],
        "api_token": str(token.id), "device": str(run.device_id or run.last_device_id),
        "runner": str(runner_api.runner.id),
        "imported_comparison": _created(imported)["id"],
        "membership": str(member.memberships.get(organization=organization).id),
    })
    invitation = owner.post("/api/v1/invitations", {"email": f"{MARK}@example.com"}, format="json")
    if invitation.status_code != 404:  # the endpoint exists (members and invitations)
        world.ids["invitation"] = _created(invitation)["id"]
    return world


# The organization the API tests build their world in, and its owner's credentials.
OWNER, OWNER_PASSWORD, POOL = f"{MARK}-owner", "pw-acme-owner", f"{MARK}-lab"


def acme_world() -> tuple[OrgWorld, Any]:
    """Organization "acme" with its owner (OWNER), its private pool (POOL) with a runner whose
    host device is host-lab-1, and one object of every kind; returns the world and the owner."""
    organization = organization_get_or_create(slug="acme", name="Acme")
    owner = user_ensure_member(organization=organization, username=OWNER, password=OWNER_PASSWORD)
    pool = pool_get_or_create(organization=organization, slug=POOL, name="Acme lab")
    runner, secret = runner_register(pool=pool, name=f"{MARK}-runner")
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "host-lab-1", "platform": "host", "model": "test", "os_version": "1"}])
    runner_api = APIClient()
    runner_api.credentials(HTTP_AUTHORIZATION=f"Runner {secret}")
    runner_api.runner = runner  # type: ignore[attr-defined]  # as conftest's runner_api carries it
    world = org_world_build(organization=organization, owner_username=OWNER, owner_password=OWNER_PASSWORD,
                            runner_api=runner_api, pool_slug=POOL)
    return world, owner


# ------------------------------------------------------------------------------ row snapshots

def project_models() -> list[type[models.Model]]:
    return [m for m in django_apps.get_models() if m.__module__.startswith("apps.")]


def _plain(value: Any) -> Any:
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def rows_snapshot() -> dict[tuple[str, Any], dict[str, Any]]:
    """Every row of every model of ours, by (model label, primary key)."""
    snapshot = {}
    for model in project_models():
        for row in model._default_manager.order_by("pk").values():
            snapshot[(model._meta.label, row[model._meta.pk.attname])] = {k: _plain(v) for k, v in row.items()}
    return snapshot


def owner_of(label: str, row: dict[str, Any], depth: int = 0) -> Any:
    """The organization a row belongs to: its own organization_id, else the first foreign key
    whose chain reaches one (a run → its comparison → the organization). None: shared (a hosted pool)."""
    if "organization_id" in row:
        return row["organization_id"]
    if depth > 4:
        return None
    model = django_apps.get_model(label)
    for model_field in model._meta.concrete_fields:
        if isinstance(model_field, models.ForeignKey) and row.get(model_field.attname) is not None:
            target = model_field.related_model
            parent = target._default_manager.filter(pk=row[model_field.attname]).values().first()
            if parent is not None:
                owner = owner_of(target._meta.label, parent, depth + 1)
                if owner is not None:
                    return owner
    return None


def rows_changed(before: dict, after: dict) -> list[tuple[str, Any, dict[str, Any]]]:
    """(model label, pk, the row as it is now or was before) of every row added, removed or changed."""
    changed = []
    for key in before.keys() | after.keys():
        if before.get(key) != after.get(key):
            changed.append((key[0], key[1], after.get(key) or before[key]))
    return changed


def owned_uuids(organization_id: Any) -> set[str]:
    """The UUID primary keys of every row of this organization's (what its id paths take)."""
    found = set()
    for (label, pk), row in rows_snapshot().items():
        if isinstance(pk, uuid.UUID) and owner_of(label, row) == organization_id:
            found.add(str(pk))
    return found
