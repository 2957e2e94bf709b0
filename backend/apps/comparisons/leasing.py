"""The scheduler's side of the runner protocol (DESIGN §5.3): leases, heartbeats, the
lease check that block uploads (apps.results.blocks) go through, finishing, and the
reaper that requeues runs whose lease expired."""

import secrets
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from apps.core.errors import Conflict
from apps.devices.models import Device, Runner

from .models import Comparison, Run
from .services import comparison_complete_if_runs_done


def _lease_expiry() -> Any:
    return timezone.now() + timedelta(seconds=settings.RUNNER_LEASE_SECONDS)


def run_lease_payload(run: Run) -> dict[str, Any]:
    return {
        "run_id": str(run.id),
        "comparison_id": str(run.comparison_id),
        "lease_token": run.lease_token,
        "attempt": run.attempt,
        "next_block": run.next_block,
        "device_serial": run.device.serial if run.device else None,
        "lease_expires_at": run.lease_expires_at.isoformat() if run.lease_expires_at else None,
        "network_profile": {"name": run.network_profile, **run.network_profile_spec},
        "spec": run.comparison.spec,
    }


@transaction.atomic
def _lease_once(*, runner: Runner, serials: list[str]) -> list[Run]:
    now = timezone.now()
    devices = list(
        Device.objects.select_for_update(skip_locked=True)
        .filter(runner=runner, serial__in=serials)
        .exclude(state=Device.State.QUARANTINED)
        .exclude(runs__status=Run.Status.LEASED)
    )
    leased: list[Run] = []
    for device in devices:
        run = (
            Run.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(
                status=Run.Status.QUEUED,
                pool=device.pool,
                platforms__contains=[device.platform],
                comparison__status__in=[Comparison.Status.QUEUED, Comparison.Status.RUNNING],
            )
            # One device must not take two device-slots of the same comparison and profile:
            # that would be pseudo-replication in the device level of the statistics.
            .exclude(Exists(Run.objects.filter(comparison=OuterRef("comparison"),
                                               network_profile=OuterRef("network_profile"),
                                               device=device).exclude(slot=OuterRef("slot"))))
            .select_related("comparison")
            .order_by("comparison__created_at", "slot", "network_profile")
            .first()
        )
        if run is None:
            continue
        run.device = device
        run.status = Run.Status.LEASED
        run.attempt += 1
        run.lease_token = secrets.token_urlsafe(24)
        run.lease_expires_at = _lease_expiry()
        run.started_at = run.started_at or now
        run.save()
        device.state = Device.State.BUSY
        device.last_seen_at = now
        device.save(update_fields=["state", "last_seen_at", "updated_at"])
        Comparison.objects.filter(pk=run.comparison_id, status=Comparison.Status.QUEUED).update(
            status=Comparison.Status.RUNNING, started_at=now
        )
        leased.append(run)
    return leased


def lease_acquire(*, runner: Runner, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
    """Long-poll: look for work now and then every half second until wait_s has passed."""
    deadline = time.monotonic() + min(wait_s, settings.RUNNER_LEASE_WAIT_MAX_S)
    while True:
        runs = _lease_once(runner=runner, serials=serials)
        if runs or time.monotonic() >= deadline:
            return [run_lease_payload(run) for run in runs]
        time.sleep(0.5)


def run_lock_under_lease(*, runner: Runner, run_id: str, lease_token: str, runs: QuerySet[Run] | None = None,
                     found: Callable[[Run], None] | None = None) -> Run:
    """The run, locked, if this runner still holds its lease; 409 otherwise. `runs`: the
    queryset to read it with; `found(run)` is called before the lease is checked."""
    run = (
        (Run.objects.select_related("device", "comparison") if runs is None else runs)
        .select_for_update(of=("self",))
        .filter(pk=run_id, device__runner=runner)
        .first()
    )
    if run is None:
        raise Conflict("This runner holds no lease on that run.")
    if found is not None:
        found(run)
    if run.status != Run.Status.LEASED or not secrets.compare_digest(run.lease_token, lease_token):
        raise Conflict("The lease on this run was lost (expired, cancelled or re-leased).")
    if run.lease_expires_at and run.lease_expires_at < timezone.now():
        raise Conflict("The lease on this run expired.")
    return run


@transaction.atomic
def heartbeat_extend_leases(*, runner: Runner, runs: list[dict[str, str]]) -> list[dict[str, str]]:
    """Extend each listed lease still held; answer cancel_run for the ones that are not."""
    commands = []
    for item in runs:
        updated = Run.objects.filter(
            pk=item["run_id"], device__runner=runner, status=Run.Status.LEASED, lease_token=item["lease_token"]
        ).update(lease_expires_at=_lease_expiry())
        if not updated:
            commands.append({"type": "cancel_run", "run_id": item["run_id"]})
    return commands


def _release_device(run: Run) -> None:
    if run.device_id:
        Device.objects.filter(pk=run.device_id, state=Device.State.BUSY).update(state=Device.State.AVAILABLE)


def _requeue_or_fail(run: Run, reason: str) -> None:
    """Put the run back in the queue at its first incomplete block, or fail it after
    RUNNER_MAX_ATTEMPTS attempts with an infrastructure reason."""
    _release_device(run)
    run.lease_token = ""
    run.lease_expires_at = None
    if run.attempt >= settings.RUNNER_MAX_ATTEMPTS:
        run.status = Run.Status.FAILED
        run.error = f"infrastructure: {reason} (after {run.attempt} attempts)"
        run.finished_at = timezone.now()
    else:
        run.status = Run.Status.QUEUED
        run.error = f"attempt {run.attempt}: {reason}"
        run.device = None
    run.save()


@transaction.atomic
def run_finish(*, runner: Runner, run_id: str, report: dict[str, Any]) -> Run:
    run = run_lock_under_lease(runner=runner, run_id=run_id, lease_token=report["lease_token"])
    status = report["status"]
    run.fingerprint = report.get("fingerprint") or {}
    run.link = report.get("link") or {}
    if status == "infra_error":
        _requeue_or_fail(run, report.get("error") or "runner reported an infrastructure error")
    else:
        _release_device(run)
        complete = run.next_block >= run.blocks_total
        run.status = Run.Status.DONE if status == "ok" and complete else Run.Status.FAILED
        if status == "ok" and not complete:
            run.error = f"runner finished after {run.next_block} of {run.blocks_total} blocks"
        else:
            run.error = report.get("error") or ""
        run.lease_token = ""
        run.lease_expires_at = None
        run.finished_at = timezone.now()
        run.save()
    comparison_id = str(run.comparison_id)
    transaction.on_commit(lambda: comparison_complete_if_runs_done(comparison_id=comparison_id))
    return run


def leases_reap_expired() -> int:
    """Requeue runs whose lease expired; each in its own transaction."""
    reaped = 0
    expired_ids = list(
        Run.objects.filter(status=Run.Status.LEASED, lease_expires_at__lt=timezone.now()).values_list("id", flat=True)
    )
    for run_id in expired_ids:
        with transaction.atomic():
            run = Run.objects.select_for_update(skip_locked=True).filter(pk=run_id, status=Run.Status.LEASED).first()
            if run is None or run.lease_expires_at is None or run.lease_expires_at >= timezone.now():
                continue
            _requeue_or_fail(run, "lease expired")
            reaped += 1
            comparison_id = str(run.comparison_id)
            transaction.on_commit(partial(comparison_complete_if_runs_done, comparison_id=comparison_id))
    return reaped
