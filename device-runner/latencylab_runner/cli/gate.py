"""From a verdict document to the gate's outcome and exit code (DESIGN §8).

The outcome is recomputed from the per-verdict outcomes rather than taken from the
document's summary field; if the two disagree the worse one wins and a warning is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import EXIT_INCONCLUSIVE, EXIT_PASS, EXIT_REGRESSION

FAIL_ON_CHOICES = ("regression", "inconclusive", "never")
# Worse outcomes rank higher. no_data (nothing to compare) is treated like inconclusive:
# the gate could not show the change is harmless, nor that it is harmful.
SEVERITY = {"improvement": 0, "equivalent": 0, "no_data": 1, "inconclusive": 2, "regression": 3}


@dataclass
class GateResult:
    document: dict[str, Any]
    outcome: str
    exit_code: int
    fail_on: str
    baseline_ref: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def verdicts(self) -> list[dict[str, Any]]:
        return list(self.document.get("verdicts") or [])

    @property
    def gating_verdicts(self) -> list[dict[str, Any]]:
        return [v for v in self.verdicts if not v.get("advisory")]


def worst_outcome(outcomes: list[str]) -> str:
    if not outcomes:
        return "no_data"
    worst = max(outcomes, key=lambda o: SEVERITY.get(o, SEVERITY["inconclusive"]))
    if worst not in SEVERITY:
        return "inconclusive"
    if SEVERITY[worst] == 0:
        return "improvement" if "improvement" in outcomes else "equivalent"
    return worst


def exit_code_for(outcome: str, fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_PASS
    if outcome == "regression":
        return EXIT_REGRESSION
    if outcome in ("inconclusive", "no_data"):
        return EXIT_INCONCLUSIVE if fail_on == "inconclusive" else EXIT_PASS
    return EXIT_PASS


def evaluate(document: dict[str, Any], *, fail_on: str, baseline_ref: str | None = None) -> GateResult:
    warnings: list[str] = []
    verdicts = [v for v in (document.get("verdicts") or []) if isinstance(v, dict)]
    gating = [v for v in verdicts if not v.get("advisory")]
    outcomes = [str(v.get("outcome") or "no_data") for v in gating]
    for unknown in sorted({o for o in outcomes if o not in SEVERITY}):
        warnings.append(f"unknown verdict outcome {unknown!r}; treated as inconclusive")
    outcome = worst_outcome(outcomes)
    declared = document.get("outcome")
    if declared and declared != outcome:
        # A pass/pass disagreement (improvement vs equivalent) is cosmetic; anything else is not.
        if SEVERITY.get(str(declared), SEVERITY["inconclusive"]) > SEVERITY[outcome]:
            warnings.append(f"the server's overall outcome is {declared!r} but the verdicts say {outcome!r}; "
                            f"using {declared!r}")
            outcome = str(declared) if declared in SEVERITY else "inconclusive"
        elif SEVERITY.get(str(declared), -1) != SEVERITY[outcome]:
            warnings.append(f"the server's overall outcome is {declared!r} but the verdicts say {outcome!r}; "
                            f"using {outcome!r}")
    if not gating:
        detail = document.get("detail") or document.get("message")
        warnings.append(f"no verdicts to gate on{': ' + str(detail) if detail else ''}")
    return GateResult(
        document=document,
        outcome=outcome,
        exit_code=exit_code_for(outcome, fail_on),
        fail_on=fail_on,
        baseline_ref=baseline_ref,
        warnings=warnings,
    )
