"""Measuring leased runs in the test's own thread with the host runner's parts
(device-runner drivers/host.py, as it runs a profile-none block): the real job builder
turns each block into the contract's job, the real probe harness executes it over real
sockets against the reference target the test started, and the block and the run's end go
back through the runner protocol. Left out of what the agent does around them: heartbeats,
long-polls, the ICMP half of the baseline (the system ping paces its echoes 0.2 s apart)
and a network profile's emulated link: a run keeps its profile's name, measured on
loopback. Imports the device-runner package."""

from __future__ import annotations

from typing import Any

from latencylab_runner.agent.baseline import tcp_connect_rtt
from latencylab_runner.drivers.host import baseline_origin, block_batch
from latencylab_runner.drivers.probe_harness import execute_job, host_fingerprint
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems


def measure_lease(runner_api: Any, lease: dict[str, Any], target: ReferenceTarget) -> None:
    """Every block the lease has left, uploaded one batch a block, then the run finished ok."""
    spec = lease["spec"]
    for block in range(lease["next_block"], int(spec["blocks"])):
        job = build_job(spec, run_id=lease["run_id"], block=block, attempt=lease["attempt"], target=target,
                        secrets=lease.get("secrets"))
        result = execute_job(job)
        assert result["status"] == "ok", result.get("error")
        assert result_problems(job, result) == []
        result["baseline"] = {"tcp": tcp_connect_rtt(*baseline_origin(spec, target), count=3)}
        response = runner_api.post(f"/api/runner/v1/runs/{lease['run_id']}/samples",
                                   block_batch(lease, block, result), format="json")
        assert response.status_code == 200, response.content
    protocols = {arm["protocol"] for arm in spec["arms"]}
    response = runner_api.post(f"/api/runner/v1/runs/{lease['run_id']}/finish",
                               {"lease_token": lease["lease_token"], "status": "ok",
                                "fingerprint": host_fingerprint(protocols),
                                "link": {"profile": lease["network_profile"]["name"], "measured": None}},
                               format="json")
    assert response.status_code == 200, response.content


def measure_queued_runs(runner_api: Any, target: ReferenceTarget, *, serial: str = "host-lab-1") -> int:
    """Lease the device's runs one after another and measure each, until none is queued for
    it; how many runs were measured."""
    measured = 0
    while True:
        response = runner_api.post("/api/runner/v1/lease", {"devices": [serial], "wait_s": 0}, format="json")
        if response.status_code == 204:
            return measured
        assert response.status_code == 200, response.content
        runs = response.json()["runs"]
        if not runs:
            return measured
        for lease in runs:
            measure_lease(runner_api, lease, target)
            measured += 1
