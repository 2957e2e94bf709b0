"""The scheduler's side of the runner protocol (device-runner/contract/README.md): device
reports, leases, heartbeats, finishing an attempt with a classification, and the reaper that
requeues runs whose lease expired. The checks a write under a lease goes through (block uploads, artifacts, a finish)
are the run's own (apps.comparisons.leases).

Lock order, everywhere: runs, then devices, then the runner (a finish holds its run, updates
the device, then counts a lab fault on the runner; a heartbeat extends its runs' leases, locks
the runner's devices, then touches the runner).

Who is blamed for a failed attempt is the contract's table (apps.comparisons.blame): only a
device fault counts towards the device's quarantine, a lab fault towards the runner's
breaker, and a customer-target fault fails the comparison alone."""

import secrets
import time
from datetime import timedelta
from functools import partial
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from apps.accounts.selectors import secret_values
from apps.comparisons.blame import CUSTOMER_TARGET, DEVICE, LAB, blame_of
from apps.comparisons.lab_capabilities import runs_this_device_cannot_take
from apps.comparisons.leases import run_lock_under_lease
from apps.comparisons.models import Arm, Comparison, Run, RunAttempt, RunBlock
from apps.comparisons.platforms import device_protocols, devices_supporting, run_protocols
from apps.comparisons.secret_refs import referenced_secret_names
from apps.comparisons.services import comparison_complete_if_runs_done, comparison_fail_for_target
from apps.comparisons.spec import wire_spec
from apps.core.admission import WorkSlots
from apps.core.bulk import rows_update
from apps.core.errors import Conflict
from apps.devices.models import Device, Runner
from apps.devices.services import (
    device_end_lease,
    devices_mark_leased,
    runner_heartbeat,
    runner_hello,
    runner_record_lab_fault,
    runner_record_lab_worked,
)

from .wakeups import runner_wakeup_key, runs_queued_in, wake_runner

# Devices that could take a run soon: not gone, not quarantined, not waiting for a human.
_UNFIT_STATES = (Device.State.OFFLINE, Device.State.QUARANTINED, Device.State.UNAUTHORIZED)
# Devices that take no lease now, whatever a lease request says: a long poll names the
# devices that were free when it was sent, and the runner's heartbeat may have reported
# one unplugged (or held by its readiness gate) since.
_NOT_LEASABLE_STATES = (*_UNFIT_STATES, Device.State.NOT_READY)
# How many queued runs a device may pass over (they failed on it and another device fits)
# before it takes nothing this round.
_MAX_PASSED_OVER = 10
_ERROR_LINE_MAX = 600


def _lease_expiry() -> Any:
    return timezone.now() + timedelta(seconds=settings.RUNNER_LEASE_SECONDS)


def device_label(device: Device | None) -> str:
    if device is None:
        return "no device"
    return f"{device.model} ({device.serial})" if device.model else device.serial


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
        # A hosted pool's runner checks every customer host again after its own DNS lookup and
        # pins the connection to the address it checked (comparisons/target_policy.py).
        "pool_kind": run.pool.kind,
        # Only the secrets this run's spec references, decrypted for this lease; the runner
        # substitutes them in memory and drops them after the run (runner protocol README).
        "secrets": secret_values(organization_id=run.comparison.organization_id,
                                 names=referenced_secret_names(run.comparison.spec)),
        # A run-until-decided spec goes out with the run's current block count (spec.wire_spec).
        "spec": wire_spec(run.comparison.spec, blocks=run.blocks_total),
    }


def _lock_devices(runner: Runner) -> tuple[list[Device], set[UUID]]:
    """Lock the runner's devices (read whole: the report applied next writes them), then
    read which of them hold a live lease: a lease taken concurrently either committed before
    (seen here) or waits for these locks."""
    devices = list(Device.objects.select_for_update().filter(runner=runner))
    leased = set(Run.objects.filter(status=Run.Status.LEASED, device__runner=runner)
                 .values_list("device_id", flat=True))
    return devices, leased


