"""Builders of test data: a small comparison spec, runner-protocol samples, and a comparison
measured through the runner protocol and analysed by the real engine."""

from typing import Any

import numpy as np

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.services import comparison_analyse

# Two blocks of a 3-request series: the smallest spec that exercises leasing, resuming and analysis.
SPEC = {
    "name": "proto",
    "preset": "mid-image-series",
    # Sequential (the preset's is parallel 4): runs on every platform, series timed as sums.
    "workload": {"kind": "series", "periods": [3], "repetitions": 2, "concurrency": "sequential"},
    "blocks": 2,
    "seed": 1,
}


def make_sample(arm: str, block: int, seq: int, **extra: Any) -> dict[str, Any]:
    """A valid measured sample of `arm` (device-runner/contract/sample.schema.json); `extra`
    overrides any field."""
    sample = {
        "arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3, "repetition": block, "step": seq % 3,
        "op": "file", "path": "/files/mid-01", "wall_time": 1_700_000_000_000_000 + seq, "t0": 0,
        "dns_start": None, "dns_end": None, "conn_start": None, "tls_start": None, "conn_ready": None,
        "req_start": 10, "req_end": 20, "resp_first_byte": 400 + seq, "resp_end": 900 + seq, "app_done": 1000 + seq,
        "conn_id": "c1", "conn_reused": True, "alpn": "h2", "tls_version": "TLSv1.3", "tls_resumed": False,
        "early_data": False, "req_bytes": 40, "resp_bytes": 106941, "status": 200, "server_delay_ms": None,
        "server_time_us": 12, "srtt_us": 50, "retrans": 0, "error_class": None, "error_detail": None,
    }
    sample.update(extra)
    return sample


def run_measured_comparison(runner_api, org, *, spec: dict, speed: dict[str, float], seed: int,
                            blocks: int = 10, times: dict[str, np.ndarray] | None = None) -> Comparison:
    """Create, lease, upload `blocks` blocks (3 requests per arm each, 20 ms × the arm's
    speed factor × lognormal noise, or `times[arm][block, step]` µs when given), finish and
    analyse; the comparison ends finished."""
    rng = np.random.default_rng(seed)
    comparison = comparison_create(organization=org, submitted_spec=spec)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    for block in range(blocks):
        samples, seq = [], 0
        for arm, factor in speed.items():
            for step in range(3):
                total = int(times[arm][block, step]) if times else int(20_000 * factor * rng.lognormal(0, 0.1))
                samples.append({"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3,
                                "repetition": block, "step": step, "wall_time": 1, "t0": 0, "req_start": 10,
                                "resp_first_byte": total // 2, "app_done": total, "resp_bytes": 1000,
                                "conn_reused": True, "error_class": None})
                seq += 1
        response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                                   {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": block,
                                    "block": block, "samples": samples}, format="json")
        assert response.status_code == 200, response.content
    runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                    {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    comparison_analyse(comparison_id=str(comparison.id))
    comparison.refresh_from_db()
    assert comparison.status == "finished"
    return comparison
