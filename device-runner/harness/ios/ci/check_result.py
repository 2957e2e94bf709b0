"""Checks the result document the Swift harness attached to its XCTest on the iOS Simulator
(.github/workflows/ios-harness.yml): found through xcresulttool's manifest.json
(`xcrun xcresulttool export attachments`), valid against the contract, answering the job
sample for sample (the runner's own checks, drivers/outcome.parse_result), and every sample
of the `--require-ok` arms a real 200 response.

    python check_result.py --attachments DIR --job job.json [--require-ok h2-warm …]"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from latencylab_runner.drivers.outcome import BlockFailure, parse_result
from latencylab_runner.drivers.xcresult import attachment_in


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attachments", type=Path, required=True, help="xcresulttool's export folder")
    parser.add_argument("--job", type=Path, required=True)
    parser.add_argument("--require-ok", nargs="*", default=[], metavar="ARM")
    args = parser.parse_args(argv)
    found = attachment_in(args.attachments)
    if found is None:
        print(f"check_result: no latencylab-result attachment in {args.attachments}/manifest.json")
        return 1
    job = json.loads(args.job.read_text())
    try:
        result = parse_result(found.read_bytes(), job, lane_exit=0)
    except BlockFailure as failure:
        print(f"check_result: {failure.error_kind}: {failure.message}")
        return 1
    outcomes = Counter((s["arm"], s["error_class"] or s["status"]) for s in result["samples"])
    for (arm, outcome), count in sorted(outcomes.items(), key=str):
        print(f"{arm}: {count} × {outcome}")
    print(f"client stacks: {result['fingerprint']['client_stacks']}")
    bad = [s for s in result["samples"] if s["arm"] in args.require_ok and (s["error_class"] or s["status"] != 200)]
    if bad:
        print(f"check_result: {len(bad)} samples of {', '.join(args.require_ok)} are not 200 responses, e.g. "
              f"{bad[0]['error_class']}: {bad[0].get('error_detail')}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
