"""Expands a normalized spec into the ordered requests of each block of a run.

The plan is a pure function of (spec, run id, block): a run re-leased after a crash
replays exactly the same order from its first incomplete block. Arms are interleaved
inside every block in an order drawn from the spec's seed and reversed on every other
repetition (A B, B A, …) so drift in the device or the link hits every arm alike
(docs/methodology.md §4)."""

import base64
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
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
    # A customer's own request (the `requests` kind): its name, headers, inline body
    # (base64), the status it expects, and an absolute URL that replaces the arm's origin.
    name: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body_b64: str | None = None
    expect_status: int | None = None
    url: str | None = None
    # Requests of one arm with the same group are issued concurrently (workload concurrency).
    group: int | None = None


def arm_order(labels: list[str], *, seed: int, run_id: str, block: int) -> list[str]:
    order = list(labels)
    random.Random(f"{seed}:{run_id}:{block}").shuffle(order)
    return order


def _abba(order: list[str], index: int) -> list[str]:
    return order if index % 2 == 0 else list(reversed(order))


def _block_repetitions(total: int, blocks: int, block: int) -> list[int]:
    return [r for r in range(total) if r % blocks == block]


def delay_path(workload: dict[str, Any], delay_ms: int) -> str:
    """The delay endpoint: the reference target's, or the customer's `{delay_ms}` template."""
    return workload.get("path", "/delay/{delay_ms}").replace("{delay_ms}", str(delay_ms))


def size_path(workload: dict[str, Any], size: int) -> str:
    """The sized-response endpoint: the reference target's, or the customer's `{size}` template."""
    return workload.get("path", "/bytes/{size}").replace("{size}", str(size))


def series_object(workload: dict[str, Any], step: int) -> PlannedRequest:
    """The object fetched at `step` of a series (arm and phase filled in by the caller):
    after the last object the series wraps to the first (seeds/000). A customer's list
    holds paths (each arm's endpoint) or absolute URLs (the same for every arm)."""
    paths = workload.get("object_paths")
    if not paths:
        name = f"mid-{step % SERIES_OBJECT_COUNT[workload['objects']] + 1:02d}"
        return PlannedRequest("", "", "file", "GET", f"/files/{name}")
    return object_request(paths[step % len(paths)])


def object_request(path: str) -> PlannedRequest:
    """A customer's object (arm and phase filled in by the caller): a path on each arm's
    endpoint, or an absolute URL, the same for every arm."""
    if path.startswith("/"):
        return PlannedRequest("", "", "get", "GET", path)
    return PlannedRequest("", "", "get", "GET", "/", url=path)


def api_path(workload: dict[str, Any]) -> str:
    """The API call's endpoint: the reference target's /echo, or the customer's `path`."""
    return workload.get("path", "/echo")


def _first_request(workload: dict[str, Any]) -> PlannedRequest:
    """The warm-up request (arm and phase filled in by the caller): the workload's first request."""
    kind = workload["kind"]
    if kind == "series":
        return series_object(workload, 0)
    if kind == "delay_sweep":
        return PlannedRequest("", "", "delay", "GET", delay_path(workload, workload["start_ms"]))
    if kind == "payload_sweep":
        method = workload.get("method", "POST")
        return PlannedRequest("", "", "bytes", method, size_path(workload, workload["sizes"][0]),
                              workload["request_bytes"] if method == "POST" else 0)
    return PlannedRequest("", "", "echo", "POST", api_path(workload), workload.get("request_bytes", 64))


def listed_request(arm: str, phase: str, request: dict[str, Any], **where: Any) -> PlannedRequest:
    """One entry of a `requests` workload as planned: `path` is the arm's (appended to its
    endpoint by the job builder), `url` the same absolute address for every arm."""
    body_b64 = request.get("body_b64")
    if request.get("body") is not None:
        body_b64 = base64.b64encode(request["body"].encode()).decode()
    return PlannedRequest(arm, phase, "get", request["method"], request.get("path") or "/",
                          request.get("body_bytes") or 0, name=request.get("name"),
                          headers=tuple(sorted((request.get("headers") or {}).items())), body_b64=body_b64,
                          expect_status=request.get("expect_status"), url=request.get("url"), **where)


DEFAULT_PARALLEL = 6  # `parallel` without N: browsers' and URLSession-on-macOS's per-host limit


def max_parallel(workload: dict[str, Any]) -> int:
    """HTTP/1.1 connections per origin for a concurrency group: `parallel: N` → N (`parallel`
    alone → 6); `all` → one per request of the group (the contract's bound, 64, at most)."""
    concurrency = workload.get("concurrency") or "sequential"
    if isinstance(concurrency, dict):
        return int(concurrency.get("parallel") or DEFAULT_PARALLEL)
    return {"all": 64, "parallel": DEFAULT_PARALLEL}.get(concurrency, 1)


def with_groups(planned: Iterator[PlannedRequest], workload: dict[str, Any]) -> Iterator[PlannedRequest]:
    """Numbers the concurrency groups: one series, one API round, one pass over a request
    list — per arm — is issued concurrently unless the workload is sequential."""
    if (workload.get("concurrency") or "sequential") == "sequential":
        yield from planned
        return
    group, previous = -1, None
    for request in planned:
        unit = (request.arm, request.period, request.repetition, request.part)
        if unit != previous or request.step == 0:
            group, previous = group + 1, unit
        yield replace(request, group=group)


