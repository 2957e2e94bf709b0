"""Phones addressed by their DHCP lease: dnsmasq's lease file on the lab's access point
(deploy/ap/dnsmasq.conf, `dhcp-leasefile=`).

Each IPv4 lease is one line, written by dnsmasq (src/lease.c):

    <expiry, epoch seconds or 0 for infinite> <MAC> <IPv4> <hostname or *> <client-id or *>

(an IPv6 server adds a `duid …` line and leases of its own; they are skipped). What is
stable for a phone on the lab Wi-Fi:

- the **MAC** is the hardware address only where the phone's private Wi-Fi address is off:
  iOS 14+ and Android 10+ join each network with a private address of their own. iOS keeps
  one per network ("Fixed", or "Off") unless set to "Rotating" (iOS 18), so the lab sets the
  lab network to Off or Fixed on every iPhone (docs/device-lab.md §9);
- the **hostname** is what the phone sends in DHCP option 12: an iPhone sends its device
  name ("Johns-iPhone" for "John's iPhone"; not verified here, where no iPhone is), which
  `ideviceinfo` reports as `DeviceName` — the lab names each iPhone uniquely;
- the **client-id** (option 61) is the hardware type and the same (private) MAC: no more
  stable than the MAC.

So an iPhone is found by its hardware MAC (private address off) or else by its device name,
compared as letters and digits only (the hostname drops spaces and apostrophes); when
several leases match, the newest (latest expiry) wins, since a phone that rejoined holds
the latest one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_LEASE_FILE = Path("/var/lib/misc/dnsmasq.leases")  # Debian's dnsmasq default


@dataclass(frozen=True)
class Lease:
    expiry: int
    mac: str
    address: str
    hostname: str | None
    client_id: str | None


def parse_leases(text: str) -> list[Lease]:
    """The IPv4 leases of a dnsmasq lease file (malformed and IPv6 lines skipped)."""
    leases = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 5 or fields[0] == "duid" or not fields[0].isdigit() or ":" in fields[2]:
            continue
        expiry, mac, address, hostname, client_id = fields
        leases.append(Lease(int(expiry), mac.lower(), address, None if hostname == "*" else hostname,
                            None if client_id == "*" else client_id.lower()))
    return leases


def _letters(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _newest(leases: list[Lease]) -> Lease:
    # Expiry 0 is an infinite lease (dhcp-host with `infinite`): newer than any dated one.
    return max(leases, key=lambda lease: float("inf") if lease.expiry == 0 else lease.expiry)


def find_lease(leases: list[Lease], *, mac: str | None = None, device_name: str | None = None) -> Lease | None:
    """The lease of a phone with hardware `mac` (private Wi-Fi address off), else of the
    phone named `device_name`; None when neither matches."""
    if mac:
        by_mac = [lease for lease in leases if lease.mac == mac.lower()]
        if by_mac:
            return _newest(by_mac)
    if device_name and _letters(device_name):
        by_name = [lease for lease in leases if lease.hostname and _letters(lease.hostname) == _letters(device_name)]
        if by_name:
            return _newest(by_name)
    return None


def lease_address(lease_file: Path, *, mac: str | None = None, device_name: str | None = None) -> str:
    """The phone's address from the lease file; RuntimeError saying what was looked for."""
    try:
        text = lease_file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RuntimeError(f"cannot read the DHCP lease file {lease_file} (link.leases): "
                           f"{exc.strerror or exc}") from None
    lease = find_lease(parse_leases(text), mac=mac, device_name=device_name)
    if lease is None:
        raise RuntimeError(f"no DHCP lease in {lease_file} for MAC {mac or '?'} or host name {device_name or '?'}: "
                           f"is the phone on the lab Wi-Fi, with its private Wi-Fi address off or fixed?")
    return lease.address
