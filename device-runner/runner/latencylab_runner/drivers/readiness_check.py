"""The host harness's readiness check (contract job `readiness` → result `readiness`), as the
phone harnesses run theirs (the Kotlin core's ReadinessCheck, the Swift core's): one plain
HTTP GET of the job's readiness path on a connection of its own, before the block, which
reports the interface and local address the connection left from and its connect time (one
round trip, on the monotonic clock). The verdict on the address is the runner's
(readiness.py); the harness refuses the block when its own check fails."""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .readiness import on_lab_network

TIMEOUT_S = 5.0
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
_IF_INET6 = Path("/proc/net/if_inet6")  # Linux: every interface's IPv6 addresses


def interface_of(address: str) -> tuple[str | None, str | None]:
    """(kind, name) of the local interface holding `address`: the kind as the name says it on
    Linux (wl* Wi-Fi, en*/eth* Ethernet, ww*/rmnet* cellular), loopback by the address; (None,
    None) where the host does not say."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    name = _name_of(ip)
    if ip.is_loopback:
        return "loopback", name
    if name is None:
        return None, None
    for prefixes, kind in ((("wl",), "wifi"), (("en", "eth"), "ethernet"), (("ww", "rmnet"), "cellular")):
        if name.startswith(prefixes):
            return kind, name
    return "other", name


def _name_of(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    try:
        if ip.version == 6:
            for line in _IF_INET6.read_text().splitlines():
                fields = line.split()
                if len(fields) >= 6 and ipaddress.ip_address(bytes.fromhex(fields[0])) == ip:
                    return fields[5]
            return None
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for _, name in socket.if_nameindex():
                try:
                    answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
                except OSError:  # an interface without an IPv4 address
                    continue
                if socket.inet_ntoa(answer[20:24]) == str(ip):
                    return name
    except (OSError, ValueError):
        return None
    return None


def readiness_check(request: dict[str, Any], *, timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """The result's `readiness` for the job's `readiness` request; `error` says why the
    block must not run (None when it may)."""
    url = urlsplit(request["origin"])
    host, port = url.hostname or "", url.port or 80
    networks = request.get("lab_networks") or []
    report: dict[str, Any] = {"origin": request["origin"], "interface": None, "interface_name": None,
                              "local_address": None, "rtt_ms": None, "http_status": None,
                              "on_lab_network": None, "error": None}
    try:
        started = time.monotonic_ns()
        with socket.create_connection((host, port), timeout=timeout_s) as conn:
            report["rtt_ms"] = round((time.monotonic_ns() - started) / 1e6, 3)
            local = conn.getsockname()[0]
            report["local_address"] = local
            report["interface"], report["interface_name"] = interface_of(local)
            authority = f"[{host}]" if ":" in host else host
            conn.sendall(f"GET {request.get('path', '/healthz')} HTTP/1.1\r\nHost: {authority}:{port}\r\n"
                         f"Connection: close\r\nUser-Agent: latencylab-readiness\r\n\r\n".encode())
            status_line = conn.makefile("rb").readline(256).decode("latin-1")
        parts = status_line.split()
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise OSError(f"not an HTTP response: {status_line.strip()[:80]!r}")
        report["http_status"] = int(parts[1])
        if not 200 <= report["http_status"] < 300:
            report["error"] = f"HTTP {report['http_status']} from {request['origin']}"
    except OSError as exc:
        report["error"] = f"{type(exc).__name__}: {exc}"[:1000]
    report["on_lab_network"] = on_lab_network(report["local_address"], networks)
    if report["on_lab_network"] is False:
        report["error"] = (f"not on the lab network: local address {report['local_address']} "
                           f"({report['interface'] or 'interface unknown'}) is in none of {', '.join(networks)}")
    return report
