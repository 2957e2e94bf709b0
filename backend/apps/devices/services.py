"""Writes for pools, runners and devices. Every change of a device's effective state goes
through `_set_state`, which records it (DeviceStateChange) with its reason."""

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.actor import NO_ACTOR, Actor
from apps.core.bulk import rows_update
from apps.core.errors import ApplicationError, Conflict
from apps.core.events import publish
from apps.core.operator_reason import operator_reason
from apps.core.tokens import digest, new_secret, visible_prefix

from .events import DEVICE_QUARANTINE_RELEASED, RUNNER_BREAKER_RESET
from .models import Device, DevicePool, DeviceStateChange, EnrollmentToken, Runner

# Three infrastructure failures in a row on one device (contract README, "Finishing with a
# classification"): the device is taken out of scheduling until an admin releases it.
QUARANTINE_AFTER_INFRA_FAILURES = 3
# Three lab faults in a row on one runner (its reference target, shaping or harness build):
# the runner's breaker trips, and none of its devices is leased until an admin resets it.
BREAKER_AFTER_LAB_FAULTS = 3
ENROLLMENT_TOKEN_DEFAULT_DAYS = 7
ENROLLMENT_TOKEN_MAX_DAYS = 90
DISCONNECTED = "disconnected"


@transaction.atomic
def pool_get_or_create(*, organization: Any, slug: str, name: str) -> DevicePool:
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


# --- enrollment -----------------------------------------------------------------------


@transaction.atomic
def enrollment_token_create(*, pool: DevicePool, created_by: User | AnonymousUser | None, name: str = "",
                            expires_in_days: int = ENROLLMENT_TOKEN_DEFAULT_DAYS) -> tuple[EnrollmentToken, str]:
    """Returns the token row and its secret, which is shown once and never stored."""
    if not 1 <= expires_in_days <= ENROLLMENT_TOKEN_MAX_DAYS:
        raise ApplicationError(f"expires_in_days: between 1 and {ENROLLMENT_TOKEN_MAX_DAYS}",
                               extra={"expires_in_days": [f"between 1 and {ENROLLMENT_TOKEN_MAX_DAYS}"]})
    if pool.kind != DevicePool.Kind.PRIVATE:
        raise ApplicationError("Hosted pools are enrolled by LatencyLab, not by an organization.", status_code=403)
    secret = new_secret("e")
    token = EnrollmentToken.objects.create(
        pool=pool,
        created_by=created_by if isinstance(created_by, User) else None,
        name=name,
        prefix=visible_prefix(secret),
        token_hash=digest(secret),
        expires_at=timezone.now() + timedelta(days=expires_in_days),
    )
    return token, secret


@transaction.atomic
def enrollment_token_revoke(*, token: EnrollmentToken) -> EnrollmentToken:
    """Idempotent: revoking twice keeps the first revocation time. Runners enrolled with
    it keep their own tokens."""
    EnrollmentToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db()
    return token


@transaction.atomic
def runner_enroll(*, token: EnrollmentToken, name: str, hostname: str, version: str,
                  drivers: list[str]) -> tuple[Runner, str]:
    """A lab host enrolls itself with a pool enrollment token; returns the new runner and
    its own token (shown once). 409 when the pool already has a runner of that name."""
    secret = new_secret("r")
    try:
        with transaction.atomic():  # a savepoint: the unique constraint decides races too
            runner = Runner.objects.create(
                pool=token.pool, name=name, hostname=hostname, version=version, drivers=drivers,
                token_prefix=visible_prefix(secret), token_hash=digest(secret), enrolled_with=token,
            )
    except IntegrityError:
        raise Conflict(f"Pool {token.pool.slug!r} already has a runner named {name!r}.",
                       extra={"name": [f"already taken in pool {token.pool.slug!r}"]}) from None
    EnrollmentToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return runner, secret


# --- device state ---------------------------------------------------------------------


def _set_state(device: Device, state: str, reason: str, *, now: datetime, changed_by: User | None = None,
               note: str | None = None, changes: list[DeviceStateChange] | None = None) -> None:
    """Set the effective state and its reason (not saved); a change is recorded with
    `note` (default: the reason), which may say more than the device's bounded field —
    at once, or appended to `changes` when given, for the caller to insert together."""
    if device.state != state:
        change = DeviceStateChange(device=device, from_state=device.state, to_state=state,
                                   reason=(reason if note is None else note)[:1000], changed_by=changed_by, at=now)
        if changes is None:
            change.save()
        else:
            changes.append(change)
    device.state = state
    device.state_reason = reason[:500]


