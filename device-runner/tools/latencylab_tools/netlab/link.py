"""EmulatedLink: two namespaces joined by an emulated link, as a context manager.

    with EmulatedLink(PRESETS["transatlantic"]) as link:
        srv = link.spawn_in_server([...])
        out = link.run_in_client([...])
        print(link.measure())

The link owns everything it creates: namespaces, the emulator (or tc setup)
and every process started through it; `close()` removes all of it, and
`sweep_leftovers()` does the same for links whose owner crashed.
"""
from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Sequence
from typing import Any

from . import sweep
from .measure import LinkMeasurement, measure_link
from .netem import NetemBackend, netem_available
from .nsutil import NS_PREFIX, ns_exec_argv, require_link_netns, run
from .presets import PRESETS
from .profile import LinkProfile
from .userspace import UserspaceBackend

BACKENDS = ("auto", "userspace", "netem")
# TCP congestion control pinned in the client and server namespaces, first
# one the kernel accepts.  A new namespace otherwise inherits the host's
# default (BBR on some hosts), and BBR barely reacts to random loss where
# CUBIC and Reno cut their window, so an unpinned link would make lossy results
# depend on the host's sysctl.  CUBIC is Linux's default and what most servers
# run; but a child namespace may only select algorithms listed in the host's
# net.ipv4.tcp_allowed_congestion_control (reno plus the host default), so on a
# BBR host it is refused and Reno (always allowed; also aioquic's default for
# QUIC) is used.  The algorithm in effect is `EmulatedLink.congestion_control`.
DEFAULT_CONGESTION_CONTROL = ("cubic", "reno")
_CC_SYSCTL = "net.ipv4.tcp_congestion_control"


