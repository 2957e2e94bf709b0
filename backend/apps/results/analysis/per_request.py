"""Per-request statistics of a `requests` workload: each listed request (its index in the
spec's list, the sample's `step`) is its own group, so a HAR replay shows which of its calls
got faster or slower, not only the list's total."""

from __future__ import annotations

import dataclasses

from .descriptive import describe
from .table import SampleTable


def per_request(table: SampleTable, *, names: list[str], n_boot: int = 500, seed: int = 0) -> list[dict]:
    """describe() with the request's index in the place of the period: one row per arm ×
    request × device × profile, named from the spec's list (`#i` where the spec gave none)."""
    by_request = dataclasses.replace(table, period=table.step)
    rows = describe(by_request, metric="total_ms", n_boot=n_boot, seed=seed)
    out = []
    for row in rows:
        step = row.pop("period")
        if step is None or not 0 <= step < len(names):
            continue  # not one of the list's requests (a warm-up is not in the measure phase anyway)
        out.append({**row, "step": step, "name": names[step]})
    return sorted(out, key=lambda r: (r["device"], r["profile"], r["step"], r["arm"]))


def request_names(workload: dict) -> list[str]:
    """The chart label of each request of a `requests` workload ([] for other kinds): its
    `name`, else its index, method and path, as the HAR import names them."""
    if workload.get("kind") != "requests":
        return []
    return [(r.get("name") or f"{i:02d} {r.get('method', 'GET')} {r.get('path') or r.get('url') or ''}")[:64]
            for i, r in enumerate(workload.get("requests") or [])]
