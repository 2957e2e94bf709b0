"""How a fastlane lane that prepares a phone ends badly, the same on Android and iOS: the
failure (with the lane's log as the block's evidence) and the ends every platform's lane
shares. What a lane's own exit code means is each platform's harness's to judge."""

from __future__ import annotations

from .fastlane import LaneRun
from .outcome import BlockFailure
from .phone import Cancelled


class LaneFailure(BlockFailure):
    """A preparation lane that failed; its log is the block's evidence."""

    def __init__(self, error_kind: str, message: str, log: bytes):
        super().__init__(error_kind, message)
        self.log = log


def check_lane_ended(run: LaneRun, what: str) -> None:
    """The ends every platform's lane shares: cancelled, never started (the runner's), or
    killed at its time limit. A lane that ran to its own exit code is the caller's to judge."""
    if run.cancelled:
        raise Cancelled()
    if run.start_error:
        raise LaneFailure("runner_fault", run.start_error, run.log)
    if run.timed_out:
        raise LaneFailure("timeout", f"{what}: the lane ran over its {run.seconds:.0f} s limit and was killed", run.log)