@transaction.atomic
def hello_receive(*, runner: Runner, info: dict[str, Any], devices: list[dict[str, Any]]) -> list[Device]:
    locked, leased = _lock_devices(runner)
    return runner_hello(runner=runner, info=info, devices=devices, leased_device_ids=leased, locked=locked)


@transaction.atomic
def heartbeat_receive(*, runner: Runner, devices: list[dict[str, Any]],
                      runs: list[dict[str, str]]) -> dict[str, Any]:
    """Extend each listed lease still held (cancel_run for the others), then apply the
    device descriptors. Returns the commands, the new lease expiry and the devices'
    effective states (a quarantined device is not offered for leases).

    In a number of queries that grows with neither the runs held nor the devices: one
    UPDATE extends the leases (none when no run is listed), one locks and reads the
    devices, one reads their live leases, one touches the runner, and, in most heartbeats
    (nothing reported changed), one UPDATE sets the devices' last_seen_at
    (devices.services.runner_devices_report)."""
    extended = heartbeat_extend_leases(runner=runner, runs=runs)
    went_offline: set[str] = set()
    locked, leased = _lock_devices(runner)
    stored = runner_heartbeat(runner=runner, devices=devices, leased_device_ids=leased, went_offline=went_offline,
                              locked=locked)
    if went_offline:
        # The runner's waiting lease request answers now (lease_acquire), at this commit: an
        # agent that is stopping reports its free devices offline and exits without waiting
        # out its long-poll, and one whose phone was unplugged asks again for the rest.
        wake_runner(runner.pk)
    return {**extended, "devices": [{"serial": d.serial, "state": d.state, "reason": d.state_reason}
                                    for d in stored]}


def _another_device_fits(run: Run, device: Device) -> bool:
    """Whether a device other than the ones this run failed on could take it: same pool, a
    wanted platform, measures every arm's protocol, not gone or quarantined, and not
    already holding another slot of the same comparison and profile."""
    return (
        Device.objects.filter(devices_supporting(run_protocols(run.comparison.spec)), pool_id=run.pool_id,
                              platform__in=run.platforms)
        .exclude(pk__in=[device.pk, *run.failed_device_ids])
        .exclude(state__in=_UNFIT_STATES)
        .exclude(runner__breaker_tripped_at__isnull=False)
        .exclude(Exists(Run.objects.filter(comparison_id=run.comparison_id, network_profile=run.network_profile,
                                           device=OuterRef("pk")).exclude(slot=run.slot)))
        .exists()
    )


