"""Who is blamed for each way a run's attempt ends badly: the wire contract's one table
(latencylab_contract's error-kinds.json), which the runner reads too. The scheduler acts on
the blame (apps.scheduler.leasing.run_finish):

- device: the run is retried elsewhere and the fault counts towards the device's quarantine;
- lab: retried; counts towards the runner's breaker (the lab's reference target, shaping or
  harness build would fail on every phone of the lab);
- runner: retried; counts against nothing (the agent's own error, or it went quiet);
- customer_target: the comparison's own endpoint: the run and its comparison fail;
- run: the harness ran and reported the block failed: the run fails.
"""

from latencylab_contract import blame_of, error_kinds

DEVICE, LAB, RUNNER, CUSTOMER_TARGET, RUN = "device", "lab", "runner", "customer_target", "run"

__all__ = ["CUSTOMER_TARGET", "DEVICE", "LAB", "RUN", "RUNNER", "blame_of", "reported_kinds"]


def reported_kinds(status: str) -> list[str]:
    """The kinds a runner may report with `status` (failed or infra_error)."""
    return [kind for kind, row in error_kinds().items() if row["runner_reports"] and row["status"] == status]
