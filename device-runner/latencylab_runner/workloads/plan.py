"""Expands a normalized spec into the ordered requests of each block of a run.

The plan is a pure function of (spec, run id, block): a run re-leased after a crash
replays exactly the same order from its first incomplete block. Arms are interleaved
inside every block in an order drawn from the spec's seed and reversed on every other
repetition (A B, B A, …) so drift in the device or the link hits every arm alike
(DESIGN §6.1)."""

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SERIES_OBJECT_COUNT = {"seed-mid-24": 24}
FILE_SETS = {"seed-unity-5": ["unity-1", "unity-2", "unity-3", "unity-4", "unity-5"]}


@dataclass(frozen=True)
class PlannedRequest:
    arm: str
    phase: str  # warmup | measure
    op: str  # file | echo | delay | bytes
    method: str
    path: str
    body_bytes: int = 0
    period: int | None = None
    repetition: int | None = None
    step: int | None = None
    part: str | None = None
    server_delay_ms: float | None = None
    # Close the arm's connection before this request: a "round" starts on a fresh one.
    new_connection: bool = False


def arm_order(labels: list[str], *, seed: int, run_id: str, block: int) -> list[str]:
    order = list(labels)
    random.Random(f"{seed}:{run_id}:{block}").shuffle(order)
    return order


def _abba(order: list[str], index: int) -> list[str]:
    return order if index % 2 == 0 else list(reversed(order))


def _block_repetitions(total: int, blocks: int, block: int) -> list[int]:
    return [r for r in range(total) if r % blocks == block]


def _first_request(workload: dict[str, Any]) -> tuple[str, str, str, int]:
    """(op, method, path, body bytes) of the warm-up request: the workload's first request."""
    kind = workload["kind"]
    if kind == "series":
        return "file", "GET", "/files/mid-01", 0
    if kind == "delay_sweep":
        return "delay", "GET", f"/delay/{workload['start_ms']}", 0
    if kind == "payload_sweep":
        return "bytes", "POST", f"/bytes/{workload['sizes'][0]}", workload["request_bytes"]
    return "echo", "POST", "/echo", workload.get("request_bytes", 64)


def plan_block(spec: dict[str, Any], *, run_id: str, block: int) -> list[PlannedRequest]:
    workload = spec["workload"]
    labels = [arm["label"] for arm in spec["arms"]]
    order = arm_order(labels, seed=spec["seed"], run_id=run_id, block=block)
    planned: list[PlannedRequest] = []
    op, method, path, body = _first_request(workload)
    for label in order:
        for _ in range(workload.get("warmup", 0)):
            planned.append(PlannedRequest(label, "warmup", op, method, path, body))
    planned.extend(_measured(workload, order=order, seed=spec["seed"], run_id=run_id, blocks=spec["blocks"],
                             block=block))
    return planned


def _measured(workload: dict[str, Any], *, order: list[str], seed: int, run_id: str, blocks: int,
              block: int) -> Iterator[PlannedRequest]:
    kind = workload["kind"]
    if kind == "series":
        count = SERIES_OBJECT_COUNT[workload["objects"]]
        for period in workload["periods"]:
            for i, rep in enumerate(_block_repetitions(workload["repetitions"], blocks, block)):
                for arm in _abba(order, i):
                    for step in range(period):
                        # After the last object the series wraps to the first (seeds/000).
                        name = f"mid-{step % count + 1:02d}"
                        yield PlannedRequest(arm, "measure", "file", "GET", f"/files/{name}",
                                             period=period, repetition=rep, step=step)
    elif kind in ("api", "mixed"):
        body = workload["request_bytes"]
        for i, rnd in enumerate(_block_repetitions(workload["rounds"], blocks, block)):
            for arm in _abba(order, i):
                for call in range(workload["calls"]):
                    yield PlannedRequest(arm, "measure", "echo", "POST", "/echo", body, repetition=rnd, step=call,
                                         part="A", new_connection=call == 0)
            if kind == "mixed":
                files = FILE_SETS[workload["files"]]
                for arm in _abba(order, i + 1):
                    for step, name in enumerate(files):
                        yield PlannedRequest(arm, "measure", "file", "GET", f"/files/{name}", repetition=rnd,
                                             step=step, part="B", new_connection=step == 0)
                    for call in range(workload["calls"]):
                        yield PlannedRequest(arm, "measure", "echo", "POST", "/echo", body, repetition=rnd,
                                             step=len(files) + call, part="B")
    elif kind == "delay_sweep":
        delays = list(range(workload["start_ms"], workload["stop_ms"] + 1, workload["step_ms"]))
        for i, trial in enumerate(_block_repetitions(workload["trials"], blocks, block)):
            shuffled = list(enumerate(delays))
            # Shuffled per trial so slow drift cannot masquerade as a delay-dependent effect.
            random.Random(f"{seed}:{run_id}:{trial}:delays").shuffle(shuffled)
            for step, delay in shuffled:
                for arm in _abba(order, i + step):
                    yield PlannedRequest(arm, "measure", "delay", "GET", f"/delay/{delay}", repetition=trial,
                                         step=step, server_delay_ms=float(delay))
    elif kind == "payload_sweep":
        sizes = list(enumerate(workload["sizes"]))
        for i, rep in enumerate(_block_repetitions(workload["repetitions"], blocks, block)):
            shuffled = list(sizes)
            random.Random(f"{seed}:{run_id}:{rep}:sizes").shuffle(shuffled)
            for step, size in shuffled:
                for arm in _abba(order, i + step):
                    yield PlannedRequest(arm, "measure", "bytes", "POST", f"/bytes/{size}", workload["request_bytes"],
                                         repetition=rep, step=step)
    else:
        raise ValueError(f"unknown workload kind {kind!r}")
