"""The OpenGraph / Twitter card of a share link: 1200×630 PNG with the comparison's name, the
verdict line and the median of the gate's metric per arm (bars with their 95 % CI whiskers:
series time or page load where the gate judged those, total time per request otherwise), drawn
from the report document (so from the stored analysis)."""

import io
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1200, 630
BACKGROUND = (248, 250, 252)
INK = (17, 24, 39)
MUTED = (75, 85, 99)
# The dashboard's arm palette order (frontend build-charts), with hatching as a second cue.
ARM_COLORS = [(37, 99, 235), (234, 88, 12), (22, 163, 74), (147, 51, 234), (219, 39, 119), (8, 145, 178)]
OUTCOME_COLORS = {"improvement": (22, 163, 74), "regression": (220, 38, 38), "equivalent": (37, 99, 235),
                  "inconclusive": (202, 138, 4)}


# A system font with −, δ, × and ∞ when there is one (Debian's fonts-dejavu-core, which Chromium
# pulls in); otherwise Pillow's own font, with those characters spelled in ASCII (∞: an
# infinite effect, as latencylab_contract.verdict_numbers writes it).
SYSTEM_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
ASCII_SPELLING = str.maketrans({"−": "-", "δ": "d", "×": "x", "–": "-", "…": "...", "∞": "inf"})


def _system_font() -> str | None:
    return next((path for path in SYSTEM_FONTS if Path(path).is_file()), None)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _system_font()
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size=size)


def _text(value: object) -> str:
    text = str(value)
    return text if _system_font() else text.translate(ASCII_SPELLING)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int, max_lines: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if draw.textlength(candidate, font=font) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        while lines[-1] and draw.textlength(lines[-1] + "…", font=font) > width:
            lines[-1] = lines[-1][:-1]
        lines[-1] += "…"
    return lines


# What the bars show, per gate metric: the card's chart never contradicts its verdict line.
CHART_TITLES = {"series_ms": "Median series time", "page_load_ms": "Median page load"}


def chart_rows(document: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    """The chart's title, and the first device × profile group's median per arm with its CI: of
    the gate's group metric when it judged one (its `group_times`), else of total time per request."""
    results = document.get("results") or {}
    analysis = results.get("analysis") or {}
    metric = ((document.get("verdict") or {}).get("gate") or {}).get("metric", "total_ms")
    grouped = [row for row in analysis.get("group_times") or [] if row.get("metric") == metric and row.get("n")]
    if metric in CHART_TITLES and grouped:
        title, rows = CHART_TITLES[metric], grouped
    else:
        title = "Median total time"
        rows = [row for row in analysis.get("requests") or [] if row.get("metric", "total_ms") == "total_ms"
                and row.get("n")]
    if not rows:
        return title, "", []
    device, profile = rows[0].get("device"), rows[0].get("profile")
    arms = results.get("arms") or []
    group = [row for row in rows if row.get("device") == device and row.get("profile") == profile]
    group.sort(key=lambda row: arms.index(row["arm"]) if row.get("arm") in arms else len(arms))
    return title, f"{device} · {profile}", group


def render_card(document: dict[str, Any]) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    margin = 56
    draw.text((margin, 36), "LatencyLab report", font=_font(24), fill=MUTED)
    title_font = _font(46)
    y = 72
    for line in _wrap(draw, _text(document.get("name") or "Comparison"), title_font, WIDTH - 2 * margin, 2):
        draw.text((margin, y), line, font=title_font, fill=INK)
        y += 58
    outcome = str((document.get("verdict") or {}).get("outcome") or document.get("status") or "")
    line_font = _font(26)
    accent = OUTCOME_COLORS.get(outcome, MUTED)
    draw.rectangle((margin, y + 8, margin + 8, y + 8 + 2 * 36 - 6), fill=accent)
    for line in _wrap(draw, _text(document.get("verdict_line") or ""), line_font, WIDTH - 2 * margin - 24, 2):
        draw.text((margin + 24, y + 6), line, font=line_font, fill=INK)
        y += 36
    _draw_chart(draw, document, top=max(y + 36, 260), left=margin, right=WIDTH - margin, bottom=HEIGHT - 48)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _draw_chart(draw: ImageDraw.ImageDraw, document: dict[str, Any], *, top: int, left: int, right: int,
                bottom: int) -> None:
    title, subtitle, rows = chart_rows(document)
    small = _font(20)
    if not rows:
        draw.text((left, top), "No results yet.", font=small, fill=MUTED)
        return
    draw.text((left, top), _text(f"{title} per arm, 95 % CI · {subtitle}"), font=small, fill=MUTED)
    top += 36
    label_width = 200
    x0, x1 = left + label_width, right - 120
    highest = max(max(row.get("median_ci95_ms") or [row["median_ms"]]) for row in rows) or 1.0
    bar_space = (bottom - top) / len(rows)
    bar_height = min(44, bar_space * 0.6)
    label_font = _font(24)
    for index, row in enumerate(rows):
        color = ARM_COLORS[index % len(ARM_COLORS)]
        middle = top + bar_space * index + bar_space / 2
        draw.text((left, middle - 14), _text(row["arm"])[:16], font=label_font, fill=INK)
        end = x0 + (x1 - x0) * row["median_ms"] / highest
        draw.rectangle((x0, middle - bar_height / 2, end, middle + bar_height / 2), fill=color)
        # Hatching: arms stay apart in greyscale and for colour-blind readers.
        for offset in range(0, int(end - x0), 12 + 6 * index):
            draw.line((x0 + offset, middle + bar_height / 2, x0 + offset + 8, middle - bar_height / 2),
                      fill=(255, 255, 255), width=1)
        low, high = row.get("median_ci95_ms") or [row["median_ms"], row["median_ms"]]
        lx, hx = (x0 + (x1 - x0) * value / highest for value in (low, high))
        draw.line((lx, middle, hx, middle), fill=INK, width=3)
        for x in (lx, hx):
            draw.line((x, middle - 12, x, middle + 12), fill=INK, width=3)
        draw.text((max(end, hx) + 12, middle - 14), f"{row['median_ms']:.1f} ms", font=label_font, fill=INK)
    draw.line((x0, top, x0, bottom), fill=MUTED, width=2)
