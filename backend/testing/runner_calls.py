"""The runner-protocol calls a runner makes, through a test client that speaks as one (the
`runner_api` fixture): lease a run, upload a block of samples."""

from typing import Any

from .factories import make_sample


def lease(runner_api: Any) -> Any:
    """Ask for a run for the fixture's host device, without waiting."""
    return runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0}, format="json")


def upload(runner_api: Any, leased: dict, block: int, samples: list[dict] | None = None, **extra: Any) -> Any:
    """Upload one block (six h2 samples unless `samples` says otherwise) for a leased run."""
    body = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": block, "block": block,
            "baseline": {"tcp": {"n": 10, "avg_ms": 0.05}},
            "samples": samples if samples is not None else [make_sample("h2", block, i) for i in range(6)], **extra}
    return runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples", body, format="json")
