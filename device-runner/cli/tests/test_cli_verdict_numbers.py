"""The CLI writes a verdict's numbers by the server's rule: its copy of the rule passes the
vectors the backend and the dashboard pass (contract/latencylab_contract/verdict-format-vectors.json), and its
Markdown/PR-comment change column reads as the server's summary line does."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from latencylab_cli import verdict_numbers
from latencylab_cli.render import fmt_change, fmt_cliffs, fmt_p

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "contract" / "latencylab_contract"
                      / "verdict-format-vectors.json").read_text())
# JSON has no infinities or NaN; the vectors spell them as strings.
SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def number(value: Any) -> Any:
    return SPECIAL[value] if isinstance(value, str) else value


def all_cases() -> list[tuple[str, dict[str, Any]]]:
    return [(kind, case) for kind, cases in VECTORS["vectors"].items() for case in cases]


@pytest.mark.parametrize("kind, case", all_cases(),
                         ids=[f"{kind}:{case['value']}->{case['text']}" for kind, case in all_cases()])
def test_shared_vectors(kind: str, case: dict[str, Any]) -> None:
    value = number(case["value"])
    if kind == "effect_with_ci":
        text = verdict_numbers.effect_with_ci(value, None if case["ci"] is None else [number(x) for x in case["ci"]])
    elif kind == "fixed":
        text = verdict_numbers.fixed(value, case["digits"])
    else:
        text = getattr(verdict_numbers, kind)(value)
    assert text == case["text"]


def test_the_table_writes_what_the_summary_line_writes() -> None:
    """The same verdict once read "−5 % [−12 %, +1 %]" in the PR comment beside the server's
    "−4.8 % [−12 %, +1.0 %]"."""
    verdict = {"ratio": 0.9517, "ci95": [0.878, 1.0104], "cliffs_delta": 0.125, "cliffs_label": "negligible",
               "p_adjusted": 0.0145,
               "summary": "h3 vs https-h1, host / lte: median −4.8 % [−12 %, +1.0 %], Cliff's δ +0.13, p = 0.015, "
                          "8 blocks × 1 device"}
    assert fmt_change(verdict) == "−4.8 % [−12 %, +1.0 %]"
    assert fmt_cliffs(verdict) == "+0.13 negligible"
    assert fmt_p(verdict) == "0.015"
    for text in (fmt_change(verdict), fmt_cliffs(verdict).split()[0], fmt_p(verdict)):
        assert text in verdict["summary"]
