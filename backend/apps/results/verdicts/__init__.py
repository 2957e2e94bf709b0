"""The CI gate's verdicts.

- `gate`: the verdict document and the overall outcome from the engine's arm comparisons,
  the one place that rule lives (pure: no Django; the dashboard's fixture script uses it);
- `config`: the margin and α a comparison's verdicts are decided with;
- `ci_verdict`: GET /comparisons/{id}/verdict, within the comparison or against a baseline
  comparison;
- `verdict_cache`: those verdicts kept in the shared cache.

May import: the statistics engine, storage (the loader, the analysis cache, retention),
selectors, the app's models and the lower apps. Never the readers or ingest: the readers
import the verdicts (the home's headline), not the other way round.
"""
