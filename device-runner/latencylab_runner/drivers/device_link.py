"""The network path of a phone's run under a network profile.

Two ways, chosen in the runner config (`link.mode`):

- `ap-netem` (a real lab): the phones are on the runner host's Wi-Fi access point and the
  profile is applied with netem on the AP interface, keyed by the phone's address (as
  Augmented Traffic Control did). Where the kernel has no sch_netem the run is refused
  with the reason: an unshaped run is not the comparison that was asked for.
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

from .emulated import LinkUnavailable, emulated_run
from .targets import ReferenceTarget

LINK_MODES = ("ap-netem", "namespace")
CLIENT_NETNS_ENV = "LATENCYLAB_CLIENT_NETNS"


@dataclass
class PhoneLink:
    target: ReferenceTarget  # the reference target as the phone reaches it
    env: dict[str, str] = field(default_factory=dict)  # for the lane's environment
    report: Callable[[], dict[str, Any]] = lambda: {"profile": "none", "measured": None}


def netem_available() -> bool:
    from ..netlab import netem_available as probe

    return probe()


@contextmanager
def phone_link(network_profile: dict[str, Any] | None, *, mode: str, reference: ReferenceTarget,
               interface: str | None = None) -> Iterator[PhoneLink]:
    profile = (network_profile or {}).get("name", "none")
    if profile == "none":
        yield PhoneLink(target=reference)
        return
    if mode == "namespace":
        with emulated_run(network_profile or {}, reference) as emulated:
            yield PhoneLink(target=emulated.target, env={CLIENT_NETNS_ENV: emulated.link.client_netns},
                            report=lambda: emulated.link_report(profile))
        return
    if mode == "ap-netem":
        if not netem_available():
            raise LinkUnavailable(
                f"network profile {profile!r}: shaping a phone's Wi-Fi needs netem on the access point interface "
                f"{interface or '(link.interface not set)'}, and this kernel has no sch_netem "
                "(tc: 'Specified qdisc kind is unknown'); load the sch_netem module or run this profile on a "
                "host runner")
        raise LinkUnavailable(f"network profile {profile!r}: per-device netem on the access point is not "
                              "implemented by this runner version; see docs/device-lab.md (Wi-Fi shaping)")
    raise LinkUnavailable(f"link.mode must be one of {', '.join(LINK_MODES)}, got {mode!r}")