def _state_from_report(device: Device, *, leased: bool) -> tuple[str, str]:
    """The effective state: quarantine outranks everything the runner says, and a device
    under a live lease stays busy whatever the runner reports until the run ends."""
    if device.state == Device.State.QUARANTINED:
        return Device.State.QUARANTINED, device.state_reason
    if leased:
        if device.reported_state in (Device.State.AVAILABLE, Device.State.BUSY):
            reason = device.state_reason if device.state == Device.State.BUSY else "running a leased run"
            return Device.State.BUSY, reason
        return Device.State.BUSY, f"leased; the runner reports it {device.reported_state}: {device.reported_reason}"
    return device.reported_state, device.reported_reason


def _state_after_lease_or_quarantine(device: Device) -> tuple[str, str]:
    """What the runner last said, where "busy" (it ran our run) means free now."""
    if device.reported_state in (Device.State.AVAILABLE, Device.State.BUSY):
        return Device.State.AVAILABLE, ""
    return device.reported_state, device.reported_reason


_DESCRIPTOR_FIELDS = ("platform", "model", "os_version", "capabilities", "battery", "charging", "temperature",
                      "thermal_status", "fingerprint")


def _apply_descriptor(device: Device, descriptor: dict[str, Any], *, default_state: str | None) -> None:
    """Copy what the runner reported; a field it left out keeps its value (old agents send
    only serial and state in heartbeats)."""
    for field in _DESCRIPTOR_FIELDS:
        if field in descriptor:
            value = descriptor[field]
            setattr(device, field, "" if value is None and field == "thermal_status" else value)
    state = descriptor.get("state") or default_state
    if state is not None:
        device.reported_state = state
        reason = descriptor.get("reason") or ""
        if not reason and state == Device.State.BUSY:
            reason = "the runner reports it busy"
        device.reported_reason = reason


# What a report may change on a device it lists: the descriptor, what the runner says and the
# effective state (besides last_seen_at, which every report sets).
_REPORTED_FIELDS = (*_DESCRIPTOR_FIELDS, "reported_state", "reported_reason", "state", "state_reason")


@transaction.atomic(savepoint=False)
def runner_devices_report(*, runner: Runner, devices: list[dict[str, Any]], full_list: bool = True,
                          leased_device_ids: frozenset[UUID] | set[UUID] = frozenset(),
                          default_state: str | None = None, went_offline: set[str] | None = None,
                          locked: list[Device] | None = None) -> list[Device]:
    """Apply a runner's device descriptors (hello, heartbeat): devices appear (upsert by
    serial), change state, and — when `full_list` — a device it reported before and no
    longer lists goes offline with reason `disconnected`. The caller locks the runner's
    devices and passes the ones under a live lease (apps.scheduler.leasing), and the locked
    rows as `locked` (read here, locked, when not given). The serials this report took
    offline (the runner says so, or no longer lists them) are added to `went_offline`, when
    given.

    However many devices: one INSERT for the devices reported for the first time, one for
    the state changes (only real changes are recorded), and one UPDATE for the devices
    reported before — of last_seen_at alone when nothing else they report changed, as in
    most heartbeats."""
    now = timezone.now()
    if locked is None:
        locked = list(Device.objects.select_for_update().filter(runner=runner))
    known = {d.serial: d for d in locked}
    reported_before = {serial: device.reported_state for serial, device in known.items()}
    stored: list[Device] = []
    appeared: list[Device] = []
    seen: list[Device] = []  # reported before, listed now
    changed_fields: set[str] = set()
    changes: list[DeviceStateChange] = []
    for index, descriptor in enumerate(devices):
        before: list[Any] | None = None
        device = known.pop(descriptor["serial"], None)
        if device is None:
            if not descriptor.get("platform"):
                raise ApplicationError(
                    f"devices[{index}].platform: required for a device not reported before",
                    extra={f"devices[{index}].platform": ["required for a device not reported before"]})
            device = Device(runner=runner, pool=runner.pool, serial=descriptor["serial"],
                            state=Device.State.OFFLINE, reported_state=Device.State.OFFLINE)
            appeared.append(device)
        else:
            seen.append(device)
            before = [getattr(device, name) for name in _REPORTED_FIELDS]
        _apply_descriptor(device, descriptor, default_state=default_state)
        device.last_seen_at = device.updated_at = now
        state, reason = _state_from_report(device, leased=device.pk in leased_device_ids)
        said = f"reported by runner {runner.name}" + (" (new device)" if before is None else "")
        _set_state(device, state, reason, now=now, note=f"{reason} ({said})" if reason else said, changes=changes)
        if before is not None:
            changed_fields.update(name for name, value in zip(_REPORTED_FIELDS, before, strict=True)
                                  if getattr(device, name) != value)
        stored.append(device)
    gone: list[Device] = []
    if full_list:
        for device in known.values():
            if device.reported_state == Device.State.OFFLINE and device.reported_reason == DISCONNECTED:
                continue
            device.reported_state, device.reported_reason = Device.State.OFFLINE, DISCONNECTED
            state, reason = _state_from_report(device, leased=device.pk in leased_device_ids)
            note = f"{DISCONNECTED} (no longer listed by runner {runner.name})"
            _set_state(device, state, reason, now=now, note=note, changes=changes)
            device.updated_at = now
            changed_fields.update(("reported_state", "reported_reason", "state", "state_reason"))
            gone.append(device)
    if appeared:
        Device.objects.bulk_create(appeared)
    if changed_fields:
        # Every row written gets its own values back for the fields it did not change: they
        # were read under the lock. A device no longer listed keeps its last_seen_at.
        rows_update(Device, [*seen, *gone], ["last_seen_at", "updated_at", *sorted(changed_fields)])
    elif seen:
        Device.objects.filter(pk__in=[device.pk for device in seen]).update(last_seen_at=now, updated_at=now)
    if changes:
        DeviceStateChange.objects.bulk_create(changes)
    if went_offline is not None:
        went_offline.update(device.serial for device in [*stored, *known.values()]
                            if device.reported_state == Device.State.OFFLINE
                            and reported_before.get(device.serial, Device.State.OFFLINE) != Device.State.OFFLINE)
    return stored


