"""Userspace backend: starts the emulator process and addresses its TUNs.

Each namespace gets one TUN (`llab0`) with a /32 address and a route for the
other half of 198.18.0.0/15 only, so nothing else is reachable from inside.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

from .nsutil import run
from .profile import LinkProfile
from .tun import TUN_NAME

MTU = 1500
CLIENT_ADDR, SERVER_ADDR = "198.18.0.1", "198.19.0.1"
_READY_TIMEOUT_S = 10.0


def address_commands(client_ns: str, server_ns: str, mtu: int = MTU) -> list[list[str]]:
    cmds = []
    for ns, addr, peer_net in ((client_ns, CLIENT_ADDR, "198.19.0.0/16"), (server_ns, SERVER_ADDR, "198.18.0.0/16")):
        cmds += [
            # txqueuelen only matters if the emulator falls behind; the
            # emulated queue is the emulator's, not this one.
            ["ip", "-n", ns, "link", "set", TUN_NAME, "mtu", str(mtu), "txqueuelen", "1000", "up"],
            ["ip", "-n", ns, "addr", "add", f"{addr}/32", "dev", TUN_NAME],
            ["ip", "-n", ns, "route", "add", peer_net, "dev", TUN_NAME, "src", addr],
        ]
    return cmds


class UserspaceBackend:
    name = "userspace"
    client_addr, server_addr = CLIENT_ADDR, SERVER_ADDR

    def __init__(self, mtu: int = MTU, rt_priority: int = 10) -> None:
        self.mtu = mtu
        self.rt_priority = rt_priority
        self.proc: subprocess.Popen | None = None
        self.stats_dir: str | None = None

    def extra_namespaces(self) -> list[str]:
        return []

    def start(self, profile: LinkProfile, client_ns: str, server_ns: str, extra: dict[str, str],
              stats_dir: str | None = None) -> None:
        self.stats_dir = stats_dir
        argv = [sys.executable, "-m", "latencylab_tools.netlab.emulator",
                "--client-ns", client_ns, "--server-ns", server_ns,
                "--owner-pid", str(os.getpid()), "--rt-priority", str(self.rt_priority),
                "--profile-json", json.dumps(profile.to_dict())]
        if stats_dir:
            argv += ["--stats-dir", stats_dir]
        self.proc = proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        if proc.stdout is None:  # stdout=PIPE
            raise RuntimeError("proc.stdout is None")
        r, _, _ = select.select([proc.stdout], [], [], _READY_TIMEOUT_S)
        line = proc.stdout.readline() if r else ""
        if line.strip() != "ready":
            self.stop()
            raise RuntimeError(f"link emulator failed to start (exit code {proc.poll()})")
        for cmd in address_commands(client_ns, server_ns, self.mtu):
            run(cmd)

    def stats(self, timeout_s: float = 2.0) -> dict[str, dict]:
        """Ask both direction processes for their counters (SIGUSR1)."""
        proc = self.proc
        if not self.stats_dir or proc is None or not self.alive():
            raise RuntimeError("emulator not running or started without a stats directory")
        paths = {d: os.path.join(self.stats_dir, f"{d}.json") for d in ("up", "down")}
        for p in paths.values():
            if os.path.exists(p):
                os.unlink(p)
        proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout_s
        while not all(os.path.exists(p) for p in paths.values()):
            if time.monotonic() > deadline:
                raise TimeoutError("emulator did not report its counters")
            time.sleep(0.01)
        out = {}
        for d, p in paths.items():
            with open(p) as f:
                out[d] = json.load(f)
        return out

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
