"""The report as PDF: the offline HTML printed by headless Chromium (A4, charts drawn by the
same code as the dashboard), in a subprocess with a timeout."""

import shutil
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings

from apps.core.errors import ApplicationError

from .standalone import PRINT_WIDTH_PX

TIMEOUT_S = 90
# Virtual time for the page's scripts (Plotly draws asynchronously) before printing.
VIRTUAL_TIME_BUDGET_MS = 15_000


class PdfUnavailable(ApplicationError):
    status_code = 503


def chromium_path() -> str | None:
    configured = settings.LATENCYLAB_CHROMIUM
    return shutil.which(configured) or (configured if Path(configured).is_file() else None)


def render_pdf(html: str) -> bytes:
    binary = chromium_path()
    if binary is None:
        raise PdfUnavailable(f"PDF export needs Chromium; {settings.LATENCYLAB_CHROMIUM!r} was not found "
                             "(set LATENCYLAB_CHROMIUM).")
    with tempfile.TemporaryDirectory(prefix="latencylab-pdf-") as work:
        page = Path(work) / "report.html"
        page.write_text(html, encoding="utf-8")
        out = Path(work) / "report.pdf"
        command = [
            binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--disable-dev-shm-usage",
            f"--user-data-dir={work}/profile", "--run-all-compositor-stages-before-draw",
            f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}", "--no-pdf-header-footer",
            # Plotly draws each chart at its container's width when the page loads, and printing
            # does not redraw it: a window as wide as the printed page makes them the same (at the
            # default 800 px the charts came out wider than A4 and were cut at their card's edge).
            f"--window-size={PRINT_WIDTH_PX},1200",
            f"--print-to-pdf={out}", page.as_uri(),
        ]
        try:
            subprocess.run(command, check=False, capture_output=True, timeout=TIMEOUT_S, cwd=work,
                           env={"HOME": work, "PATH": "/usr/bin:/bin"})
        except subprocess.TimeoutExpired:
            raise PdfUnavailable(f"Chromium did not print the report within {TIMEOUT_S} s.") from None
        if not out.is_file() or out.stat().st_size == 0:
            raise PdfUnavailable("Chromium could not print the report.")
        return out.read_bytes()