@transaction.atomic(savepoint=False)
def runner_hello(*, runner: Runner, info: dict[str, Any], devices: list[dict[str, Any]],
                 leased_device_ids: frozenset[UUID] | set[UUID] = frozenset(),
                 locked: list[Device] | None = None) -> list[Device]:
    runner.version = str(info.get("version", ""))[:32]
    runner.hostname = str(info.get("hostname", ""))[:200]
    runner.drivers = list(info.get("drivers", []))
    runner.last_seen_at = timezone.now()
    runner.save()
    # A device listed in hello without a state is ready: that is what hello meant before
    # runners reported states.
    return runner_devices_report(runner=runner, devices=devices, leased_device_ids=leased_device_ids,
                                 default_state=Device.State.AVAILABLE, locked=locked)


@transaction.atomic(savepoint=False)
def runner_heartbeat(*, runner: Runner, devices: list[dict[str, Any]],
                     leased_device_ids: frozenset[UUID] | set[UUID] = frozenset(),
                     went_offline: set[str] | None = None, locked: list[Device] | None = None) -> list[Device]:
    Runner.objects.filter(pk=runner.pk).update(last_seen_at=timezone.now())
    return runner_devices_report(runner=runner, devices=devices, leased_device_ids=leased_device_ids,
                                 went_offline=went_offline, locked=locked)


@transaction.atomic
def devices_mark_leased(*, leases: list[tuple[Device, str]]) -> None:
    """The devices a lease request got runs for, each with its reason: busy, in two
    queries however many there are (a runner's devices are leased together)."""
    now = timezone.now()
    DeviceStateChange.objects.bulk_create(
        [DeviceStateChange(device=device, from_state=device.state, to_state=Device.State.BUSY, reason=reason[:1000],
                           at=now) for device, reason in leases if device.state != Device.State.BUSY])
    for device, reason in leases:
        device.state, device.state_reason = Device.State.BUSY, reason[:500]
        device.last_seen_at = device.updated_at = now
    rows_update(Device, [device for device, _ in leases], ["state", "state_reason", "last_seen_at", "updated_at"])


