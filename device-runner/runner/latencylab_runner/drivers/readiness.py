"""Readiness from the phone: what the job asks the harness to check before a block, and the
runner's verdict on what the harness reported (contract job/result `readiness`).

The runner's own checks run on the lab host (target_check.py, the device tools); only the
phone knows which network its requests leave on. So before each block the harness fetches
the reference target once, over its cleartext port, and reports the interface, its local
address and the connect time (one round trip). The runner judges the address itself — a
harness's own `on_lab_network` is evidence, not the verdict — and blames:

- a phone whose address is in none of the lab networks (cellular fallback, Wi-Fi Assist,
  another Wi-Fi), or that made no connection at all: the device (`device_not_ready`);
- a phone on the lab network that still cannot fetch the target, which the runner itself
  reached moments before: the lab (`lab_fault`: the access point or its route), never the
  phone — one bad access point must not quarantine every phone behind it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

from .targets import ReferenceTarget

READINESS_PATH = "/healthz"


def readiness_request(target: ReferenceTarget, lab_networks: Sequence[str] = ()) -> dict[str, Any]:
    """The job's `readiness`: the reference target's cleartext origin as the phone reaches it
    (no trust anchors needed to see that it answers), and the lab networks when configured."""
    host = f"[{target.host}]" if ":" in target.host else target.host
    request: dict[str, Any] = {"origin": f"http://{host}:{target.plain_port}", "path": READINESS_PATH}
    if lab_networks:
        request["lab_networks"] = list(lab_networks)
    return request


def on_lab_network(address: str | None, lab_networks: Sequence[str]) -> bool | None:
    """Whether the address lies in one of the networks; None when there are none to judge
    by, or no address (no connection was made)."""
    if not lab_networks or not address:
        return None
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone is not part of the address
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network, strict=False) for network in lab_networks)


def describe(report: dict[str, Any]) -> str:
    """`wifi (wlan0), address 198.19.0.23, RTT 41.6 ms` — what the phone said of its link."""
    kind = report.get("interface") or "interface unknown"
    name = f" ({report['interface_name']})" if report.get("interface_name") else ""
    parts = [f"{kind}{name}", f"address {report.get('local_address') or 'none'}"]
    if report.get("rtt_ms") is not None:
        parts.append(f"RTT {report['rtt_ms']:.1f} ms")
    return ", ".join(parts)


def readiness_refusal(job: dict[str, Any], result: dict[str, Any]) -> tuple[str, str] | None:
    """(error_kind, reason) when the block must not be stored for what the phone's readiness
    report says, else None. `result` is valid against the contract and answers `job`."""
    check = job.get("readiness")
    if check is None:
        return None
    report = result.get("readiness")
    if not report:
        return ("malformed_result", "the job asked for a readiness check and the result reports none "
                                    "(a harness that predates it would have refused the job)")
    networks = check.get("lab_networks") or []
    where = describe(report)
    if on_lab_network(report.get("local_address"), networks) is False:
        return "device_not_ready", f"not on the lab network: {where} is in none of {', '.join(networks)}"
    if result["status"] == "ok" and not report.get("error"):
        return None
    error = report.get("error") or result.get("error") or "the harness refused the block"
    if report.get("local_address") and networks:
        return ("lab_fault", f"the phone is on the lab network ({where}) but cannot fetch {check['origin']}"
                             f"{check.get('path', READINESS_PATH)}: {error} (the access point or its route to the "
                             f"reference target)")
    return ("device_not_ready",
            f"the phone cannot fetch {check['origin']}{check.get('path', READINESS_PATH)}: {error} ({where})")
