"""Open a layer-3 TUN device.

The device lives only while its file descriptor is open (no TUNSETPERSIST), so
if the emulator dies for any reason the interfaces vanish with it and no
routing into a dead link is left behind.
"""
from __future__ import annotations

import fcntl
import os
import struct

# Same name in every namespace: namespaces keep them apart.
TUN_NAME = "llab0"
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
# No packet-information header: every read() is exactly one IP packet.
IFF_NO_PI = 0x1000
# No IFF_VNET_HDR either, so the kernel never hands us GSO super-packets:
# TCP is segmented to the device MTU before it reaches the emulator, which is
# what a real link with per-packet serialization delay needs.


def open_tun(name: str) -> int:
    """Create TUN device `name` in the *calling thread's* network namespace and
    return a non-blocking fd (one IP packet per read/write)."""
    if len(name.encode()) > 15:
        raise ValueError(f"interface name too long (max 15 bytes): {name!r}")
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
    try:
        ifr = struct.pack("16sH22x", name.encode(), IFF_TUN | IFF_NO_PI)
        fcntl.ioctl(fd, TUNSETIFF, ifr)
        os.set_blocking(fd, False)
    except BaseException:
        os.close(fd)
        raise
    return fd
