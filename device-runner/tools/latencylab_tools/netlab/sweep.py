"""Crash cleanup: who owns which `llab-*` namespace, and removing the orphans.

Each link writes a small state file naming its owner (pid plus the owner's
start time from /proc, so a recycled pid is not mistaken for a live owner).
`sweep_leftovers()` deletes namespaces and kills emulator processes whose owner
is gone; it never touches a link whose owner is still running, so concurrent
runners on one host do not sweep each other.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
from collections.abc import Iterable

from .nsutil import NS_PREFIX, list_link_namespaces, netns_exists, run

STATE_DIR = "/run/latencylab-netlab"
EMULATOR_MODULE = "latencylab_tools.netlab.emulator"
_NS_RE = re.compile(rf"^{re.escape(NS_PREFIX)}(?P<pid>\d+)-(?P<rand>[0-9a-f]+)-(?P<role>[a-z]+)$")


def proc_start_time(pid: int) -> int | None:
    """Start time (clock ticks since boot) of `pid`, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # Field 22; the command name (field 2) may contain spaces, so split after ')'.
    return int(stat.rsplit(")", 1)[1].split()[19])


def owner_alive(pid: int, start_time: int | None) -> bool:
    now = proc_start_time(pid)
    return now is not None and (start_time is None or now == start_time)


def _state_path(link_id: str) -> str:
    return os.path.join(STATE_DIR, f"{link_id}.json")


def write_state(link_id: str, namespaces: Iterable[str]) -> None:
    os.makedirs(STATE_DIR, exist_ok=True)
    pid = os.getpid()
    data = {"owner_pid": pid, "owner_start": proc_start_time(pid), "namespaces": list(namespaces)}
    tmp = _state_path(link_id) + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, _state_path(link_id))


def state_dir_for(link_id: str) -> str:
    """Per-link scratch directory (emulator counters); removed with the state."""
    d = os.path.join(STATE_DIR, link_id)
    os.makedirs(d, exist_ok=True)
    return d


def remove_state(link_id: str) -> None:
    shutil.rmtree(os.path.join(STATE_DIR, link_id), ignore_errors=True)
    try:
        os.unlink(_state_path(link_id))
    except FileNotFoundError:
        pass


def _read_state(link_id: str) -> dict | None:
    try:
        with open(_state_path(link_id)) as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return None


def kill_netns_processes(ns: str) -> None:
    """SIGKILL everything still running inside namespace `ns`."""
    if not netns_exists(ns):
        return
    p = run(["ip", "netns", "pids", ns], check=False)
    for tok in p.stdout.split():
        try:
            os.kill(int(tok), signal.SIGKILL)
        except (ValueError, ProcessLookupError):
            pass


def delete_netns(ns: str) -> None:
    kill_netns_processes(ns)
    if netns_exists(ns):
        run(["ip", "netns", "del", ns], check=False)


def _emulator_processes() -> list[tuple[int, int]]:
    """(pid, owner_pid) of every running netlab emulator process."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if EMULATOR_MODULE.encode() not in argv or b"--owner-pid" not in argv:
            continue
        try:
            owner = int(argv[argv.index(b"--owner-pid") + 1])
        except (IndexError, ValueError):
            continue
        out.append((int(entry), owner))
    return out


def sweep_leftovers() -> list[str]:
    """Remove `llab-*` namespaces and emulator processes whose owner is gone.

    Returns the names of the namespaces removed.  Call it at startup.
    """
    removed = []
    for ns in list_link_namespaces():
        m = _NS_RE.match(ns)
        if m is None:
            # Not our naming scheme but our prefix: only a crashed probe or an
            # older layout could have made it; no owner can be checked, remove.
            delete_netns(ns)
            removed.append(ns)
            continue
        link_id = f"{m['pid']}-{m['rand']}"
        state = _read_state(link_id)
        start = state.get("owner_start") if state else None
        if owner_alive(int(m["pid"]), start):
            continue
        delete_netns(ns)
        removed.append(ns)
    for pid, owner in _emulator_processes():
        if proc_start_time(owner) is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    if os.path.isdir(STATE_DIR):
        for name in os.listdir(STATE_DIR):
            m = re.match(r"^(\d+)-([0-9a-f]+)", name)
            if m is None:
                continue
            link_id = m.group(0)
            state = _read_state(link_id)
            start = state.get("owner_start") if state else None
            if not owner_alive(int(m.group(1)), start):
                remove_state(link_id)
    return removed
