"""Trends across comparisons (GET /api/v1/trends): one metric of one arm, device model and
network profile over the comparisons of a branch, read from their stored analyses (the
latest version of each), never from samples.

A point is one device of one comparison. Its value comes from the analysis's per-request
statistics over every period of the run (`requests` for total time; `descriptive` rows
without a period for TTFB, which a workload with periods does not have), or for series time
and page load from its `group_times` (analyses from version 2 on; older ones have no point);
its verdict is the arm's verdict against that comparison's own baseline arm on the same
metric, device and profile. The service knows no git history: "order by commit" keeps the comparisons of one
commit together, commits in the order they were first measured."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from apps.accounts.models import Organization
from apps.comparisons.models import Arm, Comparison, Run
from apps.devices.stand_in import stand_in_of_run

from ..models import Analysis
from ..selectors import analyses_latest_sections
from ..verdicts.gate import POOLED

METRICS = ("total_ms", "ttfb_ms", "series_ms", "page_load_ms")
GROUP_METRICS = ("series_ms", "page_load_ms")
STATISTICS = {"median": "median_ms", "mean": "mean_ms", "p90": "p90_ms", "p95": "p95_ms", "p99": "p99_ms"}
ORDERS = ("time", "commit")
PLATFORMS = ("android", "ios", "host")
# The latest this many comparisons make a trend; older ones are left out and `truncated` says so.
TREND_LIMIT = 500
BASELINE = "baseline"


def analysed_comparisons(*, organization: Organization, branch: str | None = None,
                         since: dt.datetime | None = None) -> QuerySet[Comparison]:
    """The organization's finished comparisons with a stored analysis, newest first (a failed one
    may have an analysis of what it measured; like the verdict endpoint, trends leave it out)."""
    queryset = Comparison.objects.filter(Exists(Analysis.objects.filter(comparison=OuterRef("pk"))),
                                         organization=organization, status=Comparison.Status.FINISHED)
    if branch is not None:
        queryset = queryset.filter(tags__branch=branch)
    if since is not None:
        queryset = queryset.filter(created_at__gte=since)
    return queryset.order_by("-created_at")


def _devices(comparison_ids: Iterable[Any]) -> dict[tuple[Any, str], tuple[str | None, str, str | None]]:
    """(comparison, device label as the analysis names it) → (platform, model, stand-in) of the
    run's device (loader.run_device_label); the model falls back to the label when the device has
    none; the stand-in is "jvm" for the phone simulator's phones (apps.devices.stand_in)."""
    out: dict[tuple[Any, str], tuple[str | None, str, str | None]] = {}
    for run in Run.objects.filter(comparison_id__in=list(comparison_ids)).select_related("device").only(
            "comparison_id", "device_label", "slot", "fingerprint", "device__serial", "device__platform",
            "device__model", "device__fingerprint"):
        label = run.device.serial if run.device else run.device_label or f"slot-{run.slot}"
        fingerprint_model = run.fingerprint.get("model") if isinstance(run.fingerprint, dict) else None
        model = (run.device.model if run.device else "") or fingerprint_model or label
        stand_in = stand_in_of_run(run)
        out[(run.comparison_id, label)] = (run.device.platform if run.device else None, str(model), stand_in)
    return out


