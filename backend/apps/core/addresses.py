"""Which network addresses a fetch on behalf of a customer may reach (SSRF policy).

One policy for every outbound request the service makes or orders for a customer: webhook
deliveries (apps.webhooks.transport) and the endpoints a hosted pool's runners measure
(apps.comparisons.target_policy). Only globally routable unicast addresses pass: never
loopback, private (RFC 1918, unique-local), shared/CGNAT (100.64.0.0/10), link-local
(cloud metadata lives there), multicast, benchmarking (198.18.0.0/15), documentation or
other reserved space. An IPv6 address that embeds an IPv4 one (IPv4-mapped, 6to4, NAT64,
Teredo) is judged by the address it embeds. The runner repeats the same rules
(latencylab_runner/target_policy.py); both are tested against
device-runner/contract/latencylab_contract/target-policy-vectors.json.
"""

import ipaddress
import re
import socket
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Addresses that answer instance-metadata requests with credentials (AWS, GCP, Azure,
# OpenStack: 169.254.169.254; AWS IPv6: fd00:ec2::254; Alibaba: 100.100.100.200). Each is
# blocked by its range anyway; the name makes the refusal say why it matters.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "fd00:ec2::254", "100.100.100.200"))

_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")
_BENCHMARKING = ipaddress.ip_network("198.18.0.0/15")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# What a client's inet_aton would take as an IPv4 address: 1 to 4 parts, each decimal,
# 0-prefixed octal or 0x-prefixed hex (http://2130706433/, http://0177.0.0.1/, http://0x7f.1/).
_INET_ATON_FORM = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


class BlockedAddress(Exception):
    """A host resolves to (or is) an address the policy refuses; the message says which and why."""


def literal_address(host: str) -> IPAddress | None:
    """The address a URL's host names literally, parsed the way clients do (IPv6 in
    brackets, IPv4 in inet_aton's decimal/octal/hex forms), or None for a DNS name."""
    if literal_is_standard(host):
        return ipaddress.ip_address(host.strip().strip("[]").split("%", 1)[0])
    host = host.strip()
    if _INET_ATON_FORM.match(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def literal_is_standard(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip().strip("[]").split("%", 1)[0])
        return True
    except ValueError:
        return False


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_problem(address: IPAddress) -> str | None:
    """Why the policy refuses `address` (e.g. "a private address"), or None when it is a
    globally routable unicast address."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(address)) is not None:
        problem = address_problem(embedded)
        return f"an IPv6 form of {embedded}, {problem}" if problem else None
    checks = (
        (address.is_loopback, "a loopback address"),
        (address.is_unspecified, "the unspecified address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address in _SHARED_ADDRESS_SPACE, "a shared (CGNAT) address"),
        (address in _BENCHMARKING, "a benchmarking (reserved) address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
        (not address.is_global, "a non-global (reserved) address"),
    )
    return next((reason for refused, reason in checks if refused), None)


def is_loopback(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the resolver's order. Tests patch this, so
    no test sends a packet to the addresses it checks."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


@dataclass(frozen=True)
class CheckedHost:
    host: str
    address: str  # the one every connection must use: the name is not looked up again


def _refusal(host: str, address: str, *, literal: bool, problem: str) -> str:
    if not literal:
        return f"{host} resolves to {address}, {problem}"
    if literal_is_standard(host):
        return f"{host} is {problem}"
    return f"{host} means {address}, {problem}"  # a decimal, octal or hex form


def check_host(host: str, port: int, *, allow_loopback: bool = False) -> CheckedHost:
    """Resolve `host` once and check every address it resolves to (one bad answer is
    enough to refuse: a resolver may hand out either). `allow_loopback` is for the
    webhooks' development receivers only. Raises BlockedAddress, or OSError when the name
    does not resolve."""
    literal = literal_address(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = resolve(host, port)
        except socket.gaierror as exc:
            raise OSError(f"cannot resolve {host}: {exc}") from exc
        if not addresses:
            raise OSError(f"cannot resolve {host}: no address")
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if allow_loopback and is_loopback(ip):
            continue
        if problem := address_problem(ip):
            raise BlockedAddress(_refusal(host, address, literal=literal is not None, problem=problem))
    return CheckedHost(host=host, address=addresses[0])
