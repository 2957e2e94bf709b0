"""Events the comparisons app publishes (apps.core.events); payload: comparison_id (str)."""

COMPARISON_CREATED = "comparison.created"  # planning into runs may start
COMPARISON_RUNS_DONE = "comparison.runs_done"  # every run is terminal; the comparison is analysing
COMPARISON_ENDED = "comparison.ended"  # finished, failed or cancelled: subscribers notify
