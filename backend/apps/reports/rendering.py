"""The report's renderings, cached: the document, the card, the offline HTML and the PDF.
Keys carry the analysis version and the comparison's last change, so a new analysis is
rendered anew; the callers check the share link (revoked, expired) before ever reading here."""

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

from apps.comparisons.models import Comparison

from .card import render_card
from .document import report_cache_version, report_document
from .pdf import render_pdf
from .standalone import bundle_version, render_standalone_html

CACHE_SECONDS = 24 * 3600
T = TypeVar("T")


def _cached(key: str, build: Callable[[], T]) -> T:
    value = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, timeout=CACHE_SECONDS)
    return value


def _key(scope: str, kind: str, comparison: Comparison) -> str:
    return f"reports:{kind}:{scope}:{report_cache_version(comparison)}"


def report_document_cached(*, scope: str, comparison: Comparison) -> dict[str, Any]:
    """`scope`: the share link's id (public) or the comparison's (signed-in export)."""
    return _cached(_key(scope, "doc", comparison), lambda: report_document(comparison=comparison))


def report_card_cached(*, scope: str, comparison: Comparison) -> bytes:
    return _cached(_key(scope, "card", comparison),
                   lambda: render_card(report_document_cached(scope=scope, comparison=comparison)))


def report_html_cached(*, scope: str, comparison: Comparison) -> str:
    return _cached(_key(scope, f"html-{bundle_version()}", comparison),
                   lambda: render_standalone_html(report_document_cached(scope=scope, comparison=comparison)))


def report_pdf_cached(*, scope: str, comparison: Comparison) -> bytes:
    return _cached(_key(scope, f"pdf-{bundle_version()}", comparison),
                   lambda: render_pdf(report_html_cached(scope=scope, comparison=comparison)))
