"""Which client and which server each arm measured, from the runs' fingerprints
(device-runner/contract/latencylab_contract/result.schema.json `client_stacks`, `server_stacks`).

A figure is only quotable with its stacks: "HTTP/3 with aioquic on a Linux host against
the reference target" and "HTTP/3 with Cronet on a Pixel 8 against the customer's nginx"
are different claims. Pure functions over plain values; the selector feeds them."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ArmFacts:
    label: str
    protocol: str
    endpoint: str  # "" for the runner's reference target


@dataclass(frozen=True)
class RunFacts:
    fingerprint: dict[str, Any]
    device: str  # what the run ran on, for people: a phone's model, the host's name


def arm_stacks(arms: Iterable[ArmFacts], runs: Iterable[RunFacts]) -> list[dict[str, Any]]:
    """Per arm, in arm order: the distinct client stacks (platform, device, stack) and the
    distinct servers, each with how many runs reported it."""
    run_list = list(runs)
    return [{"arm": arm.label, "protocol": arm.protocol, "clients": _clients(arm, run_list),
             "servers": _servers(arm, run_list)} for arm in arms]


def _clients(arm: ArmFacts, runs: list[RunFacts]) -> list[dict[str, Any]]:
    counted: dict[tuple[str, str, str], int] = {}
    for run in runs:
        stacks = run.fingerprint.get("client_stacks")
        stack = stacks.get(arm.protocol) if isinstance(stacks, dict) else None
        if not isinstance(stack, str) or not stack:
            continue
        key = (str(run.fingerprint.get("platform") or "unknown"), run.device, stack)
        counted[key] = counted.get(key, 0) + 1
    return [{"platform": platform, "device": device, "stack": stack, "runs": n}
            for (platform, device, stack), n in counted.items()]


def _servers(arm: ArmFacts, runs: list[RunFacts]) -> list[dict[str, Any]]:
    """What the runs said of the arm's server; runs from runners that predate server_stacks
    still tell reference from customer by the arm's endpoint, with the rest unknown."""
    counted: dict[tuple[str, str | None, tuple[str, ...] | None], int] = {}
    target = "customer" if arm.endpoint else "reference"
    for run in runs:
        if not run.fingerprint:
            continue  # not finished yet, or imported measurements: nothing to say
        stacks = run.fingerprint.get("server_stacks")
        reported = stacks.get(arm.label) if isinstance(stacks, dict) else None
        reported = reported if isinstance(reported, dict) else {}
        software = reported.get("software") if isinstance(reported.get("software"), str) else None
        headers = reported.get("server_headers")
        header_key = tuple(str(h) for h in headers) if isinstance(headers, list) else None
        key = (str(reported.get("target") or target), software, header_key)
        counted[key] = counted.get(key, 0) + 1
    return [{"target": target_, "software": software, "server_headers": None if headers is None else list(headers),
             "runs": n} for (target_, software, headers), n in counted.items()]
