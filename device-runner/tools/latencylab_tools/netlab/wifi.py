"""Per-device shaping on a lab's Wi-Fi access point (docs/network-conditions.md §6).

Phones cannot be put in a network namespace, so a lab shapes them where their traffic
passes the runner host: the access point's interface (the host runs hostapd, or bridges
one). As Augmented Traffic Control did, each phone gets its own shaping keyed by its
address, from the same NetworkProfile the host driver uses:

    down (server → phone): egress of the AP interface, htb class 1:<n> + netem, filter `dst <addr>`
    up   (phone → server): the AP's ingress redirected to an ifb device, the same on its egress, `src <addr>`

htb does the rate (with the profile's queue as the netem limit behind it), netem the
delay, jitter and loss. Unshaped traffic (other phones, the lab's own) falls into the
default class at line rate. Each device's filter has its own priority, so it is removed
without touching the others. The host must be able to shape: before the first phone the
shaper runs the probe (shaping_probe.py), and where it fails (no CAP_NET_ADMIN, no
sch_netem, no AP interface) it refuses with the probe's reason, and a run with a profile other than `none` ends as an
infrastructure error on that device (`link_unavailable`) rather than measuring an
unshaped link.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .netem import netem_args
from .nsutil import run
from .profile import DirectionProfile, LinkProfile
from .shaping_probe import ShapingProbe, probe_shaping

LINE_RATE = "10gbit"  # unshaped classes: never the bottleneck on a Wi-Fi AP
DEFAULT_CLASS = 0xFFFE
MAX_DEVICES = 4000  # class ids 1..MAX_DEVICES; htb minor ids are 16 bits
LEAF_HANDLE_BASE = 0x1000  # a device's netem handle; must not collide with the root (1:) or ingress (ffff:)
MTU = 1500


class ShapingUnavailable(RuntimeError):
    """Per-device shaping cannot be applied on this host; the message says why."""


def _kbit(rate_kbit: float | None) -> str:
    return f"{rate_kbit:g}kbit" if rate_kbit else LINE_RATE


def _match(address: str, direction: str) -> list[str]:
    """u32 match on the phone's address: destination downstream, source upstream."""
    ip = ipaddress.ip_address(address)
    side = "dst" if direction == "down" else "src"
    if ip.version == 4:
        return ["protocol", "ip", "u32", "match", "ip", side, f"{ip}/32"]
    return ["protocol", "ipv6", "u32", "match", "ip6", side, f"{ip}/128"]


@dataclass(frozen=True)
class WifiInterfaces:
    ap: str  # the interface the phones are associated through (e.g. wlan0, or the AP bridge)
    ifb: str = "llab-ifb0"  # carries the AP's ingress so that upstream can be shaped as egress


def setup_commands(ifaces: WifiInterfaces) -> list[list[str]]:
    """Once per host: htb roots with a line-rate default class, and ingress → ifb."""
    cmds: list[list[str]] = [
        ["ip", "link", "add", ifaces.ifb, "type", "ifb"],
        ["ip", "link", "set", ifaces.ifb, "up"],
        ["tc", "qdisc", "add", "dev", ifaces.ap, "handle", "ffff:", "ingress"],
        ["tc", "filter", "add", "dev", ifaces.ap, "parent", "ffff:", "protocol", "all", "u32", "match", "u32", "0",
         "0", "action", "mirred", "egress", "redirect", "dev", ifaces.ifb],
    ]
    for dev in (ifaces.ap, ifaces.ifb):
        cmds += [
            ["tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", f"{DEFAULT_CLASS:x}"],
            ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", f"1:{DEFAULT_CLASS:x}", "htb", "rate",
             LINE_RATE],
        ]
    return cmds


def teardown_commands(ifaces: WifiInterfaces) -> list[list[str]]:
    return [
        ["tc", "qdisc", "del", "dev", ifaces.ap, "root"],
        ["tc", "qdisc", "del", "dev", ifaces.ap, "ingress"],
        ["ip", "link", "del", ifaces.ifb],
    ]


def leaf_handle(slot: int) -> str:
    return f"{LEAF_HANDLE_BASE + slot:x}:"


def leaf_netem_args(d: DirectionProfile, seed: int | None, *, blackout: bool = False) -> list[str]:
    """netem behind an htb class: its limit is the bottleneck's drop-tail queue (the
    profile's queue) plus what the delay line holds at the rate — not netem's default
    1000 packets, which on a slow profile would be minutes of bufferbloat."""
    args = netem_args(d, seed, blackout=blackout)
    if d.rate_kbit:
        in_flight = math.ceil(d.rate_kbit * 1000 / 8 / MTU * d.delay_ms / 1000)
        i = args.index("limit")
        args[i + 1] = str(d.queue_packets + in_flight)
    return args


