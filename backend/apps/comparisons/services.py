"""Writes for comparisons: create from a spec, plan into runs, cancel, complete."""

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from rest_framework import serializers

from apps.accounts.actor import NO_ACTOR, Actor
from apps.accounts.models import Organization
from apps.accounts.selectors import secret_names_of
from apps.core.events import publish
from apps.devices.selectors import pool_devices_with_capabilities, pool_platforms, pools_visible_to
from apps.network.selectors import network_profile_names, network_profile_wire_spec

from .events import COMPARISON_CANCELLED, COMPARISON_CREATED, COMPARISON_ENDED, COMPARISON_RUNS_DONE
from .lab_capabilities import lab_capability_errors
from .models import Arm, Comparison, Run
from .planning import planned_runs
from .platforms import spec_platform_errors
from .quota import quota_check
from .secret_refs import referenced_secret_names, unknown_secret_errors
from .spec import normalize_spec, spec_fingerprint
from .target_policy import target_policy_errors


def comparison_spec_check(*, organization: Organization, submitted_spec: Any) -> dict[str, Any]:
    """Every check comparison_create makes, creating nothing: the normalized spec, or
    serializers.ValidationError with the field map. The builder's dry run calls it too."""
    spec = normalize_spec(submitted_spec)
    known = network_profile_names(organization=organization)
    unknown = {str(i): [f"{name!r} is not a valid choice; known profiles: {', '.join(known)}."]
               for i, name in enumerate(spec["network_profiles"]) if name not in known}
    if unknown:
        raise serializers.ValidationError({"network_profiles": unknown})
    # Every selected platform must run everything the spec asks (arms, concurrency, request
    # fields, secrets): a run may land on any of them.
    platform_errors = spec_platform_errors(spec)
    if platform_errors:
        raise serializers.ValidationError({"devices": {"platforms": platform_errors}})
    if referenced_secret_names(spec):
        missing = unknown_secret_errors(spec, submitted_spec, known=secret_names_of(organization_id=organization.pk))
        if missing:
            raise serializers.ValidationError(missing)
    pool_slug = spec["devices"]["pool"]
    pool = pools_visible_to(organization=organization).filter(slug=pool_slug)
    pool_row = pool.values_list("pk", "kind").first()
    if pool_row is None:
        raise serializers.ValidationError({"devices": {"pool": [f"No device pool named {pool_slug!r} is visible."]}})
    pool_id, pool_kind = pool_row
    # A pool with devices, none of a requested platform, could never run it: say so now rather than
    # queue it for ever. A pool with no device yet is one being set up; its runs wait for a runner.
    present = pool_platforms(pool_id=pool_id)
    requested = spec["devices"]["platforms"]
    if present and not present.intersection(requested):
        raise serializers.ValidationError({"devices": {"platforms": [
            f"pool {pool_slug!r} has no {' or '.join(requested)} device, so nothing could ever run this comparison; "
            f"its devices are: {', '.join(sorted(present))}."]}})
    if unreachable := target_policy_errors(spec, pool_kind=pool_kind):
        raise serializers.ValidationError(unreachable)
    # What the pool's labs cannot do for it: shape under a profile, h3 from Android against a
    # reference target without a publicly trusted certificate (lab_capabilities.py).
    if unable := lab_capability_errors(spec, pool_slug=pool_slug,
                                       devices=pool_devices_with_capabilities(pool_id=pool_id)):
        raise serializers.ValidationError(unable)
    return spec


@transaction.atomic
def comparison_create(
    *, organization: Organization, submitted_spec: Any, created_by: User | AnonymousUser | None = None
) -> Comparison:
    spec = comparison_spec_check(organization=organization, submitted_spec=submitted_spec)
    quota_check(organization=organization)
    comparison = Comparison.objects.create(
        organization=organization,
        created_by=created_by if isinstance(created_by, User) else None,  # an anonymous user creates nothing
        name=spec["name"],
        preset=spec.get("preset") or "",
        submitted_spec=submitted_spec,
        spec=spec,
        spec_hash=spec_fingerprint(spec),
        tags=spec.get("tags", {}),
        baseline_arm=spec["baseline_arm"],
    )
    Arm.objects.bulk_create(
        [
            Arm(
                comparison=comparison,
                position=i,
                label=arm["label"],
                protocol=arm["protocol"],
                connection=arm["connection"],
                endpoint=arm.get("endpoint") or "",
            )
            for i, arm in enumerate(spec["arms"])
        ]
    )
    publish(COMPARISON_CREATED, comparison_id=str(comparison.id))
    return comparison


@transaction.atomic
def comparison_plan(*, comparison_id: str) -> int:
    """Expand a comparison into runs: one per device slot × network profile. Idempotent."""
    comparison = Comparison.objects.select_for_update().get(pk=comparison_id)
    if comparison.status != Comparison.Status.QUEUED or comparison.runs.exists():
        return 0
    spec = comparison.spec
    pool = pools_visible_to(organization=comparison.organization).get(slug=spec["devices"]["pool"])
    runs = [
        Run(
            comparison=comparison,
            slot=planned.slot,
            pool=pool,
            platforms=spec["devices"]["platforms"],
            network_profile=planned.network_profile,
            network_profile_spec=network_profile_wire_spec(organization=comparison.organization,
                                                           name=planned.network_profile),
            blocks_total=planned.blocks_first,  # run until decided: min blocks first, extended at each look
        )
        for planned in planned_runs(spec)
    ]
    Run.objects.bulk_create(runs)
    return len(runs)


