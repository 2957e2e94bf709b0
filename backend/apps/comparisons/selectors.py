from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Aggregate, Count, F, FloatField, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from apps.accounts.models import Organization
from apps.devices.models import Device

from .lab_capabilities import why_device_cannot_take
from .models import Comparison, Run, RunBlock
from .planning import measured_requests, planned_runs
from .platforms import device_protocols, run_protocols
from .spec import blocks_range, spec_fingerprint


def _per_comparison(rows: QuerySet[Any], aggregate: Aggregate) -> Coalesce:
    """`aggregate` over `rows` (already filtered to the outer comparison and grouped by it), 0 when none."""
    return Coalesce(Subquery(rows.annotate(value=aggregate).values("value")), 0, output_field=IntegerField())


# Device seconds a block has taken so far: within each run, the time from its first stored block
# to its last over the blocks in between (so the first block's start, which no row records,
# is not needed), pooled over the comparison's runs. NULL until some run has stored two blocks.
_SECONDS_PER_BLOCK = """
SELECT SUM(EXTRACT(EPOCH FROM (per_run.last_at - per_run.first_at))) / NULLIF(SUM(per_run.n - 1), 0)
FROM (SELECT MIN(b.stored_at) AS first_at, MAX(b.stored_at) AS last_at, COUNT(*) AS n
      FROM comparisons_runblock b JOIN comparisons_run r ON r.id = b.run_id
      WHERE r.comparison_id = comparisons_comparison.id GROUP BY b.run_id) AS per_run
"""


def _progress_annotations() -> dict[str, Any]:
    # Correlated subqueries rather than joins: joining runs and their blocks in one GROUP BY would
    # multiply rows, and a subquery keeps a page of comparisons at one query whatever its size.
    runs = Run.objects.filter(comparison=OuterRef("pk")).order_by().values("comparison")
    blocks = RunBlock.objects.filter(run__comparison=OuterRef("pk")).order_by().values("run__comparison")
    return {
        "runs_total": _per_comparison(runs, Count("id")),
        "runs_done": _per_comparison(runs, Count("id", filter=Q(status__in=Run.TERMINAL))),
        "blocks_total": _per_comparison(runs, Sum("blocks_total")),
        "blocks_done": _per_comparison(blocks, Count("id")),
        "seconds_per_block": RawSQL(_SECONDS_PER_BLOCK, (), output_field=FloatField()),  # noqa: S611  constant SQL
    }


def comparisons_for(*, organization: Organization) -> QuerySet[Comparison]:
    """An organization's comparisons, each annotated with what comparison_progress() reads."""
    return Comparison.objects.filter(organization=organization).annotate(**_progress_annotations())


def comparison_rows_for(*, organization: Organization) -> QuerySet[Comparison]:
    """An organization's comparisons as stored, without comparisons_for()'s progress: for readers that
    need the row only (results, verdicts, reports, artifacts). The progress subqueries count a
    comparison's runs and blocks, which is most of the query's time for a large one."""
    return Comparison.objects.filter(organization=organization)


def comparison_get(*, organization: Organization, comparison_id: Any) -> Comparison:
    """Another organization's id answers 404, exactly like an unknown one."""
    return comparisons_for(organization=organization).get(pk=comparison_id)


