from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Organization
from apps.core.errors import ApplicationError
from apps.core.tokens import digest, new_secret, visible_prefix

from .models import Device, DevicePool, Runner


@transaction.atomic
def pool_get_or_create(*, organization: Organization, slug: str, name: str) -> DevicePool:
    pool, _ = DevicePool.objects.get_or_create(
        organization=organization, slug=slug, defaults={"name": name, "kind": DevicePool.Kind.PRIVATE}
    )
    return pool


@transaction.atomic
def runner_register(*, pool: DevicePool, name: str, secret: str | None = None) -> tuple[Runner, str]:
    """Create (or re-key) a runner; returns the secret, shown once. An operator may bring
    the secret (so a restarted lab keeps its agents' token); it must be long enough."""
    if secret is not None and len(secret) < 32:
        raise ApplicationError("runner token: at least 32 characters")
    secret = secret or new_secret("r")
    runner, _ = Runner.objects.update_or_create(
        pool=pool, name=name, defaults={"token_prefix": visible_prefix(secret), "token_hash": digest(secret)}
    )
    return runner, secret


@transaction.atomic
def runner_hello(*, runner: Runner, info: dict[str, Any], devices: list[dict[str, Any]]) -> list[Device]:
    now = timezone.now()
    runner.version = str(info.get("version", ""))[:32]
    runner.hostname = str(info.get("hostname", ""))[:200]
    runner.drivers = list(info.get("drivers", []))
    runner.last_seen_at = now
    runner.save()
    stored = []
    for d in devices:
        if d["platform"] not in Device.Platform.values:
            raise ApplicationError(f"devices: platform must be one of {Device.Platform.values}")
        device, _ = Device.objects.update_or_create(
            runner=runner,
            serial=d["serial"],
            defaults={
                "pool": runner.pool,
                "platform": d["platform"],
                "model": d.get("model", ""),
                "os_version": d.get("os_version", ""),
                "capabilities": d.get("capabilities", {}),
                "state": Device.State.AVAILABLE,
                "last_seen_at": now,
            },
        )
        stored.append(device)
    return stored


@transaction.atomic
def runner_heartbeat(*, runner: Runner, devices: list[dict[str, Any]]) -> None:
    now = timezone.now()
    Runner.objects.filter(pk=runner.pk).update(last_seen_at=now)
    for d in devices:
        updates: dict[str, Any] = {"last_seen_at": now}
        for field in ("battery", "temperature"):
            if d.get(field) is not None:
                updates[field] = d[field]
        if d.get("state") in (Device.State.AVAILABLE, Device.State.BUSY):
            updates["state"] = d["state"]
        Device.objects.filter(runner=runner, serial=d["serial"]).exclude(
            state=Device.State.QUARANTINED
        ).update(**updates)


def devices_mark_silent_offline() -> int:
    """A device silent for RUNNER_OFFLINE_SECONDS is offline (DESIGN §5.3)."""
    cutoff = timezone.now() - timedelta(seconds=settings.RUNNER_OFFLINE_SECONDS)
    return Device.objects.filter(
        state__in=[Device.State.AVAILABLE, Device.State.BUSY], last_seen_at__lt=cutoff
    ).update(state=Device.State.OFFLINE)