def _statistic_rows(section: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """Per arm × device × profile statistics over the whole run (no period)."""
    if metric in GROUP_METRICS:
        return [r for r in section.get("group_times") or [] if r.get("metric") == metric]
    if metric == "total_ms" and section.get("requests"):
        return [r for r in section["requests"] if r.get("metric", "total_ms") == metric]
    return [r for r in section.get("descriptive") or [] if r.get("metric") == metric and r.get("period") is None]


def device_verdict_row(rows: list[dict[str, Any]], *, arm: str, metric: str, device: str, profile: str
                ) -> dict[str, Any] | None:
    """The arm's verdict row for this device: the per-device row beneath a class of several
    devices of one model, else the device's own pooled row."""
    candidates = [r for r in rows if r.get("arm") == arm and r.get("metric") == metric and r.get("profile") == profile]
    for r in candidates:
        if r.get("scope") == "device" and r.get("device") == device:
            return r
    for r in candidates:
        if r.get("scope", POOLED) == POOLED and r.get("device_class") == device:
            return r
    return None


def trend_points(*, organization: Organization, metric: str, statistic: str, arm: str, branch: str | None = None,
                 device_model: str | None = None, platform: str | None = None, profile: str | None = None,
                 order: str = "time", since: dt.datetime | None = None) -> dict[str, Any]:
    comparisons = list(
        analysed_comparisons(organization=organization, branch=branch, since=since)
        .filter(Exists(Arm.objects.filter(comparison=OuterRef("pk"), label=arm)))
        .only("id", "name", "status", "tags", "created_at", "baseline_arm")[:TREND_LIMIT + 1])
    truncated = len(comparisons) > TREND_LIMIT
    comparisons = comparisons[:TREND_LIMIT]
    comparisons.reverse()  # oldest first
    ids = [c.id for c in comparisons]
    statistics = {"total_ms": "requests", "ttfb_ms": "descriptive"}.get(metric, "group_times")
    sections = analyses_latest_sections(comparison_ids=ids, sections=[statistics, "comparisons"])
    if metric == "total_ms":  # analyses stored before `requests` existed: their whole-run rows
        older = [cid for cid, s in sections.items() if not s.get("requests")]
        for cid, extra in analyses_latest_sections(comparison_ids=older, sections=["descriptive"]).items():
            sections[cid]["descriptive"] = extra["descriptive"]
    devices = _devices(ids)
    key = STATISTICS[statistic]
    points: list[dict[str, Any]] = []
    for comparison in comparisons:
        section = sections.get(comparison.id) or {}
        verdict_rows = section.get("comparisons") or []
        for row in _statistic_rows(section, metric):
            if row.get("arm") != arm or not row.get("n") or row.get(key) is None:
                continue
            if profile is not None and row.get("profile") != profile:
                continue
            device_platform, model, stand_in = devices.get((comparison.id, row["device"]), (None, row["device"], None))
            if device_model is not None and model != device_model:
                continue
            if platform is not None and device_platform != platform:
                continue
            if arm == comparison.baseline_arm:
                verdict: str | None = BASELINE
                summary: str | None = None
                change: dict[str, Any] | None = None
            else:
                found = device_verdict_row(verdict_rows, arm=arm, metric=metric, device=row["device"],
                                           profile=row["profile"])
                verdict = found["verdict"]["outcome"] if found else None
                summary = found.get("summary") if found else None
                change = {"change_pct": found.get("change_pct"), "change_ci95_pct": found.get("change_ci95_pct")} \
                    if found else None
            tags = comparison.tags if isinstance(comparison.tags, dict) else {}
            points.append({
                "comparison_id": str(comparison.id), "comparison_name": comparison.name,
                "status": comparison.status, "created_at": comparison.created_at,
                "commit": tags.get("commit"), "version": tags.get("version"), "branch": tags.get("branch"),
                "tags": {str(k): str(v) for k, v in tags.items()},
                "device": row["device"], "device_model": model, "platform": device_platform, "stand_in": stand_in,
                "profile": row["profile"], "value": row[key],
                "ci95": row.get("median_ci95_ms") if statistic == "median" else None,
                "n": row["n"], "failed_requests": row.get("errors", 0),
                "baseline_arm": comparison.baseline_arm, "verdict": verdict, "verdict_summary": summary,
                "change_pct": change["change_pct"] if change else None,
                "change_ci95_pct": change["change_ci95_pct"] if change else None,
            })
    if order == "commit":
        first_seen: dict[str, int] = {}
        for point in points:  # already oldest first
            first_seen.setdefault(point["commit"] or f"comparison:{point['comparison_id']}", len(first_seen))
        points.sort(key=lambda p: first_seen[p["commit"] or f"comparison:{p['comparison_id']}"])  # stable
    return {"metric": metric, "statistic": statistic, "unit": "ms", "arm": arm, "branch": branch,
            "device_model": device_model, "platform": platform, "profile": profile, "order": order,
            "limit": TREND_LIMIT, "truncated": truncated, "points": points}


def trend_options(*, organization: Organization, branch: str | None = None) -> dict[str, Any]:
    """What the filters can choose from among the analysed comparisons (of `branch` when given)."""
    comparisons = analysed_comparisons(organization=organization, branch=branch).order_by()
    branches = sorted({b for b in analysed_comparisons(organization=organization).order_by()
                      .values_list("tags__branch", flat=True) if isinstance(b, str) and b})
    ids = comparisons.values("id")
    arms = sorted(set(Arm.objects.filter(comparison_id__in=ids).values_list("label", flat=True)))
    baseline_arms = sorted(set(comparisons.values_list("baseline_arm", flat=True)))
    device_models = sorted({(platform, model) for platform, model in
                            Run.objects.filter(comparison_id__in=ids, device__isnull=False)
                            .values_list("device__platform", "device__model") if model})
    profiles = sorted(set(Run.objects.filter(comparison_id__in=ids).values_list("network_profile", flat=True)))
    return {"branch": branch, "branches": branches, "arms": arms, "baseline_arms": baseline_arms,
            "device_models": [{"platform": p, "model": m} for p, m in device_models],
            "profiles": profiles, "platforms": list(PLATFORMS), "metrics": list(METRICS),
            "statistics": list(STATISTICS), "orders": list(ORDERS), "comparisons": comparisons.count()}


CSV_COLUMNS = ("comparison_id", "comparison_name", "created_at", "branch", "commit", "version", "device",
               "device_model", "platform", "profile", "value", "ci95_low", "ci95_high", "n", "failed_requests",
               "verdict", "change_pct", "baseline_arm", "status")


def trend_csv_rows(trend: dict[str, Any]) -> Iterable[list[Any]]:
    yield [*CSV_COLUMNS[:10], f"{trend['statistic']}_{trend['metric']}", *CSV_COLUMNS[11:]]
    for p in trend["points"]:
        ci = p["ci95"] or [None, None]
        yield [p["comparison_id"], p["comparison_name"], p["created_at"].isoformat(), p["branch"], p["commit"],
               p["version"], p["device"], p["device_model"], p["platform"], p["profile"], p["value"], ci[0], ci[1],
               p["n"], p["failed_requests"], p["verdict"], p["change_pct"], p["baseline_arm"], p["status"]]
