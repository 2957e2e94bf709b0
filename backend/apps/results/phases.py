"""Phase breakdown per arm × device × profile (DESIGN §9): the median of each phase
(DNS, connect, TLS, TTFB, download) over measured, successful requests, and how many
requests had that phase at all (a reused connection has no DNS/connect/TLS). Computed in
PostgreSQL in one grouped query; the durations are the ones of derive.py."""

from typing import Any

from django.db import connection

from apps.comparisons.models import Comparison

from .derive import SQL_DURATIONS_MS
from .loader import run_device_label

PHASES = ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "download_ms")


def phase_breakdown(comparison: Comparison) -> list[dict[str, Any]]:
    medians = ", ".join(
        f"percentile_cont(0.5) WITHIN GROUP (ORDER BY {SQL_DURATIONS_MS[p]}), count({SQL_DURATIONS_MS[p]})"
        for p in PHASES)
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
            entry[phase] = None if median is None else round(float(median), 3)
            entry[f"{phase[:-3]}_n"] = count
        out.append(entry)
    out.sort(key=lambda e: (e["device"], e["profile"], list(arms.values()).index(e["arm"])))
    return out
