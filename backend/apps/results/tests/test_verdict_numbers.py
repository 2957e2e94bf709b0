"""The one rule for a verdict's numbers, held to the vectors the CLI and the dashboard pass
too (device-runner/contract/latencylab_contract/verdict-format-vectors.json), and the summary line written by it."""

import json
import math
from pathlib import Path

import pytest

from apps.results.analysis import verdict_numbers
from apps.results.analysis.verdict import summary_line

VECTORS = json.loads(
    (Path(__file__).resolve().parents[4] / "device-runner" / "contract" / "latencylab_contract"
    / "verdict-format-vectors.json").read_text())
# JSON has no infinities or NaN; the vectors spell them as strings.
SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def number(value):
    return SPECIAL[value] if isinstance(value, str) else value


def cases(kind):
    return pytest.mark.parametrize("case", VECTORS["vectors"][kind],
                                   ids=[f"{c['value']}->{c['text']}" for c in VECTORS["vectors"][kind]])


def test_every_kind_of_vector_is_tested_here():
    assert set(VECTORS["vectors"]) == {"effect_pct", "effect_with_ci", "margin_pct", "signed", "fixed", "p_value"}


@cases("effect_pct")
def test_effect_pct(case):
    assert verdict_numbers.effect_pct(number(case["value"])) == case["text"]


@cases("effect_with_ci")
def test_effect_with_ci(case):
    ci = None if case["ci"] is None else [number(x) for x in case["ci"]]
    assert verdict_numbers.effect_with_ci(number(case["value"]), ci) == case["text"]


@cases("margin_pct")
def test_margin_pct(case):
    assert verdict_numbers.margin_pct(number(case["value"])) == case["text"]


@cases("signed")
def test_signed(case):
    assert verdict_numbers.signed(number(case["value"])) == case["text"]


@cases("fixed")
def test_fixed(case):
    assert verdict_numbers.fixed(number(case["value"]), case["digits"]) == case["text"]


@cases("p_value")
def test_p_value(case):
    assert verdict_numbers.p_value(number(case["value"])) == case["text"]


def test_the_summary_line_writes_its_numbers_by_the_rule():
    """The issue's example: the CLI wrote −5 % [−12 %, +1 %] beside this line."""
    line = summary_line(arm="h3", baseline_arm="https-h1", metric="total_ms", device_class="host", profile="lte",
                        ratio=0.9517, ci95=(0.878, 1.0104), cliffs_delta=0.125, p=0.0145, blocks_per_device=8,
                        devices=1)
    assert line == ("h3 vs https-h1, host / lte: median −4.8 % [−12 %, +1.0 %], Cliff's δ +0.13, p = 0.015, "
                    "8 blocks × 1 device")
