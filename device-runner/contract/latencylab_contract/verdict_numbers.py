"""How a verdict's numbers are written: effects, their confidence intervals, margins, effect
sizes (Cliff's δ, Cohen's d), ratios and p-values.

One rule for every place a person reads a verdict — the summary line the service stores, the
CLI's text, JUnit, Markdown and PR comment, the dashboard — so the same verdict reads the same
everywhere. This module is the rule's one Python implementation: the backend's summary lines
(apps.results.analysis.verdict) and the CLI's tables (latencylab_cli.render) import it from
here; the CLI formats a saved verdict document offline, so the rule ships with the contract,
standard library only. The dashboard's TypeScript (frontend/src/utils/format.ts) writes the
same rule; both pass verdict-format-vectors.json beside this module, and docs/methodology.md
§8.2 states the rule.

- Rounding is half away from zero, on the shortest decimal that reads back as the float (its
  `repr`): 10.5 → 11, 2.25 → 2.3, 1.005 → 1.01, as a printed table rounds. Neither `round()`
  (half to even) nor `format(x, ".1f")` (the binary expansion: 2.25 → 2.2, 1.005 → 1.00) does.
- Percents: one decimal while the rounded magnitude is below 10, whole percents from 10 up
  (−4.8 %, −12 %, +131 %), thousands grouped with ",", a space before "%".
- Effects carry their sign, "+" or the typographic minus "−"; a value that rounds to zero is
  written without one ("0 %", "0.00"), so −0.0 and −0.04 read as no change.
- Infinite values are written "∞" with their sign; a missing value (None, NaN) is "–".
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import TypeGuard

MINUS = "\u2212"
MISSING = "\u2013"
INFINITY = "\u221e"
# Below this (rounded to one decimal) a percent keeps one decimal; from it up, whole percents.
WHOLE_PERCENT_FROM = Decimal(10)
P_FLOOR = 0.001


def _is_number(value: object) -> TypeGuard[float]:
    """A number to write (not None, NaN or a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _rounded(magnitude: float, digits: int) -> Decimal:
    """|value| rounded half away from zero to `digits` decimals, from its shortest decimal."""
    exact = Decimal(repr(float(magnitude))) if isinstance(magnitude, float) else Decimal(magnitude)
    # Enough precision for every digit of the result (the default 28 would refuse 1e300).
    context = Context(prec=max(exact.adjusted(), 0) + digits + 2)
    return exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=context)


def _digits_text(rounded: Decimal, digits: int) -> str:
    """A rounded non-negative Decimal with `digits` decimals and its thousands grouped."""
    return f"{rounded:,.{digits}f}"


def _sign(value: float, rounded: Decimal) -> str:
    if rounded == 0:
        return ""
    return MINUS if value < 0 else "+"


def fixed(value: float | None, digits: int) -> str:
    """`value` with exactly `digits` decimals, "−" when negative (and not rounding to zero):
    ratios (1.080), speed-ups (1.08)."""
    if not _is_number(value):
        return MISSING
    if math.isinf(value):
        return f"{MINUS if value < 0 else ''}{INFINITY}"
    rounded = _rounded(abs(value), digits)
    return f"{MINUS if value < 0 and rounded != 0 else ''}{_digits_text(rounded, digits)}"


def signed(value: float | None, digits: int = 2) -> str:
    """An effect size with its sign: Cliff's δ +0.41, −0.93; 0.00 for no effect."""
    if not _is_number(value):
        return MISSING
    if math.isinf(value):
        return f"{MINUS if value < 0 else '+'}{INFINITY}"
    rounded = _rounded(abs(value), digits)
    return f"{_sign(value, rounded)}{_digits_text(rounded, digits)}"


def _percent_magnitude(magnitude: float) -> str:
    """`magnitude` ≥ 0 in percent: one decimal below 10 (after rounding), whole from 10 up,
    "0" for what rounds to zero."""
    if math.isinf(magnitude):
        return INFINITY
    tenths = _rounded(magnitude, 1)
    if tenths == 0:
        return "0"
    if tenths < WHOLE_PERCENT_FROM:
        return _digits_text(tenths, 1)
    return _digits_text(_rounded(magnitude, 0), 0)


def effect_pct(value: float | None) -> str:
    """A change in percent with its sign: +11 %, −4.8 %, 0 %."""
    if not _is_number(value):
        return MISSING
    magnitude = _percent_magnitude(abs(value))
    if magnitude == "0":
        return "0 %"
    return f"{MINUS if value < 0 else '+'}{magnitude} %"


def effect_with_ci(value: float | None, ci: tuple[float | None, float | None] | list | None) -> str:
    """A change and its confidence interval: −4.8 % [−12 %, +1.0 %] (each number by the same
    rule; the point alone when there is no interval)."""
    point = effect_pct(value)
    if point == MISSING or not ci or len(ci) != 2:
        return point
    return f"{point} [{effect_pct(ci[0])}, {effect_pct(ci[1])}]"


def margin_pct(value: float | None) -> str:
    """A margin in percent, without a sign (the text puts "±" before it): 44 %, 4.5 %."""
    if not _is_number(value):
        return MISSING
    return f"{_percent_magnitude(abs(value))} %"


def p_value(p: float | None) -> str:
    """A p-value: < 0.001, or three decimals (0.012); n/a when there is none."""
    if not _is_number(p) or math.isinf(p):
        return "n/a"
    return f"< {P_FLOOR}" if p < P_FLOOR else fixed(p, 3)
