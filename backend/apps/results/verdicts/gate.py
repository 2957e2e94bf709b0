"""The verdict document of the CI gate (GET /api/v1/comparisons/{id}/verdict) from the
engine's arm comparisons, and the overall outcome: the one place that rule lives. The
CLI and the dashboard show the server's `outcome`; webhooks report it.

Pure (no Django): ci_verdict.py finds the rows, frontend/scripts/gen-results-fixtures.py
builds the dashboard's test fixtures with the same functions.
"""

from typing import Any

from ..analysis import to_jsonable
from ..analysis.metrics import GROUP_METRICS
from ..analysis.verdict import EQUIVALENT, IMPROVEMENT, INCONCLUSIVE, REGRESSION

# Worst first: the overall outcome is the first of these that any verdict has.
OUTCOMES_WORST_FIRST = (REGRESSION, INCONCLUSIVE, IMPROVEMENT, EQUIVALENT)
NO_DATA = "no_data"
POOLED = "pooled"
# Rows the verdict document carries: each device class's headline and the devices beneath it.
# The per-period rows of series time stay in the results (the dashboard's effect table).
VERDICT_SCOPES = (POOLED, "device")


def metric_label(metric: str, workload: dict[str, Any] | None = None) -> str:
    """The gate's metric in words, as the banner, the CLI and the reports name it:
    "series time, periods 3–30", "page load, 8 requests", "per-request time"."""
    workload = workload or {}
    if metric == "series_ms":
        periods = sorted({int(p) for p in workload.get("periods") or [] if isinstance(p, int)})
        if len(periods) == 1:
            return f"series time, period {periods[0]}"
        return f"series time, periods {periods[0]}–{periods[-1]}" if periods else "series time"
    if metric == "page_load_ms":
        requests = workload.get("requests")
        n = len(requests) if isinstance(requests, list) else 0
        return f"page load, {n} request{'s' if n != 1 else ''}" if n else "page load"
    return {"total_ms": "per-request time", "ttfb_ms": "per-request time to first byte"}.get(metric, metric)


def beside_metric(gate_metric: str, analysed: list[str]) -> str | None:
    """The metric shown beside the gate's, the other view of the same requests: per-request time
    beside a group metric, the workload's group metric beside per-request time (None: none)."""
    if gate_metric in GROUP_METRICS:
        return "total_ms"
    if gate_metric == "total_ms":
        return next((m for m in analysed if m in GROUP_METRICS), None)
    return None


def _beside_document(*, metric: str, metric_label: str, verdicts: list[dict[str, Any]], gate_outcome: str
                     ) -> dict[str, Any] | None:
    """The other metric's headline verdicts and their overall outcome, said to disagree when that
    outcome is not the gate's (the page then names which one gated); None without rows."""
    pooled = headline(verdicts)
    if not pooled:
        return None
    outcome = overall_outcome([v["outcome"] for v in pooled])
    return {"metric": metric, "metric_label": metric_label, "outcome": outcome, "disagrees": outcome != gate_outcome,
            "verdicts": to_jsonable(pooled)}


