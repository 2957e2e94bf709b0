"""The report as one HTML file that opens offline: the report document and the frontend's
standalone report bundle (the dashboard's own chart code with Plotly, built by `npm run build`
into dist/standalone/) inlined. The charts are drawn by the same TypeScript as the dashboard;
nothing here re-implements them."""

import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from django.conf import settings

from apps.core.errors import ApplicationError

BUNDLE_DIR = "standalone"
BUNDLE_JS = "report.js"
BUNDLE_CSS = "report.css"

# Charts sized for A4 when printed (the PDF is this page printed by Chromium).
A4_WIDTH_MM = 210
PAGE_MARGIN_MM = 12
# The printed page's width in CSS pixels (96 per inch): the PDF's browser window is this wide, so the
# charts are drawn at the width they are printed at (pdf.py).
PRINT_WIDTH_PX = round((A4_WIDTH_MM - 2 * PAGE_MARGIN_MM) / 25.4 * 96)
PRINT_CSS = f"\n@page {{ size: A4; margin: {PAGE_MARGIN_MM}mm; }}" + """
@media print {
  html { font-size: 11px; }
  body { background: #fff; }
  .table-wrap { overflow: visible !important; }
  .table th, .table td { padding: 3px 5px !important; }
  /* Twelve columns: at the screen's sizes and with unbroken headers the last ones fell off A4. */
  .effect-table th, .effect-table td { font-size: 9px !important; padding: 2px 3px !important;
                                       white-space: normal !important; }
  .report-actions { display: none !important; }
  .card, .chart-card { break-inside: avoid; }
  .modebar-container, .filter-bar { display: none !important; }
  /* A select on paper is its chosen value, not a control with an arrow. */
  select { appearance: none; border: none !important; background: none !important; padding: 0 !important;
           font: inherit; color: inherit; }
  .chart-grid { display: block !important; }
  .plot, .plot-canvas, .js-plotly-plot { width: 100% !important; max-width: 186mm; }
}
"""


class FrontendNotBuilt(ApplicationError):
    status_code = 503


def _bundle_file(name: str) -> Path:
    return Path(settings.FRONTEND_DIST) / BUNDLE_DIR / name


def bundle_version() -> str:
    """Changes when the frontend is rebuilt or the print styles change (the cached HTML and PDF
    are then made anew: a backend-only deploy kept a day-old PDF in the old layout)."""
    styles = hashlib.sha256(PRINT_CSS.encode()).hexdigest()[:12]
    try:
        return f"{_bundle_file(BUNDLE_JS).stat().st_mtime_ns}-{styles}"
    except OSError:
        return f"none-{styles}"


def _script_safe(source: str) -> str:
    """Text that cannot end or confuse the <script> element it is inlined in."""
    return re.sub(r"</(script)", r"<\\/\1", source, flags=re.IGNORECASE).replace("<!--", "<\\!--")


def _json_for_script(data: Any) -> str:
    return (json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render_standalone_html(document: dict[str, Any]) -> str:
    js_path = _bundle_file(BUNDLE_JS)
    if not js_path.is_file():
        raise FrontendNotBuilt("The frontend is not built: the offline report needs dist/standalone/report.js "
                               "(run `npm run build` in frontend/).")
    js = js_path.read_text(encoding="utf-8")
    css_path = _bundle_file(BUNDLE_CSS)
    css = css_path.read_text(encoding="utf-8") if css_path.is_file() else ""
    css = css.replace("</style", "<\\/style")
    title = html.escape(f"{document.get('name') or 'Comparison'} · LatencyLab report")
    description = html.escape(str(document.get("verdict_line") or ""))
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{title}</title>\n<meta name=\"description\" content=\"{description}\">\n"
        f"<style>{css}</style>\n<style>{PRINT_CSS}</style>\n</head>\n<body>\n"
        "<div id=\"root\"></div>\n"
        f"<script>window.__LATENCYLAB_REPORT__ = {_json_for_script(document)};</script>\n"
        f"<script>{_script_safe(js)}</script>\n</body>\n</html>\n"
    )
