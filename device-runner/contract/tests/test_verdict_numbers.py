"""The one Python rule for a verdict's numbers (latencylab_contract.verdict_numbers, which the
backend's summary lines and the CLI's tables both import) against the shared vectors the
dashboard's TypeScript passes too (verdict-format-vectors.json beside the module)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from latencylab_contract import contract_dir, verdict_numbers

VECTORS = json.loads((contract_dir() / "verdict-format-vectors.json").read_text(encoding="utf-8"))
# JSON has no infinities or NaN; the vectors spell them as strings.
SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def number(value: Any) -> Any:
    return SPECIAL[value] if isinstance(value, str) else value


def write(kind: str, case: dict[str, Any]) -> str:
    value = number(case["value"])
    if kind == "effect_with_ci":
        return verdict_numbers.effect_with_ci(value, None if case["ci"] is None else [number(x) for x in case["ci"]])
    if kind == "fixed":
        return verdict_numbers.fixed(value, case["digits"])
    return getattr(verdict_numbers, kind)(value)


ALL_CASES = [(kind, case) for kind, cases in VECTORS["vectors"].items() for case in cases]
CASE_IDS = [f"{kind}:{case['value']}->{case['text']}" for kind, case in ALL_CASES]


def test_every_kind_of_vector_is_a_function_of_the_rule():
    assert set(VECTORS["vectors"]) == {"effect_pct", "effect_with_ci", "margin_pct", "signed", "fixed", "p_value"}
    assert all(callable(getattr(verdict_numbers, kind)) for kind in VECTORS["vectors"])


@pytest.mark.parametrize("kind, case", ALL_CASES, ids=CASE_IDS)
def test_shared_vectors(kind: str, case: dict[str, Any]) -> None:
    assert write(kind, case) == case["text"], case["why"]
