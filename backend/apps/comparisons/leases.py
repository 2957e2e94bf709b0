"""What a lease token proves: the checks that every write under a run's lease goes through —
a block upload (apps.results.ingest.blocks), an artifact (artifacts), a finish
(apps.scheduler.leasing) — and the reason a runner hears when its lease no longer holds.

The lease itself is state of the run (status, lease_token, lease_expires_at,
lease_ended_at); the scheduler (apps.scheduler) grants, extends and reaps it. The checks
live here, beside the run, so that the writers need not depend on the scheduler."""

import secrets
from collections.abc import Callable
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from apps.core.errors import Conflict
from apps.devices.models import Runner

from .models import Run

# How long after a lease ended its holder may still upload artifacts (the log of the
# block that failed is complete only after the failure was reported).
ARTIFACT_GRACE_SECONDS = 600


def run_lock_under_lease(*, runner: Runner, run_id: str, lease_token: str) -> Run:
    """The run, locked, if this runner still holds its lease; 409 otherwise."""
    run = (
        Run.objects.select_related("device", "comparison")
        .select_for_update(of=("self",))
        # last_device: a run requeued after its lease expired has no device, and its last
        # holder still deserves to hear why (lease_lost_reason).
        .filter(Q(device__runner=runner) | Q(last_device__runner=runner), pk=run_id)
        .first()
    )
    return lease_check(run, lease_token=lease_token)


def lease_check(run: Run | None, *, lease_token: str, found: Callable[[Run], None] | None = None) -> Run:
    """`run` (locked, read where its device or its last device is this runner's; None: no
    such run) if `lease_token` is its lease and the lease has not expired; 409 otherwise.
    `found(run)` is called before the lease is checked."""
    if run is None:
        raise Conflict("This runner holds no lease on that run.")
    if found is not None:
        found(run)
    if run.status != Run.Status.LEASED or not secrets.compare_digest(run.lease_token, lease_token):
        raise Conflict(lease_lost_reason(run))
    # The server's clock alone judges a lease: a runner's clock may be minutes off.
    now = timezone.now()
    if run.lease_expires_at and run.lease_expires_at < now:
        raise Conflict(f"The lease on this run expired at {run.lease_expires_at.isoformat()} (server time; it is "
                       f"{now.isoformat()}): heartbeats or uploads must extend it. Stop this attempt; the run is "
                       f"requeued at its first missing block.")
    return run


def lease_lost_reason(run: Run) -> str:
    """Why a lease token no longer holds its run, for the runner's log (contract README, 409s)."""
    if run.status == Run.Status.CANCELLED:
        return "The comparison was cancelled: this run takes nothing more. Stop it."
    if run.status == Run.Status.QUEUED:
        return (f"The lease expired and the run was requeued; its next attempt resumes at block {run.next_block}. "
                "Stop this attempt.")
    if run.status == Run.Status.LEASED:
        return (f"The run was leased again (attempt {run.attempt}); this lease token belongs to an earlier "
                "attempt. Stop this attempt.")
    return f"The run has ended ({run.status}); it takes nothing more."


def run_lock_for_artifact(*, runner: Runner, run_id: str, lease_token: str) -> Run:
    """The run, locked, if this runner holds its lease — or held its last lease, which
    ended less than ARTIFACT_GRACE_SECONDS ago: the log of a failed block is only
    complete after the failure was reported. A newer lease ends that grace; 409 otherwise."""
    run = (
        Run.objects.select_related("last_device").select_for_update(of=("self",))
        .filter(pk=run_id, last_device__runner=runner).first()
    )
    if run is None or not run.lease_token or not secrets.compare_digest(run.lease_token, lease_token):
        raise Conflict("This runner holds no current or recent lease on that run.")
    now = timezone.now()
    if run.status == Run.Status.LEASED:
        if run.lease_expires_at and run.lease_expires_at < now:
            raise Conflict("The lease on this run expired.")
        return run
    grace = timedelta(seconds=ARTIFACT_GRACE_SECONDS)
    if run.status == Run.Status.CANCELLED or run.lease_ended_at is None or run.lease_ended_at + grace < now:
        raise Conflict(f"Artifacts are taken up to {ARTIFACT_GRACE_SECONDS} s after the lease "
                       "ends; this one ended earlier.")
    return run
