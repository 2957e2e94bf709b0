"""GET /comparisons/{id}/results as JSON bytes, without handling the stored analysis as data.

The analysis is most of the document (~1.4 MB of JSON for 1,000,000 samples) and an Analysis
row never changes, so its JSON text is kept in the shared cache by row and spliced in as
it is. Reading it from PostgreSQL instead costs the jsonb → text conversion of the whole
value (100–300 ms on a loaded 2-core machine), and parsing and rendering it again in Python
as much again: the endpoint's p95 target is 100 ms. The rest of the document (results_head,
partial_coverage) is small and read per request, since it changes without a new analysis;
the result is the same document as selectors.results_for_charts.
"""

import json
from typing import Any

from django.db import connection

from apps.comparisons.models import Comparison

from .analysis_cache import analysis_cache_key, cached, latest_analysis
from .selectors import partial_coverage, results_head

# Bounds the cache's memory to the analyses read in the last hour (the reports' renderings
# share the cache and live a day).
ANALYSIS_JSON_CACHE_SECONDS = 3600

_ANALYSIS_TEXT = "SELECT result::text, ARRAY(SELECT jsonb_object_keys(result)) FROM results_analysis WHERE id = %s"


def _inner(document: dict[str, Any]) -> str:
    """An object's members as JSON text, without the braces."""
    return json.dumps(document, ensure_ascii=False)[1:-1]


def _analysis_text(analysis_id: int, key: str) -> tuple[list[str], str]:
    """(its top-level keys, its JSON text) of the stored analysis result."""
    def read() -> tuple[list[str], str]:
        with connection.cursor() as cursor:
            cursor.execute(_ANALYSIS_TEXT, [analysis_id])
            text, keys = cursor.fetchone()
        return list(keys), text

    return cached(key, ANALYSIS_JSON_CACHE_SECONDS, read)


def results_json(*, comparison: Comparison) -> bytes:
    """The results document of selectors.results_for_charts: head, the latest analysis's
    members replacing the head's, its version, then the partial coverage."""
    head = results_head(comparison=comparison)
    tail = partial_coverage(comparison=comparison)
    latest = latest_analysis(comparison)
    if latest is None:
        return json.dumps({**head, **tail}, ensure_ascii=False).encode()
    analysis_id, version, created_at = latest
    keys, text = _analysis_text(analysis_id, analysis_cache_key("results:analysis-json", comparison, version,
                                                                created_at))
    tail = {"analysis_version": version, **tail}
    if tail.keys() & set(keys):  # the analysis names a member the tail sets: merge as data
        return json.dumps({**head, **json.loads(text), **tail}, ensure_ascii=False).encode()
    members = [_inner({k: v for k, v in head.items() if k not in keys and k not in tail}), text.strip()[1:-1],
               _inner(tail)]
    return ("{" + ",".join(m for m in members if m) + "}").encode()
