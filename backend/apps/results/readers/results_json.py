"""GET /comparisons/{id}/results as JSON bytes, without handling the stored analysis as data.

The analysis is most of the document (~1.4 MB of JSON for 1,000,000 samples) and an Analysis
row never changes, so its JSON text is kept in the shared cache by row and spliced in as
it is. Reading it from PostgreSQL instead costs the jsonb → text conversion of the whole
value (100–300 ms on a loaded 2-core machine), and parsing and rendering it again in Python
as much again: the endpoint's p95 target is 100 ms. The rest of the document (results_head,
partial_coverage) is small and read per request, since it changes without a new analysis;
the result is the same document as selectors.results_for_charts.
"""

import gzip
import json
from typing import Any, NamedTuple

from django.db import connection

from apps.comparisons.models import Comparison

from ..selectors import partial_coverage, results_head
from ..storage.analysis_cache import analysis_cache_key, cached, latest_analysis
from .gzip_splice import LEVEL, deflate_part, gzip_spliced

# Bounds the cache's memory to the analyses read in the last hour (the reports' renderings
# share the cache and live a day).
ANALYSIS_JSON_CACHE_SECONDS = 3600

_ANALYSIS_TEXT = "SELECT result::text, ARRAY(SELECT jsonb_object_keys(result)) FROM results_analysis WHERE id = %s"


def _inner(document: dict[str, Any]) -> str:
    """An object's members as JSON text, without the braces."""
    return json.dumps(document, ensure_ascii=False)[1:-1]


def _analysis_members(analysis_id: int, key: str) -> tuple[list[str], bytes]:
    """(its top-level keys, its members as JSON bytes without the braces) of the stored analysis
    result: the bytes spliced into every answer, kept as they are sent."""
    def read() -> tuple[list[str], bytes]:
        with connection.cursor() as cursor:
            cursor.execute(_ANALYSIS_TEXT, [analysis_id])
            text, keys = cursor.fetchone()
        return list(keys), text.strip()[1:-1].strip().encode()

    return cached(key, ANALYSIS_JSON_CACHE_SECONDS, read)


class _Parts(NamedTuple):
    """The document as before + middle + after; middle_key names the cached middle's compressed
    form (None: nothing worth keeping compressed)."""

    before: bytes
    middle: bytes
    after: bytes
    middle_key: str | None


def _document(comparison: Comparison) -> _Parts:
    """The results document of selectors.results_for_charts: head, the latest analysis's
    members replacing the head's, its version, then the partial coverage."""
    head = results_head(comparison=comparison)
    tail = partial_coverage(comparison=comparison)
    latest = latest_analysis(comparison)
    if latest is None:
        return _Parts(b"", b"", json.dumps({**head, **tail}, ensure_ascii=False).encode(), None)
    analysis_id, version, created_at = latest
    keys, middle = _analysis_members(analysis_id, analysis_cache_key("results:analysis-members", comparison,
                                                                     version, created_at))
    tail = {"analysis_version": version, **tail}
    if tail.keys() & set(keys) or not middle:  # the analysis names a member the tail sets: merge as data
        analysis = json.loads(b"{" + middle + b"}")
        return _Parts(b"", b"", json.dumps({**head, **analysis, **tail}, ensure_ascii=False).encode(), None)
    head_members = _inner({k: v for k, v in head.items() if k not in keys and k not in tail})
    return _Parts(("{" + head_members + "," if head_members else "{").encode(), middle,
                  ("," + _inner(tail) + "}").encode(),
                  analysis_cache_key("results:analysis-json-deflated", comparison, version, created_at))


def results_json(*, comparison: Comparison) -> bytes:
    """The results document (_document) as JSON bytes."""
    before, middle, after, _ = _document(comparison)
    return before + middle + after


def results_json_gzip(*, comparison: Comparison) -> bytes:
    """The same bytes gzipped, for a client that accepts gzip: the analysis (most of the document)
    is compressed once and kept beside its text, the rest per request (gzip_splice.py). Compressing
    the whole ~1.4 MB of a 1,000,000-sample comparison per request cost 30–60 ms of CPU."""
    before, middle, after, middle_key = _document(comparison)
    if middle_key is None:
        return gzip.compress(before + middle + after, compresslevel=LEVEL, mtime=0)
    deflated = cached(middle_key, ANALYSIS_JSON_CACHE_SECONDS, lambda: deflate_part(middle))
    return gzip_spliced(before, middle, deflated, after)