@transaction.atomic
def comparison_cancel(*, comparison: Comparison, actor: Actor = NO_ACTOR) -> Comparison:
    # Runs first, then the comparison: the order leasing takes them in (it locks a run, then
    # marks its comparison running). Locking the comparison first deadlocked against a lease.
    unfinished = comparison.runs.exclude(status__in=Run.TERMINAL)
    list(unfinished.select_for_update().order_by("pk").values_list("pk", flat=True))
    comparison = Comparison.objects.select_for_update().get(pk=comparison.pk)
    if comparison.status in Comparison.TERMINAL:
        return comparison
    now = timezone.now()
    comparison.runs.exclude(status__in=Run.TERMINAL).update(
        status=Run.Status.CANCELLED, finished_at=now, lease_token=""
    )
    comparison.status = Comparison.Status.CANCELLED
    comparison.finished_at = now
    comparison.save(update_fields=["status", "finished_at", "updated_at"])
    publish(COMPARISON_CANCELLED, comparison_id=str(comparison.id), organization_id=comparison.organization_id,
            comparison_name=comparison.name, **actor.event_fields())
    publish(COMPARISON_ENDED, comparison_id=str(comparison.id))
    return comparison


@transaction.atomic
def comparison_fail_for_target(*, comparison_id: str, error: str) -> bool:
    """A run found the comparison's own endpoint unreachable (a customer-target fault, the
    contract's `target_unreachable`): every other run would reach the same endpoint, so the
    comparison fails now, saying which arm and endpoint, and its unfinished runs are
    cancelled (a runner holding one is told at its next heartbeat). Nothing counts against
    a device or a runner. False when the comparison had ended already."""
    # Runs first, then the comparison: the order leasing takes them in (comparison_cancel).
    unfinished = Run.objects.filter(comparison_id=comparison_id).exclude(status__in=Run.TERMINAL)
    list(unfinished.select_for_update().order_by("pk").values_list("pk", flat=True))
    comparison = Comparison.objects.select_for_update().get(pk=comparison_id)
    if comparison.status in Comparison.TERMINAL:
        return False
    now = timezone.now()
    unfinished.update(status=Run.Status.CANCELLED, finished_at=now, lease_token="",
                      error=f"not run: the comparison failed ({error.splitlines()[0][:300]})")
    comparison.status = Comparison.Status.FAILED
    comparison.error = error
    comparison.finished_at = now
    comparison.save(update_fields=["status", "error", "finished_at", "updated_at"])
    publish(COMPARISON_ENDED, comparison_id=str(comparison.id))
    return True


def comparison_complete_if_runs_done(*, comparison_id: str) -> bool:
    """When every run is terminal, move to analysing and queue the analysis. While a run is
    still going (after most finishes) that is one query, without the comparison's lock: the
    locked check below would answer the same, and whatever ends that run calls this after
    its own commit, as the locked check already relies on."""
    if Run.objects.filter(comparison_id=comparison_id).exclude(status__in=Run.TERMINAL).exists():
        return False
    return _comparison_complete_if_runs_done(comparison_id=comparison_id)


@transaction.atomic
def _comparison_complete_if_runs_done(*, comparison_id: str) -> bool:
    comparison = Comparison.objects.select_for_update().get(pk=comparison_id)
    if comparison.status in Comparison.TERMINAL or comparison.status == Comparison.Status.ANALYSING:
        return False
    if comparison.runs.exclude(status__in=Run.TERMINAL).exists() or not comparison.runs.exists():
        return False
    comparison.status = Comparison.Status.ANALYSING
    comparison.save(update_fields=["status", "updated_at"])
    publish(COMPARISON_RUNS_DONE, comparison_id=str(comparison.id))
    return True


@transaction.atomic
def comparison_extend_runs(*, comparison_id: str, blocks_total: int) -> int:
    """Run until decided, a look that did not decide: every completed run of an analysing
    comparison goes back to the queue to run up to `blocks_total` blocks, on the device it
    ran on (leasing prefers it, so each device's blocks stay one device's), resuming at its
    next block; the comparison is running again. Returns the runs extended (0 when the
    comparison is no longer analysing, or no run completed: then nothing changes)."""
    comparison = Comparison.objects.select_for_update().get(pk=comparison_id)
    if comparison.status != Comparison.Status.ANALYSING:
        return 0
    extended = comparison.runs.filter(status=Run.Status.DONE, blocks_total__lt=blocks_total).update(
        status=Run.Status.QUEUED, blocks_total=blocks_total, finished_at=None, error="", error_kind="")
    if extended:
        comparison.status = Comparison.Status.RUNNING
        comparison.save(update_fields=["status", "updated_at"])
    return extended