def _count_outcome(device: Device, *, infra_error_kind: str | None, error: str, run_label: str) -> list[str]:
    """An infrastructure failure counts towards quarantine, any other ending resets the
    count (the device ran the harness). Not saved: the fields it changed."""
    if infra_error_kind is None:
        if not device.infra_failures:
            return []
        device.infra_failures = []
        return ["infra_failures"]
    failures = [*device.infra_failures, {"kind": infra_error_kind, "error": error[:300], "run": run_label,
                                         "at": timezone.now().isoformat()}][-QUARANTINE_AFTER_INFRA_FAILURES:]
    device.infra_failures = failures
    if len(failures) >= QUARANTINE_AFTER_INFRA_FAILURES and device.state != Device.State.QUARANTINED:
        details = "; ".join(f"{f['kind']}: {f['error']}" if f["error"] else f["kind"] for f in failures)
        reason = f"{len(failures)} consecutive infrastructure failures — {details}"
        _set_state(device, Device.State.QUARANTINED, reason, now=timezone.now())
    return ["infra_failures", "state", "state_reason"]


@transaction.atomic(savepoint=False)
def device_end_lease(*, device_id: UUID, why: str, counts: bool, infra_error_kind: str | None = None,
                     error: str = "", run_label: str = "") -> None:
    """A run's lease on the device ended (`why`, e.g. "attempt 1 of 'nightly' ended: ok").
    When the ending `counts` (it says something of the device), first its outcome: an
    infrastructure failure (`infra_error_kind`) counts towards quarantine, any other ending
    resets the count. Then the device, if still busy, takes the state its runner last
    reported (one that vanished mid-run is offline now, not available); one this outcome
    quarantined stays quarantined. One lock and at most one write."""
    device = Device.objects.select_for_update().filter(pk=device_id).first()
    if device is None:
        return
    changed = _count_outcome(device, infra_error_kind=infra_error_kind, error=error,
                             run_label=run_label) if counts else []
    if device.state == Device.State.BUSY:
        state, reason = _state_after_lease_or_quarantine(device)
        _set_state(device, state, reason, now=timezone.now(), note=f"{why}; {reason}" if reason else why)
        changed += [name for name in ("state", "state_reason") if name not in changed]
    if changed:
        device.save(update_fields=[*changed, "updated_at"])


# --- the runner's breaker: lab faults -------------------------------------------------------


@transaction.atomic
def runner_record_lab_fault(*, runner_id: UUID, kind: str, error: str = "", run_label: str = "") -> Runner:
    """A lab fault (the reference target down, shaping unavailable, a bad harness build) on
    one of the runner's devices: it would fail on every phone of the lab, so it counts
    towards the runner's breaker, never a device's quarantine. Enough in a row trip it."""
    runner = Runner.objects.select_for_update().get(pk=runner_id)
    faults = [*runner.lab_faults, {"kind": kind, "error": error[:300], "run": run_label,
                                   "at": timezone.now().isoformat()}][-BREAKER_AFTER_LAB_FAULTS:]
    runner.lab_faults = faults
    if len(faults) >= BREAKER_AFTER_LAB_FAULTS and runner.breaker_tripped_at is None:
        details = "; ".join(f"{f['kind']}: {f['error']}" if f["error"] else f["kind"] for f in faults)
        runner.breaker_tripped_at = timezone.now()
        runner.breaker_reason = f"{len(faults)} consecutive lab faults — {details}"[:500]
    runner.save(update_fields=["lab_faults", "breaker_tripped_at", "breaker_reason", "updated_at"])
    return runner


def runner_record_lab_worked(*, runner_id: UUID) -> None:
    """A run on the runner got past its lab (it ran the harness): the count starts again."""
    Runner.objects.filter(pk=runner_id, breaker_tripped_at__isnull=True).exclude(lab_faults=[]).update(
        lab_faults=[], updated_at=timezone.now())


@transaction.atomic
def runner_reset_breaker(*, runner: Runner, reset_by: User | AnonymousUser | None,
                         actor: Actor = NO_ACTOR) -> Runner:
    """An owner or admin fixed the lab (restarted the reference target, rebuilt the harness):
    the runner's devices are leased again. 409 when the breaker is not tripped."""
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    if runner.breaker_tripped_at is None:
        raise Conflict(f"Runner {runner.name}'s breaker is not tripped.")
    reason = runner.breaker_reason
    runner.lab_faults, runner.breaker_tripped_at, runner.breaker_reason = [], None, ""
    runner.save(update_fields=["lab_faults", "breaker_tripped_at", "breaker_reason", "updated_at"])
    who = reset_by.get_username() if isinstance(reset_by, User) else "an API token"
    publish(RUNNER_BREAKER_RESET, organization_id=runner.pool.organization_id, **actor.event_fields(),
            runner_id=str(runner.pk), runner_name=runner.name, reason=reason, reset_by=who)
    return runner