def plan_block(spec: dict[str, Any], *, run_id: str, block: int) -> list[PlannedRequest]:
    workload = spec["workload"]
    labels = [arm["label"] for arm in spec["arms"]]
    order = arm_order(labels, seed=spec["seed"], run_id=run_id, block=block)
    planned: list[PlannedRequest] = []
    if workload["kind"] == "requests":
        # The warm-up is the list's first request, exactly as the customer wrote it.
        for label in order:
            planned.extend(listed_request(label, "warmup", workload["requests"][0])
                           for _ in range(workload.get("warmup", 0)))
        planned.extend(with_groups(_measured(workload, order=order, seed=spec["seed"], run_id=run_id,
                                             blocks=spec["blocks"], block=block), workload))
        return planned
    first = _first_request(workload)
    for label in order:
        for _ in range(workload.get("warmup", 0)):
            planned.append(replace(first, arm=label, phase="warmup"))
    planned.extend(with_groups(_measured(workload, order=order, seed=spec["seed"], run_id=run_id,
                                         blocks=spec["blocks"], block=block), workload))
    return planned


def _measured(workload: dict[str, Any], *, order: list[str], seed: int, run_id: str, blocks: int,
              block: int) -> Iterator[PlannedRequest]:
    planner = _PLANNERS.get(workload["kind"])
    if planner is None:
        raise ValueError(f"unknown workload kind {workload['kind']!r}")
    yield from planner(workload, order=order, seed=seed, run_id=run_id, blocks=blocks, block=block)


def _series(workload: dict[str, Any], *, order: list[str], blocks: int, block: int,
            **_: Any) -> Iterator[PlannedRequest]:
    for period in workload["periods"]:
        for i, rep in enumerate(_block_repetitions(workload["repetitions"], blocks, block)):
            for arm in _abba(order, i):
                for step in range(period):
                    yield replace(series_object(workload, step), arm=arm, phase="measure", period=period,
                                  repetition=rep, step=step)


def _api(workload: dict[str, Any], *, order: list[str], blocks: int, block: int,
         **_: Any) -> Iterator[PlannedRequest]:
    """`api` and `mixed`: part A is the API calls; `mixed` adds part B, the files then the calls."""
    body, path = workload["request_bytes"], api_path(workload)
    for i, rnd in enumerate(_block_repetitions(workload["rounds"], blocks, block)):
        for arm in _abba(order, i):
            for call in range(workload["calls"]):
                yield PlannedRequest(arm, "measure", "echo", "POST", path, body, repetition=rnd, step=call,
                                     part="A", new_connection=call == 0)
        if workload["kind"] == "mixed":
            files = ([object_request(p) for p in workload["file_paths"]] if workload.get("file_paths") else
                     [PlannedRequest("", "", "file", "GET", f"/files/{name}") for name in FILE_SETS[workload["files"]]])
            for arm in _abba(order, i + 1):
                for step, download in enumerate(files):
                    yield replace(download, arm=arm, phase="measure", repetition=rnd, step=step, part="B",
                                  new_connection=step == 0)
                for call in range(workload["calls"]):
                    yield PlannedRequest(arm, "measure", "echo", "POST", path, body, repetition=rnd,
                                         step=len(files) + call, part="B")


def _delay_sweep(workload: dict[str, Any], *, order: list[str], seed: int, run_id: str, blocks: int,
                 block: int) -> Iterator[PlannedRequest]:
    delays = list(range(workload["start_ms"], workload["stop_ms"] + 1, workload["step_ms"]))
    for i, trial in enumerate(_block_repetitions(workload["trials"], blocks, block)):
        shuffled = list(enumerate(delays))
        # Shuffled per trial so slow drift cannot masquerade as a delay-dependent effect.
        random.Random(f"{seed}:{run_id}:{trial}:delays").shuffle(shuffled)
        for step, delay in shuffled:
            for arm in _abba(order, i + step):
                yield PlannedRequest(arm, "measure", "delay", "GET", delay_path(workload, delay), repetition=trial,
                                     step=step, server_delay_ms=float(delay))


def _payload_sweep(workload: dict[str, Any], *, order: list[str], seed: int, run_id: str, blocks: int,
                   block: int) -> Iterator[PlannedRequest]:
    sizes = list(enumerate(workload["sizes"]))
    method = workload.get("method", "POST")
    for i, rep in enumerate(_block_repetitions(workload["repetitions"], blocks, block)):
        shuffled = list(sizes)
        random.Random(f"{seed}:{run_id}:{rep}:sizes").shuffle(shuffled)
        for step, size in shuffled:
            for arm in _abba(order, i + step):
                yield PlannedRequest(arm, "measure", "bytes", method, size_path(workload, size),
                                     workload["request_bytes"] if method == "POST" else 0, repetition=rep,
                                     step=step)


def _requests(workload: dict[str, Any], *, order: list[str], blocks: int, block: int,
              **_: Any) -> Iterator[PlannedRequest]:
    # The list keeps its order (an app's requests depend on each other); the arms
    # alternate per repetition. `step` is the request's index in the spec's list, so a
    # sample finds its name there without a column of its own.
    for i, rep in enumerate(_block_repetitions(workload["repetitions"], blocks, block)):
        for arm in _abba(order, i):
            for step, request in enumerate(workload["requests"]):
                yield listed_request(arm, "measure", request, repetition=rep, step=step)


_PLANNERS: dict[str, Callable[..., Iterator[PlannedRequest]]] = {
    "series": _series, "api": _api, "mixed": _api, "delay_sweep": _delay_sweep,
    "payload_sweep": _payload_sweep, "requests": _requests,
}
