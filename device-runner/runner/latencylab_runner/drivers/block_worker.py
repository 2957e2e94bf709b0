"""Runs one job document inside another network namespace (the client side of an
emulated link): `ip netns exec <ns> python -m latencylab_runner.drivers.block_worker`.

A Python process cannot move one thread into a namespace, so the host driver hands each
block to this worker: `{"job": JOB, "baseline_origin": [host, port]}` arrives as JSON on
stdin, the result document (with the baseline measured from inside) leaves on stdout."""

import json
import sys

from ..agent.baseline import measure_baseline
from .probe_harness import execute_job


def main() -> int:
    message = json.load(sys.stdin)
    host, port = message["baseline_origin"]
    baseline = measure_baseline(host, int(port))
    result = execute_job(message["job"])
    result["baseline"] = baseline
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
