"""LatencyLab statistics engine: pure numpy/scipy, no Django.

Entry points:
    analyze_comparison(table, baseline_arm=..., baselines=..., metrics=..., config=...) -> dict
    compare_arms(table, baseline_arm=..., metrics=..., config=...) -> list[ArmComparison]
    describe / series_summary / first_vs_rest / delay_sweep / payload_sweep -> list[dict]
    aa_false_positive_rate / simulate_comparisons -> SimulationResult
    reproduce_published_summaries(fixture) -> dict  (seeds/003)
"""

from .calibration import SimulationResult, aa_false_positive_rate, simulate_comparisons
from .compare import ArmComparison, compare_arms
from .connection import first_vs_rest
from .descriptive import describe
from .effects import cliffs_delta, cliffs_label, cohens_d_log, cohens_label, percentage_gain, speedup
from .report import analyze_comparison, to_jsonable
from .seed_fixture import fixture_sample_table, reproduce_published_summaries, summaries_via_engine
from .series import series_summary, series_times
from .significance import block_t_test, holm_adjust, mann_whitney_p
from .sweeps import delay_sweep, payload_sweep
from .synthetic import synthetic_table
from .table import BlockBaselines, SampleTable
from .verdict import EQUIVALENT, IMPROVEMENT, INCONCLUSIVE, REGRESSION, Verdict, VerdictConfig

__all__ = [
    "EQUIVALENT", "IMPROVEMENT", "INCONCLUSIVE", "REGRESSION",
    "ArmComparison", "BlockBaselines", "SampleTable", "SimulationResult", "Verdict", "VerdictConfig",
    "aa_false_positive_rate", "analyze_comparison", "block_t_test", "cliffs_delta", "cliffs_label",
    "cohens_d_log", "cohens_label", "compare_arms", "delay_sweep", "describe", "first_vs_rest",
    "fixture_sample_table", "holm_adjust", "mann_whitney_p", "payload_sweep", "percentage_gain",
    "reproduce_published_summaries", "series_summary", "series_times", "simulate_comparisons", "speedup",
    "summaries_via_engine", "synthetic_table", "to_jsonable",
]
