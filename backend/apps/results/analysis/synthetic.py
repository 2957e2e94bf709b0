"""Synthetic sample tables with known effects, for tests, benchmarks and A/A calibration.

Log latency = base + arm effect + device effect + block effect (shared by the
arms of a block, as network weather is) + block×arm jitter + request noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .table import BlockBaselines, SampleTable


def _template(periods: Sequence[int] | None, repetitions: int, requests_per_block: int) -> tuple[np.ndarray, ...]:
    """(period, repetition, step) of the requests one arm makes in one block."""
    if not periods:
        steps = np.arange(requests_per_block)
        return np.full(len(steps), -1), np.full(len(steps), -1), steps
    period = np.concatenate([np.full(p * repetitions, p) for p in periods])
    repetition = np.concatenate([np.repeat(np.arange(repetitions), p) for p in periods])
    step = np.concatenate([np.tile(np.arange(p), repetitions) for p in periods])
    return period, repetition, step


def synthetic_table(
    *,
    arm_ratios: Mapping[str, float],
    devices: int = 3,
    device_class: str | None = "host",
    profiles: Sequence[str] = ("lte",),
    blocks: int = 12,
    requests_per_block: int = 30,
    periods: Sequence[int] | None = None,
    repetitions: int = 1,
    base_ms: float = 100.0,
    request_sigma: float = 0.3,
    device_sigma: float = 0.2,
    block_sigma: float = 0.1,
    block_arm_sigma: float = 0.02,
    first_request_factor: float = 1.0,
    error_rate: float = 0.0,
    resp_bytes: int = 10_000,
    seed: int = 0,
) -> tuple[SampleTable, BlockBaselines]:
    """A table where arm a's latency is ``arm_ratios[a]`` × the first arm's, in law.

    With ``periods`` every block holds, per arm, ``repetitions`` series of each
    period length (a series workload); otherwise ``requests_per_block`` requests.
    """
    rng = np.random.default_rng(seed)
    arms = list(arm_ratios)
    period_t, repetition_t, step_t = _template(periods, repetitions, requests_per_block)
    per_cell = len(step_t)
    n_profiles, n_arms = len(profiles), len(arms)
    n_cells = n_profiles * devices * blocks * n_arms
    n = n_cells * per_cell

    # Cell index = ((profile * devices + device) * blocks + block) * arms + arm.
    cell = np.repeat(np.arange(n_cells, dtype=np.int64), per_cell)
    arm = (cell % n_arms).astype(np.int32)
    block = ((cell // n_arms) % blocks).astype(np.int32)
    device = ((cell // (n_arms * blocks)) % devices).astype(np.int32)
    profile = (cell // (n_arms * blocks * devices)).astype(np.int32)
    run_block = cell // n_arms  # (profile, device, block)

    log_ms = (
        np.log(base_ms)
        + np.log(np.array([arm_ratios[a] for a in arms]))[arm]
        + rng.normal(0.0, device_sigma, devices)[device]
        + np.log1p(np.arange(n_profiles))[profile]  # profiles differ in level
        + rng.normal(0.0, block_sigma, n_cells // n_arms)[run_block]
        + rng.normal(0.0, block_arm_sigma, n_cells)[cell]
        + rng.normal(0.0, request_sigma, n)
    )
    first = np.tile(step_t == 0, n_cells)
    log_ms += np.where(first, np.log(first_request_factor), 0.0)
    total_us = np.maximum(np.rint(np.exp(log_ms) * 1000.0), 1).astype(np.int64)
    ok = rng.random(n) >= error_rate if error_rate > 0 else np.ones(n, dtype=bool)

    table = SampleTable(
        arm=arm, device=device, profile=profile, block=block,
        period=np.tile(period_t, n_cells).astype(np.int32),
        repetition=np.tile(repetition_t, n_cells).astype(np.int32),
        step=np.tile(step_t, n_cells).astype(np.int32),
        phase_measure=np.ones(n, dtype=bool), ok=ok,
        total_us=total_us, ttfb_us=(total_us * 6) // 10,
        resp_bytes=np.full(n, resp_bytes, dtype=np.int64),
        server_delay_us=np.full(n, -1, dtype=np.int64),
        first_on_connection=first,
        arm_labels=tuple(arms),
        device_labels=tuple(f"device-{i}" for i in range(devices)),
        profile_labels=tuple(profiles),
        device_classes=tuple([device_class] * devices) if device_class else (),
    )
    n_blocks = n_profiles * devices * blocks
    b = np.arange(n_blocks)
    baselines = BlockBaselines(
        device=(b // blocks) % devices, profile=b // (blocks * devices), block=b % blocks,
        rtt_avg_us=np.full(n_blocks, base_ms * 1000.0 / 2), rtt_stddev_us=np.full(n_blocks, 1000.0),
        loss_pct=np.zeros(n_blocks))
    return table, baselines
