"""The dashboard's home (GET /api/v1/home): the latest comparisons with their headline
verdict and a sparkline from the stored analysis, the ones still in flight with their
progress, and the device farm by platform and state. A fixed number of queries, whatever
the comparisons hold: the analyses' sections are read in one query, not one per comparison."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.comparisons.selectors import comparison_progress, comparisons_for
from apps.comparisons.spec import gate_metric_of
from apps.devices.models import Device
from apps.devices.selectors import devices_visible_to

from ..selectors import analyses_latest_sections
from ..verdicts.gate import POOLED, overall_outcome

RECENT = 10
IN_FLIGHT = 10
SPARKLINE_METRIC = "total_ms"


def _headline_verdict(rows: list[dict[str, Any]], metric: str) -> str | None:
    """The overall outcome of the gate's metric: the worst pooled verdict (gate.overall_outcome)."""
    outcome = overall_outcome([r["verdict"]["outcome"] for r in rows
                               if r.get("metric") == metric and r.get("scope", POOLED) == POOLED])
    return outcome


def sparkline(descriptive: list[dict[str, Any]], requests: list[dict[str, Any]], arms: list[str]
              ) -> dict[str, Any] | None:
    """The median request time of each arm per period, on the first device × profile the
    analysis has (a workload with periods); else each arm's median over the run, one value
    per arm. None without measurements."""
    rows = [r for r in descriptive if r.get("metric") == SPARKLINE_METRIC and r.get("n") and r.get("median_ms")
            is not None]
    periodic = [r for r in rows if r.get("period") is not None]
    if periodic:
        device, profile = periodic[0]["device"], periodic[0]["profile"]
        mine = [r for r in periodic if r["device"] == device and r["profile"] == profile]
        periods = sorted({r["period"] for r in mine})
        by_key = {(r["arm"], r["period"]): r["median_ms"] for r in mine}
        series = [{"arm": arm, "values": [by_key.get((arm, p)) for p in periods]}
                  for arm in arms if any((arm, p) in by_key for p in periods)]
        return {"kind": "periods", "metric": SPARKLINE_METRIC, "statistic": "median", "unit": "ms",
                "device": device, "profile": profile, "x": periods, "series": series}
    whole = [r for r in (requests or rows) if r.get("n") and r.get("median_ms") is not None]
    if not whole:
        return None
    device, profile = whole[0]["device"], whole[0]["profile"]
    medians = {r["arm"]: r["median_ms"] for r in whole if r["device"] == device and r["profile"] == profile}
    return {"kind": "arms", "metric": SPARKLINE_METRIC, "statistic": "median", "unit": "ms", "device": device,
            "profile": profile, "x": [], "series": [{"arm": arm, "values": [medians[arm]]} for arm in arms
                                                    if arm in medians]}


def _summary(comparison: Comparison) -> dict[str, Any]:
    return {"id": str(comparison.id), "name": comparison.name, "preset": comparison.preset or None,
            "status": comparison.status, "tags": {str(k): str(v) for k, v in (comparison.tags or {}).items()},
            "created_at": comparison.created_at, "finished_at": comparison.finished_at,
            "progress": comparison_progress(comparison)}


def home_summary(*, organization: Organization) -> dict[str, Any]:
    listed = comparisons_for(organization=organization).defer("submitted_spec").order_by("-created_at")
    recent = list(listed.prefetch_related("arms")[:RECENT])
    in_flight = list(listed.exclude(status__in=Comparison.TERMINAL)[:IN_FLIGHT])
    sections = analyses_latest_sections(comparison_ids=[c.id for c in recent],
                                        sections=["comparisons", "descriptive", "requests"])
    recent_out = []
    for comparison in recent:
        entry = _summary(comparison)
        metric = gate_metric_of(comparison.spec)
        entry["gate_metric"] = metric
        if comparison.id in sections:
            verdicts, descriptive, requests = sections[comparison.id].values()
            # Like the verdict endpoint: a verdict once finished (a failed comparison's partial
            # analysis gets none).
            entry["headline_verdict"] = (_headline_verdict(verdicts or [], metric)
                                         if comparison.status == Comparison.Status.FINISHED else None)
            entry["sparkline"] = sparkline(descriptive or [], requests or [],
                                           [arm.label for arm in comparison.arms.all()])
        else:
            entry["headline_verdict"] = None
            entry["sparkline"] = None
        recent_out.append(entry)
    return {"recent": recent_out, "in_flight": [_summary(c) for c in in_flight], "farm": farm_status(
        organization=organization)}


def farm_status(*, organization: Organization) -> dict[str, Any]:
    """Devices the organization can use, counted by platform and state."""
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for row in devices_visible_to(organization=organization).order_by().values("platform", "state").annotate(
            n=Count("id")):
        counts[row["platform"]][row["state"]] = row["n"]
    platforms = [{"platform": platform, "total": sum(counts[platform].values()),
                  "states": [{"state": state, "count": counts[platform].get(state, 0)}
                             for state in Device.State.values if counts[platform].get(state)]}
                 for platform in Device.Platform.values if platform in counts]
    return {"devices": sum(p["total"] for p in platforms), "platforms": platforms}