class EmulatedLink:
    def __init__(self, profile: LinkProfile | str = "none", *, backend: str = "auto",
                 rt_priority: int = 10,
                 congestion_control: None | str | Sequence[str] = DEFAULT_CONGESTION_CONTROL) -> None:
        """profile: a LinkProfile or a PRESETS name.  backend: "auto" (netem if
        the kernel has it, else userspace), "userspace" or "netem".
        rt_priority: SCHED_FIFO priority of the userspace emulator (0 = off).
        congestion_control: TCP congestion control for the client and server
        namespaces, or a preference list (first one the kernel accepts; default
        cubic, else reno); None = inherit the host's default.  After start(),
        `self.congestion_control` is the algorithm in effect: store it with a run."""
        if isinstance(profile, str):
            if profile not in PRESETS:
                raise KeyError(f"unknown preset {profile!r}; known: {', '.join(PRESETS)}")
            profile = PRESETS[profile]
        if backend not in BACKENDS:
            raise ValueError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
        if backend == "auto":
            backend = "netem" if netem_available() else "userspace"
        elif backend == "netem" and not netem_available():
            raise RuntimeError("backend 'netem' requested but this kernel has no sch_netem "
                               "(tc: 'Specified qdisc kind is unknown'); use backend='userspace' or 'auto'")
        self.profile = profile
        self.backend_name = backend
        if isinstance(congestion_control, str):
            congestion_control = (congestion_control,)
        self._cc_wanted = tuple(congestion_control) if congestion_control is not None else None
        self.congestion_control: str | None = None  # in effect, known after start()
        self._backend: Any = NetemBackend() if backend == "netem" else UserspaceBackend(rt_priority=rt_priority)
        self.link_id = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.client_netns = f"{NS_PREFIX}{self.link_id}-c"
        self.server_netns = f"{NS_PREFIX}{self.link_id}-s"
        self._extra = {role: f"{NS_PREFIX}{self.link_id}-{role}" for role in self._backend.extra_namespaces()}
        self.client_addr: str = self._backend.client_addr
        self.server_addr: str = self._backend.server_addr
        self._procs: list[subprocess.Popen] = []
        self._started = False

    # -- lifecycle --------------------------------------------------------
    @property
    def namespaces(self) -> list[str]:
        return [self.client_netns, self.server_netns, *self._extra.values()]

    def start(self) -> EmulatedLink:
        if os.geteuid() != 0:
            raise PermissionError("EmulatedLink needs root (network namespaces, TUN devices)")
        sweep.sweep_leftovers()
        # State first: a crash between here and close() leaves something the
        # sweep can attribute to a dead owner.
        sweep.write_state(self.link_id, self.namespaces)
        self._started = True
        try:
            for ns in self.namespaces:
                run(["ip", "netns", "add", ns])
                run(["ip", "-n", ns, "link", "set", "lo", "up"])
            self.congestion_control = self._pin_congestion_control()
            self._backend.start(self.profile, self.client_netns, self.server_netns, self._extra,
                                stats_dir=sweep.state_dir_for(self.link_id))
        except BaseException:
            self.close()
            raise
        return self

    def _pin_congestion_control(self) -> str:
        c, s = self.client_netns, self.server_netns
        if self._cc_wanted is None:
            return run(["ip", "netns", "exec", c, "sysctl", "-n", _CC_SYSCTL]).stdout.strip()
        errors = []
        for name in self._cc_wanted:
            p = run(["ip", "netns", "exec", c, "sysctl", "-qw", f"{_CC_SYSCTL}={name}"], check=False)
            if p.returncode == 0:
                run(["ip", "netns", "exec", s, "sysctl", "-qw", f"{_CC_SYSCTL}={name}"])
                return name
            errors.append(f"{name}: {p.stderr.strip()}")
        raise RuntimeError(f"no congestion control of {list(self._cc_wanted)} accepted in the link namespaces "
                           f"({'; '.join(errors)}); a child namespace may only use the host's "
                           "net.ipv4.tcp_allowed_congestion_control")

    def close(self) -> None:
        if not self._started:
            return
        for p in self._procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        self._procs.clear()
        self._backend.stop()
        for ns in self.namespaces:
            sweep.delete_netns(ns)
        sweep.remove_state(self.link_id)
        self._started = False

    def __enter__(self) -> EmulatedLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running things inside --------------------------------------------
    def _popen(self, ns: str, argv: Sequence[str], **kw: Any) -> subprocess.Popen:
        require_link_netns(ns)
        p = subprocess.Popen(ns_exec_argv(ns, argv), **kw)
        self._procs.append(p)
        return p

    def spawn_in_server(self, argv: Sequence[str], **popen_kw: Any) -> subprocess.Popen:
        """Start a process in the server namespace; killed at close()."""
        return self._popen(self.server_netns, argv, **popen_kw)

    def spawn_in_client(self, argv: Sequence[str], **popen_kw: Any) -> subprocess.Popen:
        return self._popen(self.client_netns, argv, **popen_kw)

    def _run(self, ns: str, argv: Sequence[str], timeout: float, kw: dict) -> subprocess.CompletedProcess:
        require_link_netns(ns)
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        return subprocess.run(ns_exec_argv(ns, argv), timeout=timeout, **kw)

    def run_in_client(self, argv: Sequence[str], timeout: float = 120.0, **run_kw: Any) -> subprocess.CompletedProcess:
        """Run to completion in the client namespace (bounded by `timeout`)."""
        return self._run(self.client_netns, argv, timeout, run_kw)

    def run_in_server(self, argv: Sequence[str], timeout: float = 120.0, **run_kw: Any) -> subprocess.CompletedProcess:
        return self._run(self.server_netns, argv, timeout, run_kw)

    # -- calibration ------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Link counters to save with a run: per direction received, delivered,
        dropped_{loss,queue,blackout}, bytes, and the emulator's own release
        lateness (late_max_s, late_over_1ms); `tc -s qdisc` text for netem."""
        return self._backend.stats()

    def measure(self, *, rtt_samples: int = 20, loss_packets: int = 500, rate_seconds: float = 2.0,
                time_budget_s: float = 20.0) -> LinkMeasurement:
        """Calibration probe: TCP-connect RTT, per-direction loss and goodput."""
        if self.backend_name == "userspace" and not self._backend.alive():
            raise RuntimeError("link emulator process has exited")
        return measure_link(self.client_netns, self.server_netns, self.client_addr, self.server_addr,
                            self.profile, rtt_samples=rtt_samples, loss_packets=loss_packets,
                            rate_seconds=rate_seconds, time_budget_s=time_budget_s)
