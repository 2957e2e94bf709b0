"""Network-namespace helpers and the traffic guard.

Every place that sends traffic goes through `require_link_netns` and
`require_benchmark_addr`: traffic may only flow inside namespaces this package
created (name prefix ``llab-``) and only to 198.18.0.0/15 (RFC 2544
benchmarking range), never to a real network.
"""
from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import os
import subprocess
import threading
from collections.abc import Iterator, Sequence

NS_PREFIX = "llab-"
NETNS_DIR = "/var/run/netns"
BENCH_NET = ipaddress.ip_network("198.18.0.0/15")
CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)


class NetnsError(RuntimeError):
    pass


def netns_path(name: str) -> str:
    return os.path.join(NETNS_DIR, name)


def netns_exists(name: str) -> bool:
    return os.path.exists(netns_path(name))


def require_link_netns(name: str) -> None:
    """Refuse to act in a namespace we did not create (or that is gone)."""
    if not name.startswith(NS_PREFIX):
        raise NetnsError(f"refusing to use namespace {name!r}: not created by netlab ({NS_PREFIX}*)")
    if not netns_exists(name):
        raise NetnsError(f"namespace {name!r} does not exist; refusing to send traffic")


def require_benchmark_addr(addr: str) -> None:
    ip = ipaddress.ip_address(addr)
    if ip not in BENCH_NET:
        raise NetnsError(f"refusing to send to {addr}: outside {BENCH_NET}")


def run(cmd: Sequence[str], check: bool = True) -> subprocess.CompletedProcess:
    """Run an admin command (ip/tc); errors carry the command and stderr."""
    p = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise NetnsError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


_ns_lock = threading.Lock()


@contextlib.contextmanager
def in_netns(name: str) -> Iterator[None]:
    """Switch the calling thread into namespace `name` for the block.

    setns(CLONE_NEWNET) is per-thread, and sockets keep the namespace they were
    created in, so a socket created inside this block can be used afterwards
    from any thread.  The lock keeps two threads of ours from interleaving.
    """
    require_link_netns(name)
    with _ns_lock:
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        target = os.open(netns_path(name), os.O_RDONLY | os.O_CLOEXEC)
        try:
            setns(target)
            try:
                yield
            finally:
                setns(own)
        finally:
            os.close(target)
            os.close(own)


def ns_exec_argv(name: str, argv: Sequence[str]) -> list[str]:
    """argv that runs `argv` inside namespace `name` (ip netns exec also
    remounts /sys for the namespace, which tools like `ip` expect)."""
    require_link_netns(name)
    return ["ip", "netns", "exec", name, *argv]


def list_link_namespaces() -> list[str]:
    try:
        return sorted(n for n in os.listdir(NETNS_DIR) if n.startswith(NS_PREFIX))
    except FileNotFoundError:
        return []