def _next_run_for(device: Device, *, taken: list[UUID]) -> UUID | None:
    """The id of the run this device takes next, locked; `taken`: runs this lease request
    already took for the runner's other devices.

    One query per look (`LIMIT 1 … FOR UPDATE SKIP LOCKED`), which walks the partial index of
    the device's platform's queue (run_queue_<platform>_idx) in its pool in lease order and
    stops at the first row it may take. That index holds only what the device's platform may
    take and no run of a suspended organization (queue_order is empty while it is suspended,
    migration 0009_run_queue_eligibility), so what the pick reads is the runs ahead of the one
    it takes that it passes for reasons of its own (locked by another lease, another slot of a
    comparison and profile this device has taken, a protocol or profile its lab cannot do, …),
    not the backlog behind it nor another platform's or a suspended organization's runs ahead.
    A run that failed on this device and fits another one is passed over: two more queries
    each, for at most _MAX_PASSED_OVER looks, so at most 3 × _MAX_PASSED_OVER queries, and one
    when no run ahead failed on this device."""
    candidates = (
        Run.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(
            status=Run.Status.QUEUED,
            # Out of the queue while its organization is suspended: with the platform (a literal,
            # bound on the client), what makes the platform's partial index the one to walk.
            queue_order__isnull=False,
            pool_id=device.pool_id,
            platforms__contains=[device.platform],
            comparison__status__in=[Comparison.Status.QUEUED, Comparison.Status.RUNNING],
            # A suspended organization's runs wait until an operator reinstates it (said twice:
            # queue_order is the index's; this, the organization's own word).
            comparison__organization__suspended_at__isnull=True,
        )
        .exclude(pk__in=taken)
        # One device must not take two device-slots of the same comparison and profile:
        # that would be pseudo-replication in the device level of the statistics.
        .exclude(Exists(Run.objects.filter(comparison=OuterRef("comparison"),
                                           network_profile=OuterRef("network_profile"),
                                           device=device).exclude(slot=OuterRef("slot"))))
        # A run extended by run-until-decided keeps its device: another device takes it only
        # when that one is gone or quarantined.
        .exclude(Q(device__isnull=False) & ~Q(device=device) & ~Q(device__state__in=_UNFIT_STATES))
        # Oldest comparison first: the order of the platform's partial index run_queue_<platform>_idx
        # (queue_order is the comparison's created_at, models.Run), so PostgreSQL walks the pool's
        # queue from the front and stops at the first row that passes every filter and is not
        # locked, rather than sorting the whole queue first.
        .order_by("queue_order", "slot", "network_profile")
        # Only the id and what the pass-over needs (the full run is read once it is chosen).
        .values_list("pk", "failed_device_ids")
    )
    protocols = device_protocols(device.capabilities)
    if protocols is not None:
        # Not the runs with an arm this device's harness cannot measure (platforms.py).
        candidates = candidates.exclude(Exists(Arm.objects.filter(comparison=OuterRef("comparison"))
                                               .exclude(protocol__in=protocols)))
    if unable := runs_this_device_cannot_take(device.capabilities, device.platform):
        # Not the runs its lab cannot do: a profile it cannot shape, Android h3 against a
        # reference target with a private certificate (lab_capabilities.py).
        candidates = candidates.exclude(unable)
    passed_over: list[UUID] = []
    for _ in range(_MAX_PASSED_OVER):
        found = candidates.exclude(pk__in=passed_over).first()
        if found is None:
            return None
        run_id, failed_device_ids = found
        # A run that failed on this device goes to another one when another fits; when
        # none does, this device may try again.
        if device.pk not in failed_device_ids or not _another_device_fits(
                Run.objects.select_related("comparison").get(pk=run_id), device):
            return run_id
        passed_over.append(run_id)
    return None


@transaction.atomic
def _lease_once(*, runner: Runner, serials: list[str]) -> list[Run]:
    """One look for work for the runner's free devices. Bounded by the number of devices D
    named, never by the backlog: one query locks the devices and one reads which of them may
    take a run, each device's pick is one query (_next_run_for; at most 3 × _MAX_PASSED_OVER
    when runs that failed on it are passed over), and six more read the chosen runs and write
    them, their attempts and the devices together (D + 8 queries in all, besides the
    transaction's own; at most 3 × _MAX_PASSED_OVER × D + 8)."""
    now = timezone.now()
    # The devices named, locked in one order, waiting for a transaction that holds them (the
    # runner's heartbeat, another lease request of it) rather than skipping them: a lease that
    # skipped them came away empty and waited for the next recheck of the queue (up to
    # wakeups.RECHECK_S) while its devices idled. Only the devices' rows (`of`): the runner's
    # row, which the heartbeat writes, is no business of a lease.
    locked = list(Device.objects.select_for_update(of=("self",))
                  .filter(runner=runner, serial__in=serials).order_by("pk").values_list("pk", flat=True))
    # Whether each may take a run, asked after the locks are held: a statement of its own sees
    # what the transaction that held them committed (a lease it took), as the lock's recheck of
    # the locked row alone would not.
    devices = list(
        Device.objects.filter(pk__in=locked)
        # A runner whose breaker tripped (lab faults in a row) takes nothing until it is reset.
        .filter(runner__breaker_tripped_at__isnull=True)
        .exclude(state__in=_NOT_LEASABLE_STATES)
        .exclude(runs__status=Run.Status.LEASED)
        .order_by("pk")
    )
    chosen: dict[UUID, Device] = {}
    for device in devices:
        run_id = _next_run_for(device, taken=list(chosen))
        if run_id is not None:
            chosen[run_id] = device
    if not chosen:
        return []
    found = Run.objects.select_related("comparison", "pool").in_bulk(list(chosen))
    leased = [found[run_id] for run_id in chosen]
    for run in leased:
        device = chosen[run.pk]
        run.device = device
        run.last_device = device
        run.status = Run.Status.LEASED
        run.attempt += 1
        run.lease_token = secrets.token_urlsafe(24)
        run.lease_expires_at = _lease_expiry()
        run.lease_ended_at = None
        run.started_at = run.started_at or now
        run.updated_at = now
    rows_update(Run, leased, ["device", "last_device", "status", "attempt", "lease_token", "lease_expires_at",
                              "lease_ended_at", "started_at", "updated_at"])
    RunAttempt.objects.bulk_create([RunAttempt(run=run, number=run.attempt, device=run.device, started_at=now)
                                    for run in leased])
    devices_mark_leased(leases=[(chosen[run.pk], f"running {run.comparison.name!r} ({run.network_profile}), "
                                                 f"attempt {run.attempt}") for run in leased])
    Comparison.objects.filter(pk__in={run.comparison_id for run in leased}, status=Comparison.Status.QUEUED).update(
        status=Comparison.Status.RUNNING, started_at=now
    )
    return leased


