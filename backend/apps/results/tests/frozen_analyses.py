"""The engine's outputs on fixed inputs, frozen as they were before the engine was reworked
for speed (data/frozen-analyses.json.gz): each workload kind's analysis, the calibration
design's verdicts and the seeds/003 tables. test_analysis_frozen.py recomputes every case and
requires the same document, every number to its last digit (a JSON float is the double's
shortest repr, so equal text is the equal double).

The inputs are built here from seeded generators, so the frozen file holds outputs only.
Refresh it only for a change that is meant to move the numbers, and say so in the commit:
    cd backend && ../.venv/bin/python -m apps.results.tests.frozen_analyses
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from apps.results.analysis import (
    BlockBaselines,
    SampleTable,
    VerdictConfig,
    analyze_comparison,
    compare_arms,
    describe,
    first_vs_rest,
    fixture_sample_table,
    simulate_comparisons,
    summaries_via_engine,
    synthetic_table,
    to_jsonable,
)
from apps.results.analysis.calibration import simulate_sequential
from apps.results.analysis.per_request import per_request

FROZEN = Path(__file__).parent / "data" / "frozen-analyses.json.gz"
SEED_FIXTURE = Path(__file__).parent / "data" / "seed_unity_http_latency.json"
EPOCH_US = 1_700_000_000_000_000
# The benchmarks' calibration design (benchmarks/bench_verdict_calibration.py).
CALIBRATION = dict(devices=3, blocks=12, requests_per_block=30, request_sigma=0.3, device_sigma=0.2, block_sigma=0.1,
                   block_arm_sigma=0.02)


def _with(table: SampleTable, **columns: Any) -> SampleTable:
    return dataclasses.replace(table, **columns)


def _starts(table: SampleTable, seed: int) -> np.ndarray:
    """A start time for each row: series issued one after another, each request of a series a
    few ms after the previous one (enough for a span to differ from a sum)."""
    rng = np.random.default_rng(seed)
    return EPOCH_US + np.cumsum(rng.integers(200, 4_000, len(table))).astype(np.int64)


def _series(concurrency: str, seed: int) -> tuple[SampleTable, BlockBaselines]:
    table, baselines = synthetic_table(arm_ratios={"https-h1": 1.0, "h2": 0.8, "h3": 1.02}, devices=3,
                                       device_class="Pixel 8", profiles=("none", "lte"), blocks=6, periods=[3, 6, 9],
                                       repetitions=3, first_request_factor=1.8, error_rate=0.01, seed=seed)
    return _with(table, start_us=_starts(table, seed), concurrency=concurrency), baselines


def _mid_image_shape() -> tuple[SampleTable, BlockBaselines]:
    """The benchmarks' 1,000,000-sample shape (periods 3 … 30, 3 arms, 4 devices, 2 profiles,
    12 blocks) with 2 repetitions instead of 21."""
    table, baselines = synthetic_table(arm_ratios={"https-h1": 1.0, "h2": 0.6, "h3": 0.55}, devices=4,
                                       profiles=("none", "lte"), blocks=12, periods=list(range(3, 31, 3)),
                                       repetitions=2, first_request_factor=1.8, error_rate=0.001, seed=1)
    return _with(table, start_us=_starts(table, 1), concurrency="parallel 4"), baselines


def _request_list(concurrency: str, seed: int) -> tuple[SampleTable, BlockBaselines]:
    """A `requests` workload: 3 passes per block over a list of 4 requests (no period)."""
    table, baselines = synthetic_table(arm_ratios={"a": 1.0, "b": 1.3}, devices=2, blocks=8, requests_per_block=12,
                                       error_rate=0.02, seed=seed)
    return _with(table, repetition=table.step // 4, step=table.step % 4, start_us=_starts(table, seed),
                 concurrency=concurrency), baselines


def _api_rounds(seed: int) -> tuple[SampleTable, BlockBaselines]:
    """An `api` workload: rounds of 5 calls, each round's first call on a fresh connection."""
    table, baselines = synthetic_table(arm_ratios={"https-h1": 1.0, "h2": 0.9, "grpc": 0.85}, devices=2, blocks=8,
                                       requests_per_block=25, first_request_factor=2.5, error_rate=0.005,
                                       resp_bytes=900, seed=seed)
    return _with(table, first_on_connection=table.step % 5 == 0), baselines


def _payload_sweep(seed: int) -> tuple[SampleTable, BlockBaselines]:
    """A file-size sweep: 6 sizes, one of them stalled (the delayed-ACK plateau)."""
    table, baselines = synthetic_table(arm_ratios={"h1": 1.0, "h2": 0.95}, devices=2, blocks=6, requests_per_block=36,
                                       base_ms=40.0, request_sigma=0.1, first_request_factor=1.5, seed=seed)
    sizes = np.array([1_000, 8_000, 35_000, 64_000, 256_000, 1_000_000])[table.step % 6]
    total = table.total_us + sizes // 20 + np.where(sizes == 35_000, 40_000, 0)
    return _with(table, resp_bytes=sizes.astype(np.int64), total_us=total.astype(np.int64)), baselines


