"""The network path of a phone's run under a network profile.

Two ways, chosen in the runner config (`link.mode`):

- `ap-netem` (a real lab): the phones are on the runner host's Wi-Fi access point and the
  profile is applied per phone with htb + netem on the AP interface, keyed by the phone's
  address (netlab/wifi.py, as Augmented Traffic Control did). Where the kernel has no
  sch_netem the run is refused with the reason: an unshaped run is not the comparison
  that was asked for. The link report holds the applied profile, the phone's address and
  the ICMP round trip from this host to the phone through the shaping.
- `namespace` (a lab in a box: emulators, or the JVM stand-in for the harness that the
  tests use): the emulated link of the host driver (drivers/emulated.py), with the
  reference target in its server namespace; a harness that runs on this host finds the
  client namespace in LATENCYLAB_CLIENT_NETNS and runs behind it.

`none` needs neither: the phones reach the reference target as they are."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from latencylab_tools.netlab.wifi import ShapingUnavailable, WifiShaper

from ..agent.baseline import icmp_rtt
from .emulated import LinkUnavailable, emulated_run, link_profile
from .targets import ReferenceTarget

LINK_MODES = ("ap-netem", "namespace")
CLIENT_NETNS_ENV = "LATENCYLAB_CLIENT_NETNS"


@dataclass
class PhoneLink:
    target: ReferenceTarget  # the reference target as the phone reaches it
    env: dict[str, str] = field(default_factory=dict)  # for the lane's environment
    report: Callable[[], dict[str, Any]] = lambda: {"profile": "none", "measured": None}


@contextmanager
def phone_link(network_profile: dict[str, Any] | None, *, mode: str, reference: ReferenceTarget,
               serial: str = "", address_of: Callable[[], str] | None = None,
               shaper: WifiShaper | None = None) -> Iterator[PhoneLink]:
    """`address_of` tells the phone's address on the AP (ap-netem); `shaper` is the one
    WifiShaper of the runner host's AP interface."""
    profile_name = (network_profile or {}).get("name", "none")
    if profile_name == "none":
        yield PhoneLink(target=reference)
        return
    if mode == "namespace":
        with emulated_run(network_profile or {}, reference) as emulated:
            yield PhoneLink(target=emulated.target, env={CLIENT_NETNS_ENV: emulated.link.client_netns},
                            report=lambda: emulated.link_report(profile_name))
        return
    if mode != "ap-netem":
        raise LinkUnavailable(f"link.mode must be one of {', '.join(LINK_MODES)}, got {mode!r}")
    if shaper is None or address_of is None:
        raise LinkUnavailable(f"network profile {profile_name!r}: shaping phones needs link.interface (the Wi-Fi "
                              "access point interface of this host) in the runner config")
    profile = link_profile(network_profile or {})
    try:
        address = address_of()
        shaper.apply(serial, address, profile)
    except ShapingUnavailable as exc:
        raise LinkUnavailable(f"network profile {profile_name!r}: {exc}") from exc
    except (ValueError, OSError, RuntimeError) as exc:
        raise LinkUnavailable(f"network profile {profile_name!r}: cannot shape {serial}: {exc}") from exc

    def report() -> dict[str, Any]:
        # The round trip from here to the phone crosses both shaped directions.
        return {"profile": profile_name, "backend": "netem-ap", "interface": shaper.ifaces.ap, "address": address,
                "applied": profile.to_dict(), "measured": {"icmp_to_device": icmp_rtt(address)}}

    try:
        yield PhoneLink(target=reference, report=report)
    finally:
        shaper.remove(serial)
