"""A hosted pool's runner never fetches an internal address for a customer (SSRF; docs/security.md).

The backend checked every customer host when the comparison was created; a name can
resolve elsewhere since (DNS rebinding), so at lease time, before the first block, the
runner resolves each customer host once itself, refuses private, loopback, link-local,
CGNAT, multicast, metadata, benchmarking and other reserved addresses (IPv4 and IPv6,
IPv4-mapped and other embedded forms, decimal/octal/hex host forms), and hands the
harness the address it checked (the job's `pinned_addresses`): every connection of the
run goes there, with SNI, certificate name and Host still the customer's name.

A runner is hosted when its lease says the pool is (`pool_kind`) or its own config says
so (`hosted: true`): the second holds even if the backend were wrong. The reference target
(an arm without `endpoint`) is the runner's own server, not a customer URL: not checked.

The same rules as the backend's (backend/apps/core/addresses.py): the runner cannot import
the backend, so both are tested against contract/target-policy-vectors.json.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance-metadata services (AWS/GCP/Azure/OpenStack, AWS IPv6, Alibaba): named in the refusal.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254",
                                                                 "100.100.100.200"))
_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")
# The runner's own netlab namespaces live here: a customer URL never may.
_BENCHMARKING = ipaddress.ip_network("198.18.0.0/15")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_INET_ATON_FORM = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


class TargetRefused(Exception):
    """A customer host of a hosted run resolves to an address the policy refuses."""


class TargetUnresolved(TargetRefused):
    """A customer host of a hosted run does not resolve: the customer's target is at
    fault (`target_unreachable`), not the policy."""


def _bare(host: str) -> str:
    return host.strip().strip("[]").split("%", 1)[0]


def literal_address(host: str) -> IPAddress | None:
    """The address a URL host names literally (inet_aton forms included), or None for a name."""
    try:
        return ipaddress.ip_address(_bare(host))
    except ValueError:
        pass
    if _INET_ATON_FORM.match(host.strip()):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host.strip()))
        except OSError:
            return None
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    for embedded in (address.ipv4_mapped, address.sixtofour, address.teredo[1] if address.teredo else None):
        if embedded is not None:
            return embedded
    return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF) if address in _NAT64 else None


def address_problem(address: IPAddress) -> str | None:
    """Why the policy refuses `address`, or None for a globally routable unicast address."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(address)) is not None:
        problem = address_problem(embedded)
        return f"an IPv6 form of {embedded}, {problem}" if problem else None
    for refused, reason in ((address.is_loopback, "a loopback address"),
                            (address.is_unspecified, "the unspecified address"),
                            (address.is_link_local, "a link-local address"),
                            (address.is_multicast, "a multicast address"),
                            (address in _SHARED_ADDRESS_SPACE, "a shared (CGNAT) address"),
                            (address in _BENCHMARKING, "a benchmarking (reserved) address"),
                            (address.is_reserved, "a reserved address"),
                            (address.is_private, "a private address"),
                            (not address.is_global, "a non-global (reserved) address")):
        if refused:
            return reason
    return None


def resolve(host: str, port: int) -> list[str]:
    """Every address of `host`, in the resolver's order; tests patch it (no packet is
    ever sent to the addresses they check)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


def checked_address(host: str, port: int) -> str:
    """The one address every connection to `host` will use. TargetRefused when the host
    is, or resolves to, any refused address, or does not resolve."""
    literal = literal_address(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = resolve(host, port)
        except OSError as exc:
            raise TargetUnresolved(f"cannot resolve {host}: {exc}") from exc
        if not addresses:
            raise TargetUnresolved(f"cannot resolve {host}: no address")
    for address in addresses:
        if problem := address_problem(ipaddress.ip_address(address)):
            if literal is None:
                raise TargetRefused(f"{host} resolves to {address}, {problem}")
            if _is_standard(host):
                raise TargetRefused(f"{host} is {problem}")
            raise TargetRefused(f"{host} means {address}, {problem}")  # a decimal, octal or hex form
    return addresses[0]


def _is_standard(host: str) -> bool:
    try:
        ipaddress.ip_address(_bare(host))
        return True
    except ValueError:
        return False


def customer_urls(spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field path, URL) of every customer URL in a normalized spec: arm endpoints, absolute
    object/file URLs and a request list's `url`s (paths ride on the arm's endpoint)."""
    for index, arm in enumerate(spec["arms"]):
        if arm.get("endpoint"):
            yield f"arms[{index}].endpoint", arm["endpoint"]
    workload = spec["workload"]
    for field in ("object_paths", "file_paths"):
        for index, path in enumerate(workload.get(field) or []):
            if not path.startswith("/"):
                yield f"workload.{field}[{index}]", path
    for index, request in enumerate(workload.get("requests") or []):
        if request.get("url"):
            yield f"workload.requests[{index}].url", request["url"]


def is_hosted(lease: dict[str, Any], *, configured_hosted: bool) -> bool:
    return configured_hosted or lease.get("pool_kind") == "hosted"


def pin_targets(lease: dict[str, Any], *, configured_hosted: bool) -> dict[str, str]:
    """Host name → checked address for every customer host of a hosted run ({} otherwise:
    a private pool's runner resolves as it always does). Each host is resolved once here,
    so a name that resolves differently later is never looked up again. TargetRefused
    names the field and the reason."""
    if not is_hosted(lease, configured_hosted=configured_hosted):
        return {}
    pinned: dict[str, str] = {}
    for where, url in customer_urls(lease["spec"]):
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if host in pinned:
            continue
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        try:
            pinned[host] = checked_address(host, port)
        except TargetUnresolved as exc:
            raise TargetUnresolved(f"{where} {url}: {exc}") from exc
        except TargetRefused as exc:
            raise TargetRefused(f"{where}: {exc}; blocked by hosted-pool policy (hosted runners never reach "
                                f"private, loopback, link-local, CGNAT, metadata or reserved addresses)") from exc
    return pinned