def _delay_sweep(seed: int) -> tuple[SampleTable, BlockBaselines]:
    table, baselines = synthetic_table(arm_ratios={"h2": 1.0, "h3": 0.97}, devices=1, blocks=4, requests_per_block=40,
                                       base_ms=5.0, seed=seed)
    delay = (table.step % 8).astype(np.int64) * 25_000
    return _with(table, server_delay_us=delay, total_us=table.total_us + delay), baselines


FAST = VerdictConfig(n_boot=500)
# name → (build, baseline arm, metrics, request names for per_request)
WORKLOADS: dict[str, tuple[Callable[[], tuple[SampleTable, BlockBaselines]], str, tuple[str, ...], list[str]]] = {
    "series-concurrent": (lambda: _series("parallel 4", 11), "https-h1", ("total_ms", "ttfb_ms", "series_ms"), []),
    "series-sequential": (lambda: _series("sequential", 12), "https-h1", ("total_ms", "series_ms"), []),
    "mid-image-shape": (_mid_image_shape, "https-h1", ("total_ms", "ttfb_ms", "series_ms"), []),
    "requests-concurrent": (lambda: _request_list("parallel 2", 13), "a", ("total_ms", "page_load_ms"),
                            ["login", "feed", "avatar", "#3"]),
    "requests-sequential": (lambda: _request_list("sequential", 14), "a", ("total_ms", "ttfb_ms", "page_load_ms"),
                            ["login", "feed", "avatar", "#3"]),
    "api-rounds": (lambda: _api_rounds(15), "https-h1", ("total_ms", "ttfb_ms"), []),
    "payload-sweep": (lambda: _payload_sweep(16), "h1", ("total_ms",), []),
    "delay-sweep": (lambda: _delay_sweep(17), "h2", ("total_ms",), []),
}


def workload_outputs(name: str) -> dict:
    """What analysis_compute takes from the engine for one comparison: the analysis, the
    request statistics with periods folded, and the per-request rows of a request list."""
    build, baseline, metrics, names = WORKLOADS[name]
    table, baselines = build()
    link_rates = {(table.device_labels[0], table.profile_labels[0]): 50_000.0}
    out = {
        "analysis": analyze_comparison(table, baseline_arm=baseline, baselines=baselines, link_rates=link_rates,
                                       metrics=metrics, config=FAST),
        "requests": describe(_with(table, period=np.full(len(table), -1, dtype=np.int32)), metric="total_ms",
                             n_boot=FAST.n_boot),
    }
    if names:
        out["per_request"] = per_request(table, names=names, n_boot=FAST.n_boot)
    return out


def calibration_outputs() -> dict:
    """The calibration design's pooled verdicts (A/A and a +20 % slowdown, 12 comparisons
    each, every field) and the simulators' tallies."""
    rows = []
    for ratio in (1.0, 1.2):
        for seed in range(12):
            table, _ = synthetic_table(arm_ratios={"baseline": 1.0, "candidate": ratio}, seed=seed, **CALIBRATION)
            rows += [r.to_dict() for r in compare_arms(table, baseline_arm="baseline", config=FAST)]
    simulated = simulate_comparisons(true_ratio=1.0, comparisons=40, seed=1, **CALIBRATION)
    sequential = simulate_sequential(true_ratio=1.2, comparisons=10, seed=1, devices=1, requests_per_block=30)
    return {"comparisons": rows, "simulated": dataclasses.asdict(simulated),
            "sequential": dataclasses.asdict(sequential)}


def seed_fixture_outputs() -> dict:
    fixture = json.loads(SEED_FIXTURE.read_text())
    out: dict[str, Any] = {"summaries": summaries_via_engine(fixture)}
    for test in ("A", "B"):
        table = fixture_sample_table(fixture, test)
        out[f"test_{test}"] = {"first_vs_rest": first_vs_rest(table),
                               "describe": describe(table, n_boot=FAST.n_boot)}
    table = fixture_sample_table(fixture, "A")
    out["test_A"]["analysis"] = analyze_comparison(table, baseline_arm=table.arm_labels[0], config=FAST)
    return out


CASES: dict[str, Callable[[], dict]] = {
    **{f"workload:{name}": (lambda name=name: workload_outputs(name)) for name in WORKLOADS},
    "calibration": calibration_outputs,
    "seeds-003": seed_fixture_outputs,
}


def as_frozen(value: object) -> object:
    """The JSON document as stored (tuples become lists, NaN None)."""
    return json.loads(json.dumps(to_jsonable(value)))


def frozen() -> dict:
    return json.loads(gzip.decompress(FROZEN.read_bytes()))


def main() -> None:
    document = {name: as_frozen(case()) for name, case in CASES.items()}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    FROZEN.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))  # mtime 0: same bytes each time
    print(f"wrote {FROZEN} ({FROZEN.stat().st_size / 1e3:.0f} kB, {len(document)} cases)")


if __name__ == "__main__":
    main()