@transaction.atomic
def device_release_quarantine(*, device: Device, released_by: User | AnonymousUser | None,
                              actor: Actor = NO_ACTOR) -> Device:
    device = Device.objects.select_for_update().get(pk=device.pk)
    if device.state != Device.State.QUARANTINED:
        raise Conflict(f"Device {device.serial} is {device.state}, not quarantined.")
    user = released_by if isinstance(released_by, User) else None
    who = user.get_username() if user else "an API token"
    device.infra_failures = []
    state, reason = _state_after_lease_or_quarantine(device)
    _set_state(device, state, reason, now=timezone.now(), changed_by=user,
               note=f"released from quarantine by {who}")
    device.save(update_fields=["infra_failures", "state", "state_reason", "updated_at"])
    publish(DEVICE_QUARANTINE_RELEASED, organization_id=device.pool.organization_id, **actor.event_fields(),
            device_id=str(device.pk), device_label=f"{device.model} ({device.serial})")
    return device


def devices_mark_silent_offline() -> int:
    """A device silent for RUNNER_OFFLINE_SECONDS is offline."""
    cutoff = timezone.now() - timedelta(seconds=settings.RUNNER_OFFLINE_SECONDS)
    silent = Device.objects.filter(last_seen_at__lt=cutoff).exclude(
        state__in=[Device.State.OFFLINE, Device.State.QUARANTINED]).values_list("pk", flat=True)
    marked = 0
    for device_id in list(silent):
        with transaction.atomic():
            device = (Device.objects.select_for_update(skip_locked=True)
                      .filter(pk=device_id, last_seen_at__lt=cutoff)
                      .exclude(state__in=[Device.State.OFFLINE, Device.State.QUARANTINED]).first())
            if device is None:
                continue
            reason = f"silent for more than {settings.RUNNER_OFFLINE_SECONDS} s"
            device.reported_state, device.reported_reason = Device.State.OFFLINE, reason
            _set_state(device, Device.State.OFFLINE, reason, now=timezone.now())
            device.save(update_fields=["reported_state", "reported_reason", "state", "state_reason", "updated_at"])
            marked += 1
    return marked


# --- operators (the Django admin) ---------------------------------------------------------

@transaction.atomic
def device_quarantine(*, device: Device, reason: str, quarantined_by: User) -> Device:
    """Take a device out of scheduling until it is released (device_release_quarantine). A run
    it is measuring now finishes; the device takes no next one."""
    reason = operator_reason(reason)
    device = Device.objects.select_for_update().get(pk=device.pk)
    if device.state == Device.State.QUARANTINED:
        raise Conflict(f"Device {device.serial} is already quarantined.")
    _set_state(device, Device.State.QUARANTINED, f"quarantined by an operator: {reason}", now=timezone.now(),
               changed_by=quarantined_by, note=f"quarantined by {quarantined_by.get_username()}: {reason}")
    device.save(update_fields=["state", "state_reason", "updated_at"])
    return device


RUNNER_DISABLED = "runner disabled by an operator"


@transaction.atomic
def runner_disable(*, runner: Runner, reason: str, disabled_by: User) -> Runner:
    """The runner's calls answer 403 (IsRunner) and its devices go offline, so nothing is
    leased to them; a run it holds is requeued when its lease expires."""
    reason = operator_reason(reason)
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    now = timezone.now()
    if runner.disabled_at is None:
        runner.disabled_at = now
    runner.disabled_reason = f"{reason} (by {disabled_by.get_username()})"[:500]
    runner.save(update_fields=["disabled_at", "disabled_reason", "updated_at"])
    for device in Device.objects.select_for_update().filter(runner=runner):
        device.reported_state, device.reported_reason = Device.State.OFFLINE, RUNNER_DISABLED
        state, state_reason = _state_from_report(device, leased=False)
        _set_state(device, state, state_reason, now=now, changed_by=disabled_by,
                   note=f"{RUNNER_DISABLED} ({disabled_by.get_username()}: {reason})")
        device.save(update_fields=["reported_state", "reported_reason", "state", "state_reason", "updated_at"])
    return runner


@transaction.atomic
def runner_enable(*, runner: Runner) -> Runner:
    """Its calls are accepted again; its devices come back with its next hello or heartbeat."""
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    runner.disabled_at, runner.disabled_reason = None, ""
    runner.save(update_fields=["disabled_at", "disabled_reason", "updated_at"])
    return runner