def comparison_progress(comparison: Comparison) -> dict[str, Any]:
    """Runs and blocks done so far. Reads the annotations of comparisons_for() (no query); a comparison
    loaded some other way costs one query."""
    if not hasattr(comparison, "blocks_done"):
        comparison = Comparison.objects.annotate(**_progress_annotations()).get(pk=comparison.pk)
    counts = {key: getattr(comparison, key) for key in ("runs_total", "runs_done", "blocks_total", "blocks_done")}
    if comparison.status in Comparison.TERMINAL:
        percent = 100.0
    elif counts["blocks_total"]:
        percent = round(100.0 * counts["blocks_done"] / counts["blocks_total"], 1)
    else:
        percent = 0.0
    # Run until decided: the device time lies between every run stopping at min blocks and every run going to max.
    bounds = blocks_range(comparison.spec)
    runs = counts["runs_total"]
    blocks_min = runs * bounds[0] if bounds else counts["blocks_total"]
    blocks_max = runs * bounds[1] if bounds else counts["blocks_total"]
    # The device time still to come, at the pace measured so far (summed over devices).
    pace = getattr(comparison, "seconds_per_block", None)
    live = pace is not None and comparison.status not in Comparison.TERMINAL
    return {**counts, "percent": percent, "blocks_min": blocks_min, "blocks_max": blocks_max,
            "seconds_per_block": None if pace is None else round(pace, 1),
            "device_seconds_left_min": round(max(blocks_min - counts["blocks_done"], 0) * pace) if live else None,
            "device_seconds_left_max": round(max(blocks_max - counts["blocks_done"], 0) * pace) if live else None}


# How many of the organization's latest finished comparisons the estimate's pace is taken from.
_PACE_SAMPLE = 20


def _seconds_per_request(comparison: Comparison) -> float | None:
    """Device seconds one measured request took in a finished comparison (its measured
    seconds per block over the requests a block holds); None when it stored too few blocks."""
    pace = getattr(comparison, "seconds_per_block", None)
    bounds = blocks_range(comparison.spec)
    first = bounds[0] if bounds else int(comparison.spec.get("blocks") or 0)
    if pace is None or first <= 0:
        return None
    per_block = measured_requests(comparison.spec, blocks=first) / first
    return pace / per_block if per_block > 0 else None


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def comparison_estimate(*, organization: Organization, spec: dict[str, Any]) -> dict[str, Any]:
    """What a normalized spec would book, from the plan the scheduler creates
    (planning.planned_runs): runs, blocks and measured requests (warm-ups excluded), the
    lower bound when every run stops at min blocks and the upper when every run goes to
    max (equal for fixed blocks). Device-minutes apply the pace measured in the
    organization's latest finished comparisons, those of the same spec (fingerprint) first;
    null before any has finished."""
    runs = planned_runs(spec)
    blocks_min = sum(run.blocks_first for run in runs)
    blocks_max = sum(run.blocks_max for run in runs)
    requests_min = sum(measured_requests(spec, blocks=run.blocks_first) for run in runs)
    requests_max = sum(measured_requests(spec, blocks=run.blocks_max) for run in runs)
    recent = list(comparisons_for(organization=organization).filter(status=Comparison.Status.FINISHED)
                  .order_by("-created_at")[:_PACE_SAMPLE])
    fingerprint = spec_fingerprint(spec)
    basis, paces = None, []
    for candidates, name in (([c for c in recent if c.spec_hash == fingerprint], "same_spec"), (recent, "recent")):
        paces = [pace for c in candidates if (pace := _seconds_per_request(c)) is not None]
        if paces:
            basis = name
            break
    per_request = _median(paces) if paces else None

    def minutes(requests: int) -> float | None:
        return None if per_request is None else round(requests * per_request / 60, 1)

    return {"runs": len(runs), "blocks_min": blocks_min, "blocks_max": blocks_max,
            "requests_min": requests_min, "requests_max": requests_max,
            "device_minutes_min": minutes(requests_min), "device_minutes_max": minutes(requests_max),
            "seconds_per_request": None if per_request is None else round(per_request, 4),
            "pace_basis": basis, "pace_comparisons": len(paces)}


# Device states as strings: a waiting reason reads whatever states the devices app has.
_WAITING_STATES = ("not_ready", "unauthorized")
_READY_STATES = ("available", "busy")
_QUARANTINED = "quarantined"


