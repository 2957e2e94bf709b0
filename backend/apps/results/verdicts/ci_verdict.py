"""The CI gate (GET /api/v1/comparisons/{id}/verdict; docs/methodology.md §8).

Without a baseline reference every arm is judged against the comparison's baseline arm,
inside the comparison (interleaved on the same devices: the strongest design). With
`baseline=<comparison id | branch:NAME | tag:K=V>` each arm is judged against the arm of
the same label in that earlier comparison (e.g. the latest run of the same spec on main);
blocks are then paired by index on each device, which is weaker than interleaving and is
said so in the docs."""

import dataclasses
import re
from functools import partial
from typing import Any

import numpy as np
from django.http import Http404

from apps.comparisons.models import Comparison
from apps.comparisons.selectors import comparison_rows_for
from apps.comparisons.spec import analysis_metrics, gate_metric_of
from apps.core.errors import ApplicationError, Conflict

from ..analysis import SampleTable, VerdictConfig, compare_arms
from ..selectors import analysis_latest, partial_coverage, verdict_history
from ..storage.loader import load_comparison
from .config import comparison_verdict_config
from .gate import (
    POOLED,
    VERDICT_SCOPES,
    beside_metric,
    metric_label,
    no_data_against,
    no_data_within,
    overall_outcome,
    verdict_document,
    verdict_row,
)
from .verdict_cache import arm_comparisons_cached, verdicts_against_cached

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def resolve_baseline(comparison: Comparison, ref: str) -> Comparison:
    """A comparison id, `branch:NAME` or `tag:K=V` → the newest finished comparison of the
    same organization (and, for branch/tag, the same spec), never the one being judged."""
    candidates = comparison_rows_for(organization=comparison.organization).filter(
        status=Comparison.Status.FINISHED).exclude(pk=comparison.pk)
    if UUID.match(ref):
        found = candidates.filter(pk=ref).first()
    elif ref.startswith("branch:") and len(ref) > 7:
        found = candidates.filter(spec_hash=comparison.spec_hash, tags__branch=ref[7:]).order_by("-created_at").first()
    elif ref.startswith("tag:") and "=" in ref[4:]:
        key, value = ref[4:].split("=", 1)
        found = candidates.filter(spec_hash=comparison.spec_hash, **{f"tags__{key}": value}).order_by(
            "-created_at").first()
    else:
        raise ApplicationError("baseline: use a comparison id, branch:NAME or tag:KEY=VALUE")
    if found is None:
        raise Http404(f"No finished comparison matches baseline {ref!r} (same spec, this organization).")
    return found


def _relabelled(table: SampleTable, suffix: str) -> SampleTable:
    return dataclasses.replace(table, arm_labels=tuple(f"{a}{suffix}" for a in table.arm_labels))


def _concat(a: SampleTable, b: SampleTable) -> SampleTable:
    """One table from two comparisons: label tuples are merged and codes remapped."""
    merged: dict[str, Any] = {}
    for kind in ("arm", "device", "profile"):
        labels = list(dict.fromkeys([*getattr(a, f"{kind}_labels"), *getattr(b, f"{kind}_labels")]))
        remap_b = np.asarray([labels.index(x) for x in getattr(b, f"{kind}_labels")] or [0], dtype=np.int32)
        remap_a = np.asarray([labels.index(x) for x in getattr(a, f"{kind}_labels")] or [0], dtype=np.int32)
        merged[kind] = np.concatenate([remap_a[getattr(a, kind)], remap_b[getattr(b, kind)]]).astype(np.int32)
        merged[f"{kind}_labels"] = tuple(labels)
    for name in ("block", "period", "repetition", "step", "phase_measure", "ok", "total_us", "ttfb_us",
                 "resp_bytes", "server_delay_us", "first_on_connection", "start_us", "issued_us"):
        merged[name] = np.concatenate([getattr(a, name), getattr(b, name)])
    # Each arm's groups are timed as its own comparison issued them (the same spec: the same).
    return SampleTable(**merged, concurrency=a.concurrency)


def _within_rows(comparison: Comparison, metric: str) -> list[dict[str, Any]]:
    """The stored analysis's comparisons of each arm with the baseline arm, on `metric`, pooled
    and per device: that section alone is read (the whole analysis of 1,000,000 samples is
    ~1 MB of JSON)."""
    return [c for c in arm_comparisons_cached(comparison=comparison)
            if c["metric"] == metric and c.get("scope", POOLED) in VERDICT_SCOPES]


