"""Runs one block inside another network namespace (the client side of an emulated
link): `ip netns exec <ns> python -m latencylab_runner.drivers.block_worker`.

A Python process cannot move one thread into a namespace, so the host driver hands each
block to this worker: the job arrives as JSON on stdin, the baseline and samples leave
as JSON on stdout."""

import json
import sys

from ..agent.baseline import measure_baseline
from .block import execute_block
from .targets import ReferenceTarget, arm_endpoint


def main() -> int:
    job = json.load(sys.stdin)
    target = ReferenceTarget(**job["target"])
    spec = job["spec"]
    baseline_arm = next(a for a in spec["arms"] if a["label"] == spec["baseline_arm"])
    endpoint = arm_endpoint(baseline_arm, target)
    baseline = measure_baseline(endpoint.host, endpoint.port)
    samples = execute_block(spec, run_id=job["run_id"], block=job["block"], target=target)
    json.dump({"baseline": baseline, "samples": samples}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
