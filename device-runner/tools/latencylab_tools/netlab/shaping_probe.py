"""Can this host shape phones on its access point, and if not, why — the real cause.

The per-phone shaping (wifi.py) needs, on the host: `ip` and `tc`; the right to change
interfaces and qdiscs (CAP_NET_ADMIN: the runner's systemd unit grants it as an ambient
capability); and the kernel's ifb device, htb and netem qdiscs and u32 classifier. The probe
builds that same structure on an ifb device of its own (`llab-p<pid>`), which it deletes
again: nothing is touched on the AP interface, and it needs no network namespace (creating
one needs CAP_SYS_ADMIN as well, which the runner does not hold).

The cause is read from what the kernel answers through iproute2, never guessed:

- EPERM ("Operation not permitted") — the process lacks CAP_NET_ADMIN;
- ENOENT / EOPNOTSUPP, or iproute2's "Specified qdisc kind is unknown" / "Unknown device
  type" — the kernel lacks the module the step needs (the step names it);
- anything else is quoted as iproute2 printed it.
"""

from __future__ import annotations

import os
import platform
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .nsutil import NS_PREFIX, run

PROBE_IFB_PREFIX = f"{NS_PREFIX}p"  # netlab's own prefix, so a leftover is recognisably ours

_PERMISSION = ("Operation not permitted", "Permission denied")
_MISSING = ("No such file or directory", "Operation not supported", "Not supported", "kind is unknown",
            "Unknown device type", "Unknown filter", "Unknown qdisc", "not found")

CommandRunner = Callable[[Sequence[str]], tuple[int, str]]


def run_command(cmd: Sequence[str]) -> tuple[int, str]:
    done = run(list(cmd), check=False)
    return done.returncode, (done.stderr or done.stdout or "").strip()


@dataclass(frozen=True)
class ShapingProbe:
    can_shape: bool
    reason: str | None = None  # why not, naming the cause and the fix
    cause: str | None = None  # "platform", "tools", "interface", "capability", "module", "other"

    def capabilities(self) -> dict[str, object]:
        out: dict[str, object] = {"can_shape": self.can_shape}
        if self.reason:
            out["cannot_shape_reason"] = self.reason[:300]
        return out


def _cannot(cause: str, reason: str) -> ShapingProbe:
    return ShapingProbe(False, reason, cause)


def _steps(dev: str) -> list[tuple[list[str], str]]:
    """What the shaper builds, in its order, each with the module it needs."""
    return [
        (["ip", "link", "add", dev, "type", "ifb"], "ifb"),
        (["ip", "link", "set", dev, "up"], "ifb"),
        (["tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "fffe"], "sch_htb"),
        (["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", "10mbit"], "sch_htb"),
        (["tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "1001:", "netem", "delay", "1ms"],
         "sch_netem"),
        (["tc", "filter", "add", "dev", dev, "parent", "1:", "prio", "1", "protocol", "ip", "u32", "match", "ip",
          "dst", "198.18.0.1/32", "flowid", "1:1"], "cls_u32"),
        (["tc", "qdisc", "add", "dev", dev, "handle", "ffff:", "ingress"], "sch_ingress"),
    ]


def judge_answer(cmd: Sequence[str], answer: str, module: str) -> ShapingProbe:
    """The cause of one failed step, from what iproute2 printed."""
    said = " ".join(answer.split()) or "no message"
    command = " ".join(cmd)
    if any(p.lower() in said.lower() for p in _PERMISSION):
        return _cannot("capability", f"the runner lacks CAP_NET_ADMIN: `{command}` answered EPERM ({said}); run it "
                                     f"with AmbientCapabilities=CAP_NET_ADMIN (deploy/latencylab-runner.service)")
    if any(m.lower() in said.lower() for m in _MISSING):
        return _cannot("module", f"the kernel lacks {module}: `{command}` answered {said}; `modprobe {module}` "
                                 f"(and list it in /etc/modules-load.d/latencylab.conf)")
    return _cannot("other", f"`{command}` failed: {said}")


def probe_shaping(interface: str | None, *, runner: CommandRunner = run_command,
                  system: str | None = None) -> ShapingProbe:
    """Try the shaper's structure on a throwaway ifb device; `interface` is the AP's
    (config link.interface). `runner` runs one command and returns (exit code, message):
    tests run the same commands in a network namespace of their own."""
    if (system or platform.system()) != "Linux":
        return _cannot("platform", f"{system or platform.system()} has no tc/netem: this lab cannot shape its "
                                   f"phones (Linux labs can); put its devices on profile none")
    if interface is None:
        return _cannot("interface", "link.interface is not set: name the Wi-Fi access point interface the phones "
                                    "are on (e.g. wlan0)")
    missing = [tool for tool in ("ip", "tc") if shutil.which(tool) is None]
    if missing:
        return _cannot("tools", f"{' and '.join(missing)} not found: `apt-get install iproute2`")
    code, answer = runner(["ip", "link", "show", "dev", interface])
    if code != 0:
        return _cannot("interface", f"link.interface {interface!r}: {' '.join(answer.split()) or 'not found'} "
                                    f"(name the Wi-Fi access point interface the phones are on)")
    dev = f"{PROBE_IFB_PREFIX}{os.getpid() % 100_000_000}"
    runner(["ip", "link", "del", dev])  # a leftover of a killed probe of this pid
    try:
        for cmd, module in _steps(dev):
            code, answer = runner(cmd)
            if code != 0:
                return judge_answer(cmd, answer, module)
    finally:
        runner(["ip", "link", "del", dev])
    return ShapingProbe(True)
