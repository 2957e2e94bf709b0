"""What a comparison's verdicts are decided with: the margin and the α of its spec's gate, at
the α of its last look when it ran until decided. The analysis (apps.results.services) and
the /verdict endpoint (ci_verdict) read it here, so both judge alike."""

from typing import Any

from apps.comparisons.models import Comparison

from ..analysis import VerdictConfig


def verdict_config(spec: dict[str, Any], *, alpha: float | None = None) -> VerdictConfig:
    """The spec's gate; `alpha` replaces its α (a run-until-decided look tests at its share)."""
    gate = spec.get("gate") or {}
    return VerdictConfig(margin_pct=float(gate.get("margin_pct", 5.0)),
                         alpha=float(gate.get("alpha", 0.01)) if alpha is None else alpha)


def comparison_verdict_config(comparison: Comparison) -> VerdictConfig:
    """What a comparison's verdicts are decided with: its gate, at the α of its last look when
    it ran until decided (so a verdict against another comparison spends no more α)."""
    last = comparison.verdict_looks.order_by("-look").first()
    return verdict_config(comparison.spec, alpha=last.alpha if last else None)