def headline(verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows the overall outcome reads: one per device class (the per-device rows beneath a
    class of several devices inform, they do not gate twice)."""
    return [v for v in verdicts if v.get("scope", POOLED) == POOLED]


def overall_outcome(outcomes: list[str]) -> str:
    """The worst outcome decides: regression > inconclusive > improvement > equivalent;
    `no_data` when nothing was compared."""
    if not outcomes:
        return NO_DATA
    return next(outcome for outcome in OUTCOMES_WORST_FIRST if outcome in outcomes)


def verdict_row(c: dict[str, Any], *, baseline_comparison: str | None) -> dict[str, Any]:
    """One arm comparison (compare.py `ArmComparison` as a dict) as a verdict line."""
    verdict = c["verdict"]
    return {
        "arm": c["arm"], "baseline_arm": c["baseline_arm"], "baseline_comparison": baseline_comparison,
        "metric": c["metric"], "device": c["device_class"], "network_profile": c["profile"],
        "outcome": verdict["outcome"], "reason": verdict["reason"], "margin": verdict["margin"],
        "ratio": c["ratio"], "ci95": c["ratio_ci95"], "ci90": c["ratio_ci90"],
        "p_value": c["p_blocks"], "p_adjusted": c["p_blocks_holm"], "p_mann_whitney": c["p_requests_mann_whitney"],
        "cliffs_delta": c["cliffs_delta"], "cliffs_label": c["cliffs_label"],
        "cohens_d": c["cohens_d_log"], "cohens_label": c["cohens_label"],
        "gain_pct": c["gain_pct"], "speedup": c["speedup"], "change_pct": c["change_pct"],
        "median_ms": c["median_candidate_ms"], "baseline_median_ms": c["median_baseline_ms"],
        "blocks": c["blocks"], "devices": c["devices"],
        "more_blocks_needed": verdict["additional_blocks_per_device"],
        "blocks_to_decide": verdict.get("blocks_by_outcome"), "summary": c["summary"],
        # Analyses stored before pooling have only pooled rows.
        "scope": c.get("scope", POOLED), "device_label": c.get("device"),
        "devices_disagree": c.get("devices_disagree", False),
        # Analyses before version 2 have no per-period rows.
        "periods_disagree": c.get("periods_disagree", False),
    }


def no_data_within(*, baseline_arm: str | None, metric: str) -> str:
    return (f"no arm was compared with the baseline arm {baseline_arm!r} on {metric}: no block has measured, "
            "successful requests of both")


def no_data_against(*, baseline_comparison: str, ref: str, metric: str) -> str:
    return (f"no arm of this comparison could be compared with the same-named arm of comparison "
            f"{baseline_comparison} ({ref}) on {metric}: no shared arm label, or no block of both")


def verdict_document(*, comparison: str, name: str, status: str, url: str, gate: dict[str, Any],
                     baseline: dict[str, Any], verdicts: list[dict[str, Any]], no_data_reason: str,
                     history: list[dict[str, Any]] | None = None,
                     coverage: dict[str, Any] | None = None,
                     beside: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole answer: the verdict lines, their overall outcome and why; `history`: the looks
    of a run-until-decided comparison (selectors.verdict_history), empty for fixed blocks;
    `coverage`: partial (cancelled) or not, with the blocks planned and stored when partial;
    `beside`: the other metric (beside_metric) as {metric, metric_label, verdicts}; the document
    keeps its headline rows with their overall outcome, which does not gate, and whether it
    disagrees with the gate's."""
    coverage = coverage or {"partial": False, "blocks_planned": None, "blocks_stored": None}
    pooled = headline(verdicts)
    outcome = overall_outcome([v["outcome"] for v in pooled])
    other = _beside_document(**beside, gate_outcome=outcome) if beside else None
    if outcome == NO_DATA:
        reason = no_data_reason
    else:
        counts = [f"{n} {o}" for o in OUTCOMES_WORST_FIRST if (n := sum(v["outcome"] == o for v in pooled))]
        on = gate["metric"] + (f" ({gate['metric_label']})" if gate.get("metric_label") else "")
        reason = (f"the worst of {len(pooled)} verdict{'s' if len(pooled) != 1 else ''} on {on} "
                  f"(regression > inconclusive > improvement > equivalent): {', '.join(counts)}")
        if beneath := len(verdicts) - len(pooled):
            disagree = sum(bool(v.get("devices_disagree")) for v in pooled)
            reason += (f"; {beneath} per-device row{'s' if beneath != 1 else ''} beneath pooled device classes"
                       + (f", devices disagree in {disagree}" if disagree else ""))
        if other is not None and other["disagrees"]:
            reason += (f"; beside it, not gating: {other['metric']} ({other['metric_label']}) says "
                       f"{other['outcome'].replace('_', ' ')}")
        if coverage["partial"]:
            reason += (f"; PARTIAL: cancelled after {coverage['blocks_stored']} of {coverage['blocks_planned']} "
                       "blocks, so these verdicts rest on fewer blocks than planned")
    return {"comparison": comparison, "name": name, "status": status, "url": url, "gate": gate, "baseline": baseline,
            "verdicts": to_jsonable(verdicts), "outcome": outcome, "outcome_reason": reason,
            "history": to_jsonable(history or []), "partial": coverage["partial"],
            "beside": other,
            "blocks_planned": coverage["blocks_planned"], "blocks_stored": coverage["blocks_stored"]}