def _direction_commands(dev: str, slot: int, address: str, direction: str, d: DirectionProfile,
                        seed: int | None) -> list[list[str]]:
    classid = f"1:{slot:x}"
    return [
        ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", classid, "htb", "rate", _kbit(d.rate_kbit),
         "ceil", _kbit(d.rate_kbit)],
        ["tc", "qdisc", "add", "dev", dev, "parent", classid, "handle", leaf_handle(slot), "netem",
         *leaf_netem_args(d, seed)],
        ["tc", "filter", "add", "dev", dev, "parent", "1:", "prio", str(slot), *_match(address, direction),
         "flowid", classid],
    ]


def device_commands(ifaces: WifiInterfaces, slot: int, address: str, profile: LinkProfile) -> list[list[str]]:
    """Shape one phone: `slot` (1…MAX_DEVICES) is its class id and filter priority."""
    if not 1 <= slot <= MAX_DEVICES:
        raise ValueError(f"slot: must be in [1, {MAX_DEVICES}], got {slot}")
    return (_direction_commands(ifaces.ap, slot, address, "down", profile.down, profile.seed)
            + _direction_commands(ifaces.ifb, slot, address, "up", profile.up, profile.seed))


def device_blackout_commands(ifaces: WifiInterfaces, slot: int, profile: LinkProfile, on: bool) -> list[list[str]]:
    cmds = []
    for dev, d in ((ifaces.ap, profile.down), (ifaces.ifb, profile.up)):
        cmds.append(["tc", "qdisc", "change", "dev", dev, "parent", f"1:{slot:x}", "handle", leaf_handle(slot),
                     "netem", *leaf_netem_args(d, profile.seed, blackout=on)])
    return cmds


def device_removal_commands(ifaces: WifiInterfaces, slot: int) -> list[list[str]]:
    """Filter first (it points at the class), then the class with its netem child."""
    cmds = []
    for dev in (ifaces.ap, ifaces.ifb):
        cmds += [["tc", "filter", "del", "dev", dev, "parent", "1:", "prio", str(slot)],
                 ["tc", "class", "del", "dev", dev, "classid", f"1:{slot:x}"]]
    return cmds


Runner = Callable[[Sequence[str]], object]


@dataclass
class WifiShaper:
    """Applies and removes per-phone profiles on one AP interface. `runner` executes a
    command (raising on failure); tests pass a recorder, a lab the real `run`."""

    ifaces: WifiInterfaces
    runner: Runner = field(default=lambda cmd: run(list(cmd)))
    # Whether this host can shape at all, and the real cause when not (shaping_probe.py).
    probe: Callable[[str], ShapingProbe] = probe_shaping
    _slots: dict[str, int] = field(default_factory=dict)
    _blackout_threads: dict[str, tuple[threading.Thread, threading.Event]] = field(default_factory=dict)
    _ready: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _ensure_ready(self) -> None:
        if self._ready:
            return
        verdict = self.probe(self.ifaces.ap)
        if not verdict.can_shape:
            raise ShapingUnavailable(f"per-device Wi-Fi shaping is not available on this host: {verdict.reason}")
        for cmd in setup_commands(self.ifaces):
            self.runner(cmd)
        self._ready = True

    def apply(self, device: str, address: str, profile: LinkProfile) -> None:
        """Shape `device` (its serial, for bookkeeping) at `address`; replaces an earlier profile."""
        ipaddress.ip_address(address)  # a bad address is a ValueError before anything runs
        with self._lock:
            self._ensure_ready()
            if device in self._slots:
                self._remove_locked(device)
            slot = next(s for s in range(1, MAX_DEVICES + 1) if s not in self._slots.values())
            for cmd in device_commands(self.ifaces, slot, address, profile):
                self.runner(cmd)
            self._slots[device] = slot
            if profile.blackouts:
                stop = threading.Event()
                thread = threading.Thread(target=self._blackouts, args=(slot, profile, stop), daemon=True,
                                          name=f"wifi-blackouts-{device}")
                self._blackout_threads[device] = (thread, stop)
                thread.start()

    def remove(self, device: str) -> None:
        with self._lock:
            self._remove_locked(device)

    def _remove_locked(self, device: str) -> None:
        slot = self._slots.pop(device, None)
        if slot is None:
            return
        thread_stop = self._blackout_threads.pop(device, None)
        if thread_stop is not None:
            thread_stop[1].set()
            thread_stop[0].join(timeout=2)
        for cmd in device_removal_commands(self.ifaces, slot):
            self.runner(cmd)

    def close(self) -> None:
        with self._lock:
            for device in list(self._slots):
                self._remove_locked(device)
            if self._ready:
                for cmd in teardown_commands(self.ifaces):
                    self.runner(cmd)
                self._ready = False

    def _blackouts(self, slot: int, profile: LinkProfile, stop: threading.Event) -> None:
        start, state = time.monotonic(), False
        while not stop.wait(0.01):
            want = any(b.active(time.monotonic() - start) for b in profile.blackouts)
            if want != state:
                for cmd in device_blackout_commands(self.ifaces, slot, profile, want):
                    self.runner(cmd)
                state = want