def release_connection() -> None:
    """Give the thread's database connection back: a farm of runners long-polls on as many
    web threads, which must not hold a connection each while they wait, nor keep one
    after. Not inside a transaction (a test's), which must keep its connection."""
    if not connection.in_atomic_block:
        connection.close()


# The runner protocol's requests a web process works on at once (apps.core.admission): the API
# holds one for each request, a long-poll lends it back while it waits, and a look for work
# takes one when called outside a request. A woken herd of waiting runners looks for work a few
# at a time, each queued without a database connection.
RUNNER_WORK = WorkSlots(settings.RUNNER_WORK_SLOTS)


def _look(*, runner: Runner, serials: list[str]) -> list[dict[str, Any]]:
    with RUNNER_WORK.held(before_waiting=release_connection):
        try:
            return [run_lease_payload(run) for run in _lease_once(runner=runner, serials=serials)]
        finally:
            release_connection()


def lease_acquire(*, runner: Runner, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
    """Long-poll: look for work now; if there is none, wait — holding no database
    connection — until the process's listener says a run was queued in the runner's pool
    or its recheck found queued runs there (apps.scheduler.wakeups), and look again,
    until wait_s has passed. A farm of idle runners costs the database one query per web
    process every few seconds, not a query per runner. It answers at once, with no runs,
    when a heartbeat of the same runner takes one of its devices offline."""
    deadline = time.monotonic() + min(wait_s, settings.RUNNER_LEASE_WAIT_MAX_S)
    # A runner's devices are all in its pool (devices.services.runner_devices_report).
    own = runner_wakeup_key(runner.pk)
    with runs_queued_in({str(runner.pool_id), own}) as wakeup:
        while True:
            runs = _look(runner=runner, serials=serials)
            remaining = deadline - time.monotonic()
            if runs or remaining <= 0:
                return runs
            with RUNNER_WORK.lent():
                wakeup.wait(timeout=remaining)
            if wakeup.woken_for(own):
                # A heartbeat of this runner took a device offline (heartbeat_receive): the
                # runner is stopping, or asks again for the devices it still has.
                return []


def heartbeat_extend_leases(*, runner: Runner, runs: list[dict[str, str]]) -> dict[str, Any]:
    """Extend each listed lease still held; answer cancel_run for the ones that are not.
    One statement however many runs are listed: it locks the runs it extends in run-id order
    (the inner SELECT … ORDER BY id FOR UPDATE), so two transactions lock runs in the same
    order. A lease past its expiry is not held, even before the reaper requeued its run:
    uploads are refused from that moment (run_lock_under_lease), so a heartbeat must not
    revive it."""
    now = timezone.now()
    expires = now + timedelta(seconds=settings.RUNNER_LEASE_SECONDS)
    held: set[tuple[UUID, str]] = set()  # (run, lease token): a listed pair whose lease holds
    if runs:
        with connection.cursor() as cursor:
            cursor.execute(_EXTEND_LEASES, {
                "expires": expires, "now": now, "runner": runner.pk, "leased": Run.Status.LEASED.value,
                "ids": [UUID(item["run_id"]) for item in runs], "tokens": [item["lease_token"] for item in runs]})
            held = {(run_id, token) for run_id, token in cursor.fetchall()}
    commands = [{"type": "cancel_run", "run_id": item["run_id"]} for item in sorted(runs, key=lambda r: r["run_id"])
                if (UUID(item["run_id"]), item["lease_token"]) not in held]
    return {"commands": commands, "lease_expires_at": expires if held else None}


_EXTEND_LEASES = f"""
UPDATE {Run._meta.db_table} SET lease_expires_at = %(expires)s
WHERE id IN (
    SELECT run.id FROM {Run._meta.db_table} run
    JOIN unnest(%(ids)s::uuid[], %(tokens)s::text[]) AS listed (id, token)
        ON listed.id = run.id AND listed.token = run.lease_token
    JOIN {Device._meta.db_table} device ON device.id = run.device_id
    WHERE device.runner_id = %(runner)s AND run.status = %(leased)s AND run.lease_expires_at >= %(now)s
    ORDER BY run.id
    FOR UPDATE OF run)
RETURNING id, lease_token"""  # noqa: S608 — table names from the models, every value a parameter


def _attempt_line(run: Run, device: Device | None, kind: str, error: str) -> str:
    line = f"attempt {run.attempt} on {device_label(device)}: {kind}" + (f": {error}" if error else "")
    return line[:_ERROR_LINE_MAX]


def _attempt_ended(run: Run, how: str) -> str:
    return f"attempt {run.attempt} of {run.comparison.name!r} ({run.network_profile}) ended: {how}"


def _end_attempt(run: Run, outcome: str, *, kind: str = "", error: str = "") -> None:
    RunAttempt.objects.filter(run=run, number=run.attempt).update(outcome=outcome, error_kind=kind, error=error,
                                                                  ended_at=timezone.now())


def _requeue_or_fail(run: Run, *, kind: str, error: str) -> None:
    """Put the run back in the queue at its first incomplete block — preferring another
    device than the one it failed on — or fail it after RUNNER_MAX_ATTEMPTS attempts.
    `error` accumulates one line per failed attempt. The kind's blame says what it counts
    against: a device fault the device's quarantine, a lab fault the runner's breaker, a
    runner fault (or an expired lease: the runner went quiet) nothing."""
    device = run.device
    blame = blame_of(kind)
    if device is not None:
        label = f"{run.comparison_id}/{run.pk}"
        device_end_lease(device_id=device.pk, why=_attempt_ended(run, kind), counts=blame == DEVICE,
                         infra_error_kind=kind, error=error, run_label=label)
        if blame == LAB:
            runner_record_lab_fault(runner_id=device.runner_id, kind=kind, error=error, run_label=label)
        if device.pk not in run.failed_device_ids:
            run.failed_device_ids = [*run.failed_device_ids, device.pk]
    earlier = [line for line in run.error.splitlines() if line.startswith("attempt ")]
    line = _attempt_line(run, device, kind, error)
    lines = [*earlier, line]
    _end_attempt(run, RunAttempt.Outcome.LEASE_EXPIRED if kind == Run.ErrorKind.LEASE_EXPIRED
                 else RunAttempt.Outcome.INFRA_ERROR, kind=kind, error=line)
    run.error_kind = kind
    run.lease_expires_at = None
    run.lease_ended_at = timezone.now()
    # Failed attempts, not leases: a run-until-decided run is leased again at each look.
    if len(lines) >= settings.RUNNER_MAX_ATTEMPTS:
        run.status = Run.Status.FAILED
        run.error = "\n".join([f"infrastructure: failed after {len(lines)} attempts", *lines])
        run.finished_at = timezone.now()
    else:
        run.status = Run.Status.QUEUED
        run.error = "\n".join(lines)
        run.device = None
    run.save()


def _refuse_ok_with_missing_blocks(run: Run) -> None:
    """`ok` means every block is stored. A run is never done with holes: the lease is kept,
    so the runner may still upload the missing blocks and finish again; a runner that
    gives up lets the lease expire, and the next attempt resumes at the first missing block."""
    stored = set(RunBlock.objects.filter(run=run).values_list("block", flat=True))
    missing = [block for block in range(run.blocks_total) if block not in stored]
    if missing:
        shown = ", ".join(map(str, missing[:20])) + (f" … ({len(missing)} in all)" if len(missing) > 20 else "")
        raise Conflict(f"status ok, but block{'s' if len(missing) > 1 else ''} {shown} of 0…{run.blocks_total - 1} "
                       "not stored: upload them, then finish again (or finish failed or infra_error). "
                       "Nothing was changed; the lease still holds.",
                       extra={"missing_blocks": missing})


@transaction.atomic
def run_finish(*, runner: Runner, run_id: str, report: dict[str, Any]) -> Run:
    """End an attempt as the runner classified it (FinishInputSerializer checked that the
    error_kind fits the status): `infra_error` requeues, anything else ends the run."""
    run = run_lock_under_lease(runner=runner, run_id=run_id, lease_token=report["lease_token"])
    status = report["status"]
    if status == "ok":
        _refuse_ok_with_missing_blocks(run)
    error = (report.get("error") or "").strip()
    run.fingerprint = report.get("fingerprint") or {}
    run.link = report.get("link") or {}
    if status == "infra_error":
        _requeue_or_fail(run, kind=report.get("error_kind") or Run.ErrorKind.RUNNER_FAULT, error=error)
    else:
        kind = "" if status == "ok" else report.get("error_kind") or Run.ErrorKind.TEST_FAILURE
        customer_fault = bool(kind) and blame_of(kind) == CUSTOMER_TARGET
        if run.device_id:
            # The device ran the harness (ok, or a test that failed): its count starts again,
            # and so does its runner's, whose lab served it. A customer's endpoint that did not
            # answer says nothing of either.
            device_end_lease(device_id=run.device_id, why=_attempt_ended(run, kind or "ok"), counts=not customer_fault)
            if not customer_fault and run.device is not None:
                runner_record_lab_worked(runner_id=run.device.runner_id)
        run.status = Run.Status.DONE if status == "ok" else Run.Status.FAILED
        run.error_kind = kind
        run.error = _attempt_line(run, run.device, kind, error) if kind else ""
        if customer_fault:
            # The comparison's own endpoint: every run of it would fail the same way.
            message = f"{kind}: {error}" if error else kind
            comparison_id = str(run.comparison_id)
            transaction.on_commit(partial(comparison_fail_for_target, comparison_id=comparison_id, error=message))
        _end_attempt(run, RunAttempt.Outcome.OK if run.status == Run.Status.DONE else RunAttempt.Outcome.FAILED,
                     kind=run.error_kind, error=run.error)
        run.lease_expires_at = None
        run.lease_ended_at = timezone.now()
        run.finished_at = timezone.now()
        run.save()
    comparison_id = str(run.comparison_id)
    transaction.on_commit(lambda: comparison_complete_if_runs_done(comparison_id=comparison_id))
    return run


def leases_reap_expired() -> int:
    """Requeue runs whose lease expired; each in its own transaction. An expired lease
    means the runner went quiet, not that the device failed: it does not count towards
    the device's quarantine, but the run still prefers another device."""
    reaped = 0
    expired_ids = list(
        Run.objects.filter(status=Run.Status.LEASED, lease_expires_at__lt=timezone.now()).values_list("id", flat=True)
    )
    for run_id in expired_ids:
        with transaction.atomic():
            run = (Run.objects.select_for_update(skip_locked=True, of=("self",)).select_related("device", "comparison")
                   .filter(pk=run_id, status=Run.Status.LEASED).first())
            if run is None or run.lease_expires_at is None or run.lease_expires_at >= timezone.now():
                continue
            _requeue_or_fail(run, kind=Run.ErrorKind.LEASE_EXPIRED, error="the runner stopped extending the lease")
            reaped += 1
            comparison_id = str(run.comparison_id)
            transaction.on_commit(partial(comparison_complete_if_runs_done, comparison_id=comparison_id))
    return reaped
