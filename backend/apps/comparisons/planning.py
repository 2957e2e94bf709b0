"""How a normalized spec becomes runs, and what those runs will measure.

One plan for the scheduler (services.comparison_plan creates these runs) and for the
builder's estimate (selectors.comparison_estimate counts their requests), so the estimate
cannot drift from what is booked.
"""

from dataclasses import dataclass
from typing import Any

from .spec import blocks_range, requests_per_run, wire_spec


@dataclass(frozen=True)
class PlannedRun:
    slot: int
    network_profile: str
    # Blocks the run is scheduled for at first; run until decided: min, extended up to max.
    blocks_first: int
    blocks_max: int


def planned_runs(spec: dict[str, Any]) -> list[PlannedRun]:
    """One run per device slot × network profile, in the order they are created."""
    bounds = blocks_range(spec)
    first, most = (spec["blocks"], spec["blocks"]) if bounds is None else bounds
    return [PlannedRun(slot=slot, network_profile=profile, blocks_first=first, blocks_max=most)
            for slot in range(spec["devices"]["count"]) for profile in spec["network_profiles"]]


def measured_requests(spec: dict[str, Any], *, blocks: int) -> int:
    """Measured requests (warm-ups excluded) of one run of `blocks` blocks, over every arm:
    what the runner is sent (wire_spec) and the size guard counts (requests_per_run)."""
    return requests_per_run(wire_spec(spec, blocks=blocks)["workload"], arms=len(spec["arms"]))
