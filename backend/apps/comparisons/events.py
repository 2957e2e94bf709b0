"""Events the comparisons app publishes (apps.core.events); payload: comparison_id (str),
and for COMPARISON_CANCELLED also organization_id, comparison_name, actor_id and
actor_token_id (apps.accounts.actor.Actor.event_fields)."""

COMPARISON_CREATED = "comparison.created"  # planning into runs may start
COMPARISON_RUNS_DONE = "comparison.runs_done"  # every run is terminal; the comparison is analysing
COMPARISON_ENDED = "comparison.ended"  # finished, failed or cancelled: subscribers notify
COMPARISON_CANCELLED = "comparison.cancelled"  # someone cancelled it (the audit log's record)