def _devices_described(devices: list[Device], *, with_state: bool = True) -> str:
    shown = [f"{d.model or d.serial} ({d.serial})" + (f" {d.state.replace('_', ' ')}" if with_state else "")
             + (f": {d.state_reason}" if d.state_reason else "") for d in devices[:3]]
    more = len(devices) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _pool_devices(pool_ids: Iterable[Any]) -> dict[Any, list[Device]]:
    by_pool: dict[Any, list[Device]] = defaultdict(list)
    for device in Device.objects.filter(pool_id__in=set(pool_ids)).select_related("runner").order_by("serial"):
        by_pool[device.pool_id].append(device)
    return by_pool


def run_waiting_reason(run: Run, pool_devices: Sequence[Device] | None = None,
                       work_ahead: dict[tuple[Any, Any], str] | None = None) -> str | None:
    """Why a queued run has not started, in words a user can act on; None otherwise.
    Devices that wait (not ready, unauthorized) or are quarantined are named with why; a run
    that waits only for a busy device says how much of other comparisons' work is ahead of it.
    `pool_devices`: the devices of the run's pool, when the caller read them already;
    `work_ahead`: the work-ahead phrases already worked out, per (pool, comparison)."""
    if run.status != Run.Status.QUEUED:
        return None
    if pool_devices is None:
        pool_devices = _pool_devices([run.pool_id])[run.pool_id]
    matching = [d for d in pool_devices if d.platform in run.platforms]
    platforms = "/".join(run.platforms) or "any"
    pool = f"pool {run.pool.slug!r}"
    if not matching:
        return f"no {platforms} device is registered in {pool}"
    protocols = run_protocols(run.comparison.spec)
    able = [d for d in matching if (listed := device_protocols(d.capabilities)) is None or listed >= set(protocols)]
    if not able:
        return (f"no {platforms} device of {pool} measures every arm's protocol ({', '.join(protocols)}): "
                + "; ".join(f"{d.model or d.serial} ({d.serial}) measures "
                            f"{', '.join(sorted(device_protocols(d.capabilities) or ()))}" for d in matching[:3]))
    matching = able
    # Not the devices whose lab cannot do it: shape the run's profile, h3 from Android against a
    # private certificate (lab_capabilities.py); a runner may have lost it since the submit.
    unable = {d.pk: why for d in matching
              if (why := why_device_cannot_take(d.capabilities, d.platform, run.comparison.spec, run.network_profile))}
    if len(unable) == len(matching):
        return (f"no {platforms} device of {pool} can run it: "
                + "; ".join(f"{d.model or d.serial} ({d.serial}) on runner {d.runner.name} {unable[d.pk]}"
                            for d in matching[:3]))
    matching = [d for d in matching if d.pk not in unable]
    # A runner whose breaker tripped (lab faults in a row) leases none of its devices.
    held = [d for d in matching if d.runner.breaker_tripped_at is not None and d.state != _QUARANTINED]
    if held and all(d in held or d.state == _QUARANTINED for d in matching):
        tripped = {d.runner.name: d.runner.breaker_reason for d in held}
        return (f"no {platforms} device of {pool} can take it: "
                + "; ".join(f"runner {name}'s breaker is tripped until an owner or admin resets it: {reason}"
                            for name, reason in sorted(tripped.items()))
                + (f"; quarantined: {_devices_described([d for d in matching if d not in held], with_state=False)}"
                   if len(held) < len(matching) else ""))
    matching = [d for d in matching if d not in held]
    quarantined = [d for d in matching if d.state == _QUARANTINED]
    waiting = [d for d in matching if d.state in _WAITING_STATES]
    usable = len(matching) - len(quarantined)
    if usable == 0:
        return (f"every {platforms} device of {pool} is quarantined until an owner or admin releases it: "
                f"{_devices_described(quarantined, with_state=False)}")
    if usable <= run.slot:
        reason = (f"this comparison asks for {run.slot + 1}+ distinct {platforms} devices per profile; "
                  f"{pool} has {usable}")
        return reason + (f" besides the quarantined {_devices_described(quarantined, with_state=False)}"
                         if quarantined else "")
    ready = [d for d in matching if d.state in _READY_STATES]
    if not ready:
        if waiting or quarantined:
            return f"no {platforms} device of {pool} is ready: {_devices_described(waiting + quarantined)}"
        return (f"no runner of {pool} is online: its {len(matching)} {platforms} "
                f"device{'s are' if len(matching) > 1 else ' is'} offline")
    key = (run.pool_id, run.comparison_id)
    if work_ahead is None:
        work_ahead = {}
    if key not in work_ahead:
        work_ahead[key] = _work_ahead(run, ready_devices=len(ready))
    reason = f"waiting for a free {platforms} device in {pool}{work_ahead[key]}"
    return reason + (f" (not ready: {_devices_described(waiting + quarantined)})" if waiting or quarantined else "")


