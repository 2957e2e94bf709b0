"""Before a block measures anything: does every target of the block answer from this host?

A target that does not answer would only produce a block of connect errors, and the party
at fault is not the phone: a customer endpoint that does not resolve, refuses the
connection or fails TLS is the comparison's own (`target_unreachable`: the run fails, the
device and the runner are not blamed); the reference target (an arm without endpoint) is
the lab's own server (`lab_fault`: it counts towards the runner's breaker). The phones
reach the targets through the same lab network as this host, so a connect from here
stands for theirs.

The reference target is checked first: when the lab's own server is down, the lab is at
fault whatever the customer's endpoints say. Each (host, port) is checked once. An h3
arm's customer endpoint is only resolved (it may serve QUIC alone); the reference target
serves its TLS port over TCP and UDP alike. A hosted run's hosts are reached at the
address the runner checked at lease time (`pinned`), never looked up again."""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..target_policy import customer_urls, literal_address
from .outcome import BlockFailure
from .targets import ReferenceTarget, arm_endpoint


@dataclass(frozen=True)
class _Target:
    who: str  # how the error names it: "arm 'h2' endpoint https://…", "workload.requests[0].url https://…"
    host: str
    port: int
    customer: bool
    tls: bool = False  # a TLS handshake after the connect (customer https endpoints)
    connect: bool = True  # False: resolve only (an h3 customer endpoint may not listen on TCP)
    ca_pem: str | None = None


def _targets(spec: dict[str, Any], reference: ReferenceTarget) -> list[_Target]:
    references, customers = [], []
    for arm in spec["arms"]:
        endpoint = arm_endpoint(arm, reference)
        if arm.get("endpoint"):
            customers.append(_Target(f"arm {arm['label']!r} endpoint {arm['endpoint']}", endpoint.host, endpoint.port,
                                     customer=True, tls=endpoint.scheme == "https" and arm["protocol"] != "h3",
                                     connect=arm["protocol"] != "h3", ca_pem=endpoint.ca_pem))
        else:
            references.append(_Target(f"the lab's reference target {endpoint.host}:{endpoint.port} "
                                      f"(arm {arm['label']!r})", endpoint.host, endpoint.port, customer=False))
    for where, url in customer_urls(spec):
        if where.startswith("workload."):
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
            customers.append(_Target(f"{where} {url}", parts.hostname or "", port, customer=True))
    return references + customers


def _fault(target: _Target, what: str) -> BlockFailure:
    if target.customer:
        return BlockFailure("target_unreachable", f"{target.who}: {what}")
    return BlockFailure("lab_fault", f"{target.who} {what}: the lab's own server, not the phone, is at fault")


def _address(target: _Target, pinned: dict[str, str]) -> str:
    if literal_address(target.host) is not None:
        return target.host
    if target.host.lower() in pinned:
        return pinned[target.host.lower()]
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except OSError as exc:  # socket.gaierror: the name does not resolve
        raise _fault(target, f"name does not resolve ({exc})") from None
    return str(infos[0][4][0])


def _check(target: _Target, pinned: dict[str, str], timeout_s: float) -> None:
    address = _address(target, pinned)
    if not target.connect:
        return
    try:
        sock = socket.create_connection((address, target.port), timeout=timeout_s)
    except OSError as exc:
        raise _fault(target, f"unreachable ({exc.strerror or exc})") from None
    with sock:
        if not target.tls:
            return
        # Trusted as the probe trusts it: the arm's CA bundle alone when it brings one.
        context = ssl.create_default_context(cadata=target.ca_pem) if target.ca_pem else ssl.create_default_context()
        # Some servers refuse a handshake without ALPN (gRPC's want h2): offer what the arms speak.
        context.set_alpn_protocols(["h2", "http/1.1"])
        try:
            with context.wrap_socket(sock, server_hostname=target.host):
                pass
        except ssl.SSLCertVerificationError as exc:
            raise _fault(target, f"TLS handshake failed (certificate verify failed: {exc.verify_message})") from None
        except ssl.SSLError as exc:
            raise _fault(target, f"TLS handshake failed ({exc.reason or exc})") from None
        except OSError as exc:
            raise _fault(target, f"TLS handshake failed ({exc.strerror or exc})") from None


def check_targets(spec: dict[str, Any], reference: ReferenceTarget, *, pinned: dict[str, str] | None = None,
                  timeout_s: float = 3.0, customers_only: bool = False) -> None:
    """Raise BlockFailure(lab_fault) for the first reference target that does not answer,
    then BlockFailure(target_unreachable) for the first customer target, naming it.
    `customers_only`: the reference target is one the run starts itself (an emulated link's)."""
    seen: set[tuple[str, int, bool]] = set()
    for target in _targets(spec, reference):
        if customers_only and not target.customer:
            continue
        key = (target.host.lower(), target.port, target.tls)
        if key in seen:
            continue
        seen.add(key)
        _check(target, pinned or {}, timeout_s)
