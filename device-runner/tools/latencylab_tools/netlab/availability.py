"""Whether this host can emulate a link at all: tried, never assumed.

`make up` asks before choosing its demo's network (infra/bin/stack.py): the demo runs
over an emulated mobile link where it can, and says it ran on loopback where it cannot.
"""
from __future__ import annotations

import os
import secrets
import shutil

from .netem import netem_available
from .nsutil import NS_PREFIX, run

TUN_DEVICE = "/dev/net/tun"


def emulation_unavailable() -> str | None:
    """Why no EmulatedLink can start here, or None when one can: root, `ip`, a network
    namespace that can really be created (a container may refuse it), and a TUN device
    for the userspace emulator or netem in the kernel."""
    if os.geteuid() != 0:
        return "the link emulator needs root (network namespaces, TUN devices)"
    if shutil.which("ip") is None:
        return "the link emulator needs iproute2's `ip`"
    probe = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(3)}-probe"
    created = run(["ip", "netns", "add", probe], check=False)
    if created.returncode != 0:
        return f"network namespaces are not available: {created.stderr.strip() or 'ip netns add failed'}"
    run(["ip", "netns", "del", probe], check=False)
    if not _tun_opens() and not netem_available():
        return f"neither {TUN_DEVICE} (userspace emulator) nor sch_netem is available"
    return None


def _tun_opens() -> bool:
    try:
        os.close(os.open(TUN_DEVICE, os.O_RDWR | os.O_CLOEXEC))
    except OSError:
        return False
    return True
