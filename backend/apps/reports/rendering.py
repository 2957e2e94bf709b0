"""The report's renderings, cached: the document, the card, the offline HTML and the PDF.
Keys carry the analysis version and the comparison's last change, so a new analysis is
rendered anew; the callers check the share link (revoked, expired) before ever reading here."""

import gzip
from typing import Any

from rest_framework.renderers import JSONRenderer

from apps.comparisons.models import Comparison
from apps.results.storage.analysis_cache import cached

from .card import render_card
from .document import report_cache_version, report_document
from .pdf import render_pdf
from .standalone import bundle_version, render_standalone_html

CACHE_SECONDS = 24 * 3600


def _key(scope: str, kind: str, comparison: Comparison) -> str:
    return f"reports:{kind}:{scope}:{report_cache_version(comparison)}"


def report_document_cached(*, scope: str, comparison: Comparison) -> dict[str, Any]:
    """`scope`: the share link's id (public) or the comparison's (signed-in export)."""
    return cached(_key(scope, "doc", comparison), CACHE_SECONDS, lambda: report_document(comparison=comparison))


def report_document_json_cached(*, scope: str, comparison: Comparison, gzipped: bool) -> bytes:
    """The document as the API sends it (DRF's JSON), kept gzipped: rendering and compressing a
    200,000-sample comparison's report per request cost its web process tens of milliseconds on
    every open of a popular link. A client without gzip gets it decompressed (a millisecond)."""
    def build() -> bytes:
        body = JSONRenderer().render(report_document_cached(scope=scope, comparison=comparison))
        return gzip.compress(body, compresslevel=6, mtime=0)

    packed = cached(_key(scope, "doc-json-gzip", comparison), CACHE_SECONDS, build)
    return packed if gzipped else gzip.decompress(packed)


def report_card_cached(*, scope: str, comparison: Comparison) -> bytes:
    return cached(_key(scope, "card", comparison), CACHE_SECONDS,
                  lambda: render_card(report_document_cached(scope=scope, comparison=comparison)))


def report_html_cached(*, scope: str, comparison: Comparison) -> str:
    return cached(_key(scope, f"html-{bundle_version()}", comparison), CACHE_SECONDS,
                  lambda: render_standalone_html(report_document_cached(scope=scope, comparison=comparison)))


def report_pdf_cached(*, scope: str, comparison: Comparison) -> bytes:
    return cached(_key(scope, f"pdf-{bundle_version()}", comparison), CACHE_SECONDS,
                  lambda: render_pdf(report_html_cached(scope=scope, comparison=comparison)))
