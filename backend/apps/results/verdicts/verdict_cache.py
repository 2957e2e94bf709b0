"""Verdicts, kept in the shared cache (Redis).

Against its own baseline arm: the latest analysis's arm comparisons, cached by analysis row
(an Analysis never changes); reading that section from PostgreSQL decompresses the whole
stored analysis (~12 ms for 1,000,000 samples on a loaded 2-core host, of a 100 ms target).

Against another comparison: the rows are computed from both comparisons' samples (seconds
for 1,000,000 each), and a finished comparison's samples change only with a new
analysis of it. So the key names both comparisons' latest analysis versions and everything
the rows were decided and worded with: a new analysis of either is a new key, never a
stale answer. Without an analysis of both there is nothing to key on: computed each time.
"""

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any, cast

from django.db.models import Max

from apps.comparisons.models import Comparison

from ..analysis import VerdictConfig, to_jsonable
from ..models import Analysis
from ..storage.analysis_cache import analysis_cache_key, cached, latest_analysis
from ..storage.retention import samples_available_check

# Bounds what an upgrade of the engine leaves cached from before it.
VERDICT_CACHE_SECONDS = 24 * 3600


def arm_comparisons_cached(*, comparison: Comparison) -> list[dict[str, Any]]:
    """The `analysis.comparisons` section of the comparison's latest analysis ([] without one)."""
    latest = latest_analysis(comparison)
    if latest is None:
        return []
    analysis_id, version, created_at = latest

    def read() -> list[dict[str, Any]]:
        return Analysis.objects.filter(pk=analysis_id).values_list("result__analysis__comparisons",
                                                                   flat=True).first() or []

    return cached(analysis_cache_key("results:analysis-comparisons", comparison, version, created_at),
                  VERDICT_CACHE_SECONDS, read)


def verdicts_against_cached(*, comparison: Comparison, other: Comparison, ref: str, metric: str,
                            config: VerdictConfig, compute: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """compute()'s verdict rows of `comparison` against `other`, from the cache when the same
    analyses were judged the same way before."""
    # Cached or not, a comparison whose samples retention dropped answers 410 here.
    for judged in (comparison, other):
        samples_available_check(comparison=judged)
    versions = dict(Analysis.objects.filter(comparison_id__in=[comparison.pk, other.pk])
                    .values("comparison_id").annotate(latest=Max("version")).values_list("comparison_id", "latest"))
    if len(versions) < 2:
        return compute()
    identity = [str(comparison.pk), versions[comparison.pk], str(other.pk), versions[other.pk], ref, metric,
                dataclasses.asdict(config)]
    key = "verdict-against:" + hashlib.sha256(json.dumps(identity).encode()).hexdigest()
    return cached(key, VERDICT_CACHE_SECONDS, lambda: cast(list[dict[str, Any]], to_jsonable(compute())))
