"""The job document the CI workflow (.github/workflows/ios-harness.yml) has the Swift harness
run on the iOS Simulator: one block against the reference target on this machine, built by
the runner's own job builder (so it is the document a lab's iPhone would get), its CA bundle
the target's. The Simulator shares the Mac's loopback, so 127.0.0.1 reaches the target.

    python make_job.py --ca TLS_DIR/ca.pem --out job.json [--plain-port 8080] [--tls-port 8443]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job

# h2 and gRPC over TLS (URLSession, grpc-swift), warm and cold, a few calls each: small enough for
# a CI minute, enough to see connection reuse and new connections. h3 stays out: QUIC from the
# Simulator to a loopback target with a private CA is Apple's stack to prove on a lab's phone.
SPEC = {"name": "ios-harness-ci", "seed": 11, "blocks": 1, "timeout_s": 10, "baseline_arm": "h2-warm",
        "workload": {"kind": "api", "rounds": 2, "calls": 3, "request_bytes": 256, "warmup": 1, "gap_ms": 0},
        "arms": [{"label": "h2-warm", "protocol": "h2", "connection": "warm", "endpoint": None, "ca_bundle": None},
                 {"label": "h2-cold", "protocol": "h2", "connection": "cold", "endpoint": None, "ca_bundle": None},
                 {"label": "grpc-warm", "protocol": "grpc", "connection": "warm", "endpoint": None,
                  "ca_bundle": None}]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ca", type=Path, required=True, help="the reference target's CA (its --tls-dir/ca.pem)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--plain-port", type=int, default=8080)
    parser.add_argument("--tls-port", type=int, default=8443)
    args = parser.parse_args(argv)
    target = ReferenceTarget("127.0.0.1", args.plain_port, args.tls_port, "localhost", str(args.ca))
    job = build_job(SPEC, run_id="ios-harness-ci", block=0, attempt=1, target=target)
    args.out.write_text(json.dumps(job))
    print(f"{args.out}: {len(job['requests'])} requests on {', '.join(arm['label'] for arm in job['arms'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
