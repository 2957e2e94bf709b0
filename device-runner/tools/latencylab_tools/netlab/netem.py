"""netem backend: the same profile applied with `tc` on kernels that have
sch_netem.

Topology (docs/network-conditions.md §2):
    client ns  --veth--  router ns  --veth--  server ns
netem (+ a tbf child for rate and the drop-tail queue) sits on the router's
two egress veths, never on a sender's own egress, where TCP Small Queues
would interact with it.  TSO/GSO/GRO are turned off on all veths so netem
sees wire-sized packets (loss and rate apply per packet, not per 64 KB
super-packet).

Caveat: netem reorders packets whose jittered delay crosses the next
packet's; with `reorder=False` the userspace backend keeps order but netem
cannot.  Blackouts have no netem equivalent and are toggled with
`tc qdisc change ... loss 100%` from a timer thread.
"""
from __future__ import annotations

import functools
import math
import os
import secrets
import shutil
import threading
import time

from .nsutil import NS_PREFIX, run
from .profile import DirectionProfile, LinkProfile

MTU = 1500
CLIENT_ADDR, SERVER_ADDR = "198.18.0.1", "198.19.0.1"
ROUTER_CLIENT_SIDE, ROUTER_SERVER_SIDE = "198.18.0.254", "198.19.0.254"
# Device names inside the namespaces (namespaces isolate them, so fixed names are fine).
DEV_CLIENT, DEV_RTR_CLIENT, DEV_RTR_SERVER, DEV_SERVER = "llab-c", "llab-rc", "llab-rs", "llab-s"


def _ms(x: float) -> str:
    return f"{x:g}ms"


def _pct(x: float) -> str:
    return f"{x:g}%"


def netem_args(d: DirectionProfile, seed: int | None = None, *, blackout: bool = False) -> list[str]:
    """Arguments after `netem` for one direction."""
    args = ["delay", _ms(d.delay_ms)]
    if d.jitter_ms:
        args += [_ms(d.jitter_ms)]
        if d.jitter_correlation_pct:
            args += [_pct(d.jitter_correlation_pct)]
        # Our jitter_ms is a standard deviation of a normal distribution.
        args += ["distribution", "normal"]
    if blackout:
        args += ["loss", "random", "100%"]
    elif d.loss_model == "gilbert_elliott" and d.gilbert is not None:
        g = d.gilbert
        # netem's gemodel takes p, r, 1-h, 1-k.
        args += ["loss", "gemodel", _pct(g.p), _pct(g.r), _pct(100 - g.h), _pct(100 - g.k)]
    elif d.loss_pct:
        args += ["loss", "random", _pct(d.loss_pct)]
    # The delay line must never be the bottleneck: hold 2 x (packets in flight
    # during one delay at the rate), and at least netem's default.
    pps = (d.rate_kbit * 1000 / 8 / MTU) if d.rate_kbit else 100_000
    args += ["limit", str(max(1000, math.ceil(2 * pps * d.delay_ms / 1000)))]
    if seed is not None:
        args += ["seed", str(seed)]
    return args


def tbf_args(d: DirectionProfile) -> list[str] | None:
    if d.rate_kbit is None:
        return None
    # burst: at least one MTU-sized packet, and at least 1 ms of traffic so the
    # token bucket can keep up at high rates despite timer granularity.
    burst = max(1540, math.ceil(d.rate_kbit * 1000 / 8 / 1000))
    return ["rate", f"{d.rate_kbit:g}kbit", "burst", str(burst), "limit", str(d.queue_packets * MTU)]


def shaping_commands(ns: str, dev: str, d: DirectionProfile, seed: int | None = None) -> list[list[str]]:
    """tc commands shaping egress of `dev` in namespace `ns` for one direction."""
    cmds = [["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", *netem_args(d, seed)]]
    tbf = tbf_args(d)
    if tbf:
        cmds.append(["tc", "-n", ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "tbf", *tbf])
    return cmds


def blackout_commands(ns: str, profile: LinkProfile, on: bool) -> list[list[str]]:
    """Switch both directions into (on=True) or out of a blackout."""
    out = []
    for dev, d, seed in ((DEV_RTR_CLIENT, profile.down, profile.seed), (DEV_RTR_SERVER, profile.up, profile.seed)):
        out.append(["tc", "-n", ns, "qdisc", "change", "dev", dev, "root", "handle", "1:", "netem",
                    *netem_args(d, seed, blackout=on)])
    return out


