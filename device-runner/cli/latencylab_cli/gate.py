"""From a verdict document to the gate's outcome and exit code (docs/ci.md §4).

The overall outcome is the server's (`outcome` of GET /api/v1/comparisons/{id}/verdict,
with `outcome_reason`): the CLI never recomputes it, so the CLI, the dashboard and the
webhooks cannot disagree. What the CLI decides is only the exit code, from that outcome
and --fail-on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import EXIT_INCONCLUSIVE, EXIT_PASS, EXIT_REGRESSION

FAIL_ON_CHOICES = ("regression", "inconclusive", "never")
# The outcomes the server sends (OpenAPI component OverallOutcome); a verdict line has the
# first four.
OUTCOMES = ("regression", "inconclusive", "improvement", "equivalent", "no_data")
PASSING = ("improvement", "equivalent")


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
        return [v for v in (self.document.get("verdicts") or []) if isinstance(v, dict)]

    @property
    def reason(self) -> str:
        return str(self.document.get("outcome_reason") or "")


def exit_code_for(outcome: str, fail_on: str) -> int:
    if fail_on == "never":
        return EXIT_PASS
    if outcome == "regression":
        return EXIT_REGRESSION
    if outcome in ("inconclusive", "no_data"):
        # Nothing shown either way: the change was not shown harmless, nor harmful.
        return EXIT_INCONCLUSIVE if fail_on == "inconclusive" else EXIT_PASS
    return EXIT_PASS


def evaluate(document: dict[str, Any], *, fail_on: str, baseline_ref: str | None = None) -> GateResult:
    warnings: list[str] = []
    outcome = str(document.get("outcome") or "")
    if outcome not in OUTCOMES:
        # A server newer than this CLI: fail safe, as undecided.
        warnings.append(f"unknown overall outcome {outcome!r} from the server; treated as inconclusive")
        outcome = "inconclusive"
    if outcome == "no_data":
        reason = document.get("outcome_reason") or document.get("detail")
        warnings.append(f"no verdicts to gate on{': ' + str(reason) if reason else ''}")
    return GateResult(
        document=document,
        outcome=outcome,
        exit_code=exit_code_for(outcome, fail_on),
        fail_on=fail_on,
        baseline_ref=baseline_ref,
        warnings=warnings,
    )