def _rows_against(comparison: Comparison, other: Comparison, *, ref: str, metrics: tuple[str, ...],
                  config: VerdictConfig) -> list[dict[str, Any]]:
    """Each arm of the comparison judged against the same-named arm of `other` on `metrics`,
    from both comparisons' samples."""
    current = load_comparison(comparison).table
    previous = _relabelled(load_comparison(other).table, " (baseline)")
    combined = _concat(current, previous)
    verdicts = []
    for arm in current.arm_labels:
        if f"{arm} (baseline)" not in previous.arm_labels:
            continue
        keep = np.isin(combined.arm, [combined.arm_labels.index(arm),
                                      combined.arm_labels.index(f"{arm} (baseline)")])
        sub = SampleTable(**{f.name: (getattr(combined, f.name)[keep] if isinstance(getattr(combined, f.name),
                                                                                     np.ndarray)
                                      else getattr(combined, f.name)) for f in dataclasses.fields(combined)})
        for c in compare_arms(sub, baseline_arm=f"{arm} (baseline)", metrics=metrics, config=config):
            if c.scope not in VERDICT_SCOPES:
                continue
            row = verdict_row(dataclasses.asdict(c), baseline_comparison=str(other.id))
            row["baseline_arm"] = arm
            row["summary"] = c.summary.replace(f"vs {arm} (baseline)", f"vs {arm} ({ref})")
            verdicts.append(row)
    return verdicts


def gate_outcome_within(comparison: Comparison) -> str:
    """The overall outcome of a finished comparison against its own baseline arm (what
    `/verdict` answers without a baseline reference, and what webhooks report)."""
    return overall_outcome([c["verdict"]["outcome"] for c in _within_rows(comparison, gate_metric_of(comparison.spec))
                            if c.get("scope", POOLED) == POOLED])


def verdict_for(comparison: Comparison, *, baseline_ref: str | None, base_url: str) -> dict[str, Any]:
    """A finished comparison's verdict; a cancelled one's is partial (the blocks it stored),
    and says so — the CLI still exits 3 for it (docs/ci.md)."""
    if comparison.status not in (Comparison.Status.FINISHED, Comparison.Status.CANCELLED):
        raise Conflict(f"The comparison is {comparison.status}; its verdict exists once it is finished.")
    coverage = partial_coverage(comparison=comparison)
    gate = comparison.spec.get("gate") or {}
    metric = gate_metric_of(comparison.spec)
    other_metric = beside_metric(metric, list(analysis_metrics(comparison.spec)))
    config = comparison_verdict_config(comparison)
    if baseline_ref is None:
        verdicts = [verdict_row(c, baseline_comparison=None) for c in _within_rows(comparison, metric)]
        beside = ([verdict_row(c, baseline_comparison=None) for c in _within_rows(comparison, other_metric)]
                  if other_metric else [])
        baseline = {"kind": "arm", "comparison": None, "arm": comparison.baseline_arm, "ref": None}
        no_data = no_data_within(baseline_arm=comparison.baseline_arm, metric=metric)
        if coverage["partial"]:
            no_data = _no_partial_data(coverage, analysed=analysis_latest(comparison=comparison) is not None) or no_data
    else:
        other = resolve_baseline(comparison, baseline_ref)
        metrics = (metric, other_metric) if other_metric else (metric,)
        rows = verdicts_against_cached(
            comparison=comparison, other=other, ref=baseline_ref, metric="+".join(metrics), config=config,
            compute=partial(_rows_against, comparison, other, ref=baseline_ref, metrics=metrics, config=config))
        verdicts = [row for row in rows if row["metric"] == metric]
        beside = [row for row in rows if row["metric"] == other_metric]
        baseline = {"kind": "comparison", "comparison": str(other.id), "arm": None, "ref": baseline_ref}
        no_data = no_data_against(baseline_comparison=str(other.id), ref=baseline_ref, metric=metric)
    workload = comparison.spec.get("workload") or {}
    return verdict_document(
        comparison=str(comparison.id), name=comparison.name, status=comparison.status,
        url=f"{base_url}/comparisons/{comparison.id}",
        # What the verdicts were decided with (a spec without a gate gets the defaults; run until
        # decided: the α of the last look).
        gate={"statistic": gate.get("statistic", "median"), "metric": metric,
              "metric_label": metric_label(metric, workload), "margin_pct": config.margin_pct,
              "alpha": config.alpha},
        baseline=baseline, verdicts=verdicts, no_data_reason=no_data, history=verdict_history(comparison=comparison),
        coverage=coverage,
        beside={"metric": other_metric, "metric_label": metric_label(other_metric, workload), "verdicts": beside}
        if other_metric else None)


def _no_partial_data(coverage: dict[str, Any], *, analysed: bool) -> str | None:
    """Why a cancelled comparison has no verdict yet, when that is why."""
    if not coverage["blocks_stored"]:
        return f"the comparison was cancelled before any of its {coverage['blocks_planned']} blocks was stored"
    if not analysed:
        return (f"the comparison was cancelled after {coverage['blocks_stored']} of {coverage['blocks_planned']} "
                "blocks; the analysis of those blocks is not stored yet")
    return None
