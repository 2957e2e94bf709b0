"""Network conditions for LatencyLab (docs/network-conditions.md).

One `LinkProfile`, two backends: tc/netem where the kernel has sch_netem, and
a userspace packet-level emulator (TUN devices in `llab-*` network
namespaces) everywhere else.  Only 198.18.0.0/15 addresses inside namespaces
created here ever carry traffic.
"""
from .availability import emulation_unavailable
from .link import EmulatedLink
from .measure import LinkMeasurement, RttStats
from .netem import netem_available
from .presets import PRESETS
from .profile import Blackout, DirectionProfile, GilbertElliott, LinkProfile, ProfileError
from .sweep import sweep_leftovers

__all__ = [
    "Blackout", "DirectionProfile", "EmulatedLink", "GilbertElliott", "LinkMeasurement", "LinkProfile",
    "PRESETS", "ProfileError", "RttStats", "emulation_unavailable", "netem_available", "sweep_leftovers",
]
