"""The userspace link emulator process (mahimahi-style).

    python -m latencylab_tools.netlab.emulator --client-ns C --server-ns S \
        --owner-pid PID --profile-json '{...}'

It creates one TUN device in each namespace (by entering the namespace just
long enough to open /dev/net/tun), prints "ready" on stdout, then forks: one
process per direction, each reading whole IP packets from one TUN and writing
them to the other at the time the `DirectionModel` says.  One process per
direction uses both cores and keeps the two directions from delaying each
other.  Nothing terminates TCP or QUIC: handshakes cross the emulated delay.

Lifetime: the TUN fds are the only thing keeping the interfaces alive, and
both processes exit as soon as the owner process exits (the owner's pidfd is
in every select set; the forked child also dies with its parent through
PR_SET_PDEATHSIG), so a crashed runner never leaves a live link.  What a crash
can leave is the (empty) namespaces and processes started inside them;
`sweep_leftovers()` removes those.

Counters: SIGUSR1 makes each direction write its LinkCounters as JSON into
--stats-dir (see `EmulatedLink.stats()`).
"""
from __future__ import annotations

import argparse
import ctypes
import dataclasses
import gc
import heapq
import json
import os
import select
import signal
import sys
import time
import traceback

from .model import DirectionModel
from .nsutil import in_netns
from .profile import LinkProfile
from .tun import TUN_NAME, open_tun

_PR_SET_PDEATHSIG = 1
_PR_SET_TIMERSLACK = 29
_BATCH = 64          # packets read per wakeup before checking the clock again
_MAX_PACKET = 65536

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> None:
    _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0)


def dump_stats(model: DirectionModel, path: str | None) -> None:
    """Write the direction's counters (atomically) for `EmulatedLink.stats()`."""
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(dataclasses.asdict(model.counters), f)
    os.replace(tmp, path)


def pump(src: int, dst: int, model: DirectionModel, stop_fd: int) -> None:
    """Move packets src -> dst, each released at its scheduled time."""
    now = time.monotonic
    c = model.counters
    pending: list[tuple[float, int, bytes]] = []
    seq = 0
    rd, wr = os.read, os.write
    push, pop = heapq.heappush, heapq.heappop
    admit = model.admit
    watch = [src, stop_fd]
    while True:
        t = now()
        while pending and pending[0][0] <= t:
            dep, _, pkt = pop(pending)
            # How late the release is versus the schedule: the emulator's own
            # timing error, reported separately from the probe's.
            late = t - dep
            if late > c.late_max_s:
                c.late_max_s = late
            if late > 0.001:
                c.late_over_1ms += 1
            try:
                wr(dst, pkt)
            except OSError:
                pass  # destination interface down: the packet is lost, as on a wire
        timeout = max(0.0, pending[0][0] - t) if pending else None
        ready, _, _ = select.select(watch, [], [], timeout)
        if stop_fd in ready:
            return
        if src not in ready:
            continue
        t = now()
        for _ in range(_BATCH):
            try:
                pkt = rd(src, _MAX_PACKET)
            except BlockingIOError:
                break
            # Only IPv4 within 198.18.0.0/15 crosses the link (network rule);
            # this also drops IPv6 router solicitations and the like.
            if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[16] != 198 or pkt[17] & 0xFE != 18:
                continue
            departure = admit(t, len(pkt))
            if departure is None:
                continue
            if departure <= t and not pending:
                try:
                    wr(dst, pkt)  # zero-delay fast path keeps order: nothing queued
                except OSError:
                    pass
            else:
                seq += 1
                push(pending, (departure, seq, pkt))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--client-ns", required=True)
    ap.add_argument("--server-ns", required=True)
    ap.add_argument("--owner-pid", type=int, required=True)
    ap.add_argument("--profile-json", required=True)
    ap.add_argument("--stats-dir", help="write per-direction counters here on SIGUSR1")
    ap.add_argument("--rt-priority", type=int, default=10,
                    help="SCHED_FIFO priority (0 = normal scheduling)")
    args = ap.parse_args(argv)

    profile = LinkProfile.from_dict(json.loads(args.profile_json))
    # No PR_SET_PDEATHSIG here: it fires when the *thread* that spawned us
    # exits, which in a threaded host driver is not the owner exiting.  The
    # owner's pidfd (below) is the exact signal.
    _prctl(_PR_SET_TIMERSLACK, 1)  # 1 ns slack: wake-ups on time, not up to 50 us late
    if args.rt_priority > 0:
        # On a busy host a normal-priority process wakes up to milliseconds
        # late, which would show up as phantom jitter.  A low real-time
        # priority makes wake-ups punctual; the loop blocks in select(), and
        # the kernel's RT throttling (95 %) bounds it even if it ever spun.
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt_priority))
        except OSError:
            pass
    try:
        owner = os.pidfd_open(args.owner_pid)
    except ProcessLookupError:
        return 1

    with in_netns(args.client_ns):
        client_fd = open_tun(TUN_NAME)
    with in_netns(args.server_ns):
        server_fd = open_tun(TUN_NAME)

    start = time.monotonic()
    seed = profile.seed
    up = DirectionModel(profile.up, profile.blackouts, start=start, seed=None if seed is None else seed * 2 + 1)
    down = DirectionModel(profile.down, profile.blackouts, start=start, seed=None if seed is None else seed * 2)

    # The packet loop allocates no reference cycles; a GC pass would only add
    # latency spikes.
    gc.disable()
    gc.freeze()
    sys.stdout.write("ready\n")
    sys.stdout.flush()

    def stats_path(direction: str) -> str | None:
        return os.path.join(args.stats_dir, f"{direction}.json") if args.stats_dir else None

    child = os.fork()
    if child == 0:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the down-link process
        signal.signal(signal.SIGUSR1, lambda *_: dump_stats(up, stats_path("up")))
        code = 0
        try:
            pump(client_fd, server_fd, up, owner)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stderr.flush()
            os._exit(code)
    def on_term(*_: object) -> None:
        os.kill(child, signal.SIGKILL)
        os._exit(0)

    signal.signal(signal.SIGTERM, on_term)

    def on_usr1(*_: object) -> None:
        os.kill(child, signal.SIGUSR1)
        dump_stats(down, stats_path("down"))

    signal.signal(signal.SIGUSR1, on_usr1)
    try:
        pump(server_fd, client_fd, down, owner)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
