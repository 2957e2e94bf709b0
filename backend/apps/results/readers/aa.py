"""A/A trust check (statistics-and-ci-gates.md, "Trust checks"): comparisons in mode
"aa" measure one arm twice, so a regression or improvement verdict is a false positive
by construction. Per device pool, the organization's finished A/A comparisons give the
empirical false-positive rate of the gate, with a Wilson 95 % interval."""

import math
from collections import Counter
from typing import Any

from django.db.models import QuerySet

from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.devices.models import DevicePool

from ..selectors import analyses_latest_sections

LATEST = 20
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, *, z: float = Z95) -> tuple[float, float] | None:
    if trials == 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def aa_comparisons_for(*, organization: Organization, pool: DevicePool) -> QuerySet[Comparison]:
    return Comparison.objects.filter(organization=organization, status=Comparison.Status.FINISHED,
                                     spec__mode="aa", spec__devices__pool=pool.slug).order_by("-created_at")


def aa_report(*, organization: Organization, pool: DevicePool) -> dict[str, Any]:
    comparisons = list(aa_comparisons_for(organization=organization, pool=pool).values(
        "id", "name", "created_at", "spec__gate__metric"))
    # The latest analysis of each, reading only the verdict rows (the charts stay in the database).
    latest = {comparison_id: sections["comparisons"] or [] for comparison_id, sections in analyses_latest_sections(
        comparison_ids=[c["id"] for c in comparisons], sections=["comparisons"]).items()}
    counts: Counter[str] = Counter()
    listed: list[dict[str, Any]] = []
    for c in comparisons:
        metric = c["spec__gate__metric"] or "total_ms"
        # A series' per-period rows restate its pooled row period by period: not verdicts of their own.
        outcomes = [row["verdict"]["outcome"] for row in latest.get(c["id"], [])
                    if row.get("metric") == metric and row.get("scope") != "period"]
        counts.update(outcomes)
        if len(listed) < LATEST:
            listed.append({"id": str(c["id"]), "name": c["name"], "created_at": c["created_at"],
                           "metric": metric, "outcomes": outcomes})
    verdicts = sum(counts.values())
    false_positives = counts["regression"] + counts["improvement"]
    interval = wilson_interval(false_positives, verdicts)
    return {
        "pool": pool.slug,
        "comparisons": len(comparisons),
        "verdicts": verdicts,
        "false_positives": false_positives,
        "false_positive_rate": false_positives / verdicts if verdicts else None,
        "false_positive_rate_ci95": list(interval) if interval else None,
        "regression": counts["regression"],
        "improvement": counts["improvement"],
        "equivalent": counts["equivalent"],
        "inconclusive": counts["inconclusive"],
        "latest": listed,
    }