# How many of a pool's latest finished runs set the pace of the wait estimate.
_PACE_RUNS = 20


def _work_ahead(run: Run, *, ready_devices: int) -> str:
    """`: 2 comparisons ahead (3 runs, 14 blocks left) on 1 ready device, about 4 min at the
    pool's recent pace`, or '' when nothing is ahead. Ahead: the pool's queued and running runs
    of comparisons created earlier for one of the run's platforms (leases go oldest comparison
    first). Two aggregate queries, whatever the backlog."""
    platforms = Q()
    for platform in run.platforms:
        platforms |= Q(platforms__contains=[platform])
    ahead = (Run.objects.filter(platforms, pool_id=run.pool_id, status__in=[Run.Status.QUEUED, Run.Status.LEASED],
                                comparison__created_at__lt=run.comparison.created_at)
             .aggregate(runs=Count("id"), comparisons=Count("comparison_id", distinct=True),
                        blocks=Coalesce(Sum(F("blocks_total") - F("next_block")), 0)))
    if not ahead["runs"]:
        return ""
    comparisons = ahead["comparisons"]
    text = (f": {comparisons} comparison{'s' if comparisons != 1 else ''} ahead ({ahead['runs']} "
            f"run{'s' if ahead['runs'] != 1 else ''}, {ahead['blocks']} block{'s' if ahead['blocks'] != 1 else ''} "
            f"left) on {ready_devices} ready device{'s' if ready_devices != 1 else ''}")
    recent = (Run.objects.filter(pool_id=run.pool_id, status=Run.Status.DONE, started_at__isnull=False,
                                 finished_at__isnull=False).order_by("-finished_at")[:_PACE_RUNS])
    pace = [((r.finished_at - r.started_at).total_seconds(), r.blocks_total)
            for r in recent.only("started_at", "finished_at", "blocks_total")
            if r.finished_at is not None and r.started_at is not None]  # the query asks for both; for the types
    blocks_done = sum(blocks for _, blocks in pace)
    if blocks_done:
        seconds_per_block = sum(seconds for seconds, _ in pace) / blocks_done
        wait = ahead["blocks"] * seconds_per_block / max(ready_devices, 1)
        text += f", about {_wait_words(wait)} at the pool's recent pace"
    return text


def _wait_words(seconds: float) -> str:
    """Under a minute, 4 min, 1 h 20 min."""
    if seconds < 60:
        return "under a minute"
    minutes = int(seconds / 60 + 0.5)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min" if minutes % 60 else f"{minutes // 60} h"


def run_waiting_reasons(runs: Sequence[Run]) -> dict[Any, str | None]:
    """run_waiting_reason for every run of a list, reading the devices of their pools in one query."""
    queued = [run for run in runs if run.status == Run.Status.QUEUED]
    by_pool = _pool_devices(run.pool_id for run in queued) if queued else {}
    work_ahead: dict[tuple[Any, Any], str] = {}  # the same for every run of one comparison in one pool
    return {run.pk: run_waiting_reason(run, by_pool.get(run.pool_id, []), work_ahead)
            if run.status == Run.Status.QUEUED else None for run in runs}