def topology_commands(client_ns: str, router_ns: str, server_ns: str) -> list[list[str]]:
    """Namespaces must already exist.  Returns ip/sysctl/ethtool commands."""
    c, r, s = client_ns, router_ns, server_ns
    cmds = [
        ["ip", "-n", c, "link", "add", DEV_CLIENT, "type", "veth", "peer", "name", DEV_RTR_CLIENT, "netns", r],
        ["ip", "-n", s, "link", "add", DEV_SERVER, "type", "veth", "peer", "name", DEV_RTR_SERVER, "netns", r],
        ["ip", "-n", c, "addr", "add", f"{CLIENT_ADDR}/24", "dev", DEV_CLIENT],
        ["ip", "-n", r, "addr", "add", f"{ROUTER_CLIENT_SIDE}/24", "dev", DEV_RTR_CLIENT],
        ["ip", "-n", r, "addr", "add", f"{ROUTER_SERVER_SIDE}/24", "dev", DEV_RTR_SERVER],
        ["ip", "-n", s, "addr", "add", f"{SERVER_ADDR}/24", "dev", DEV_SERVER],
    ]
    for ns, dev in ((c, DEV_CLIENT), (r, DEV_RTR_CLIENT), (r, DEV_RTR_SERVER), (s, DEV_SERVER)):
        cmds.append(["ip", "-n", ns, "link", "set", dev, "mtu", str(MTU), "up"])
        cmds.append(["ip", "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"])
    cmds += [
        ["ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"],
        # Only the benchmarking range is routed, and only via the router.
        ["ip", "-n", c, "route", "add", "198.19.0.0/16", "via", ROUTER_CLIENT_SIDE],
        ["ip", "-n", s, "route", "add", "198.18.0.0/16", "via", ROUTER_SERVER_SIDE],
    ]
    return cmds


def link_commands(profile: LinkProfile, client_ns: str, router_ns: str, server_ns: str) -> list[list[str]]:
    cmds = topology_commands(client_ns, router_ns, server_ns)
    cmds += shaping_commands(router_ns, DEV_RTR_CLIENT, profile.down, profile.seed)
    cmds += shaping_commands(router_ns, DEV_RTR_SERVER, profile.up, profile.seed)
    return cmds


@functools.lru_cache(maxsize=1)
def netem_available() -> bool:
    """Try netem on a dummy interface in a throwaway namespace; never assume."""
    if shutil.which("tc") is None or shutil.which("ip") is None:
        return False
    ns = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(3)}-probe"
    if run(["ip", "netns", "add", ns], check=False).returncode != 0:
        return False
    try:
        if run(["ip", "-n", ns, "link", "add", "llab-d0", "type", "dummy"], check=False).returncode != 0:
            return False
        p = run(["tc", "-n", ns, "qdisc", "add", "dev", "llab-d0", "root", "netem", "delay", "1ms"], check=False)
        return p.returncode == 0
    finally:
        run(["ip", "netns", "del", ns], check=False)


class NetemBackend:
    name = "netem"
    client_addr, server_addr = CLIENT_ADDR, SERVER_ADDR

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.router_ns: str | None = None

    def extra_namespaces(self) -> list[str]:
        return ["r"]

    def start(self, profile: LinkProfile, client_ns: str, server_ns: str, extra: dict[str, str],
              stats_dir: str | None = None) -> None:
        if shutil.which("ethtool") is None:
            raise RuntimeError("netem backend needs ethtool to turn off TSO/GSO/GRO on the veths")
        self.router_ns = extra["r"]
        for cmd in link_commands(profile, client_ns, self.router_ns, server_ns):
            run(cmd)
        if profile.blackouts:
            self._thread = threading.Thread(target=self._blackouts, args=(profile, self.router_ns), daemon=True)
            self._thread.start()

    def _blackouts(self, profile: LinkProfile, router_ns: str) -> None:
        start = time.monotonic()
        state = False
        while not self._stop.wait(0.01):
            t = time.monotonic() - start
            want = any(b.active(t) for b in profile.blackouts)
            if want != state:
                for cmd in blackout_commands(router_ns, profile, want):
                    run(cmd, check=False)
                state = want

    def stats(self) -> dict[str, str]:
        if self.router_ns is None:
            raise RuntimeError("netem backend not started")
        out = {}
        for direction, dev in (("down", DEV_RTR_CLIENT), ("up", DEV_RTR_SERVER)):
            out[direction] = run(["tc", "-n", self.router_ns, "-s", "qdisc", "show", "dev", dev]).stdout
        return out

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)
