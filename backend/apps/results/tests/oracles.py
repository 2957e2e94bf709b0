"""Slow, obviously-right computations the fast paths are checked against (test code only)."""

from typing import Any

from django.db import connection

from apps.comparisons.models import Comparison
from apps.results.storage.derive import PHASES, duration_sql_ms
from apps.results.storage.loader import run_device_label


def phase_breakdown(comparison: Comparison) -> list[dict[str, Any]]:
    """apps.results.readers.phases.phase_breakdown_loaded computed by PostgreSQL from the stored
    samples: percentile_cont over every phase of every measured, successful request."""
    expressions = [duration_sql_ms(name) for name in PHASES]
    medians = ", ".join(f"percentile_cont(0.5) WITHIN GROUP (ORDER BY {e}), count({e})" for e in expressions)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT arm_id, run_id, count(*), {medians} FROM results_sample
                WHERE comparison_id = %s AND phase = 'measure' AND error_class IS NULL
                GROUP BY arm_id, run_id""",
            [comparison.id])
        rows = cursor.fetchall()
    arms = dict(comparison.arms.values_list("id", "label"))
    runs = {run.id: run for run in comparison.runs.select_related("device")}
    out = []
    for arm_id, run_id, n, *values in rows:
        run = runs[run_id]
        entry: dict[str, Any] = {"arm": arms[arm_id], "device": run_device_label(run),
                                 "profile": run.network_profile, "n": n}
        for i, phase in enumerate(PHASES):
            median, count = values[2 * i], values[2 * i + 1]
            entry[f"{phase}_ms"] = None if median is None else round(float(median), 3)
            entry[f"{phase}_n"] = count
        out.append(entry)
    out.sort(key=lambda e: (e["device"], e["profile"], list(arms.values()).index(e["arm"])))
    return out
