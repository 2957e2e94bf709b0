"""Calibration probe for a link: TCP-connect RTT, loss and goodput.

Everything runs in this process: sockets are created inside the link's
namespaces (see `nsutil.in_netns`) and used from threads, so timings carry no
subprocess start-up noise.  Every phase is bounded in packets and time and
stops by itself.  Traffic only goes between the two link namespaces, to
198.18.0.0/15 addresses (checked).
"""
from __future__ import annotations

import dataclasses
import math
import select
import socket
import statistics
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .nsutil import in_netns, require_benchmark_addr, require_link_netns
from .profile import DirectionProfile, LinkProfile

_UDP_PAYLOAD = 64                 # bytes; 92-byte IP packets
_UDP_IP_BYTES = _UDP_PAYLOAD + 28
_LINGER_RST = struct.pack("ii", 1, 0)  # close with RST: no TIME_WAIT pile-up across samples


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of a non-empty list."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


@dataclass
class RttStats:
    n: int
    avg: float
    stddev: float
    min: float
    max: float
    p50: float
    p95: float
    failures: int = 0

    @classmethod
    def of(cls, samples_ms: list[float], failures: int) -> RttStats | None:
        if not samples_ms:
            return None
        return cls(n=len(samples_ms), avg=statistics.fmean(samples_ms),
                   stddev=statistics.stdev(samples_ms) if len(samples_ms) > 1 else 0.0,
                   min=min(samples_ms), max=max(samples_ms), p50=percentile(samples_ms, 50),
                   p95=percentile(samples_ms, 95), failures=failures)


@dataclass
class DirectionLoss:
    sent: int
    received: int

    @property
    def loss_pct(self) -> float:
        return 100.0 * (self.sent - self.received) / self.sent if self.sent else float("nan")


@dataclass
class LinkMeasurement:
    profile: str
    expected_rtt_ms: float
    rtt_ms: RttStats | None = None
    rtt_samples_ms: list[float] = field(default_factory=list)
    loss: dict[str, DirectionLoss] = field(default_factory=dict)
    goodput_kbit: dict[str, float] = field(default_factory=dict)

    def loss_pct(self, direction: str) -> float:
        return self.loss[direction].loss_pct

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["loss"] = {k: {"sent": v.sent, "received": v.received, "loss_pct": v.loss_pct} for k, v in self.loss.items()}
        return d


def _sock(ns: str, family: int = socket.AF_INET, type_: int = socket.SOCK_STREAM) -> socket.socket:
    with in_netns(ns):
        return socket.socket(family, type_)


def _listener(ns: str, addr: str) -> socket.socket:
    s = _sock(ns)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
    s.listen(1024)
    return s


# -- RTT ----------------------------------------------------------------
def measure_connect_rtt(client_ns: str, server_ns: str, client_addr: str, server_addr: str,
                        samples: int, timeout_s: float, budget_s: float = 60.0) -> tuple[list[float], int]:
    """Time up to `samples` TCP handshakes (SYN -> SYN/ACK seen by connect()),
    stopping early once `budget_s` is spent."""
    require_benchmark_addr(server_addr)
    lst = _listener(server_ns, server_addr)
    port = lst.getsockname()[1]
    stop = threading.Event()

    def accept_and_drop() -> None:
        # The kernel completes the handshake without us; accepting only keeps
        # the backlog from filling.
        lst.settimeout(0.1)
        while not stop.is_set():
            try:
                c, _ = lst.accept()
                c.close()
            except (TimeoutError, OSError):
                continue

    t = threading.Thread(target=accept_and_drop, daemon=True)
    t.start()
    out: list[float] = []
    failures = 0
    deadline = time.monotonic() + budget_s
    try:
        for _ in range(samples):
            if time.monotonic() > deadline:
                break
            require_link_netns(client_ns)
            s = _sock(client_ns)
            s.settimeout(timeout_s)
            s.bind((client_addr, 0))
            try:
                t0 = time.perf_counter()
                s.connect((server_addr, port))
                out.append((time.perf_counter() - t0) * 1000.0)
            except OSError:
                failures += 1
            finally:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_RST)
                s.close()
    finally:
        stop.set()
        t.join()
        lst.close()
    return out, failures


# -- loss -----------------------------------------------------------------
def _udp(ns: str, addr: str) -> socket.socket:
    s = _sock(ns, type_=socket.SOCK_DGRAM)
    # Large receive buffer so the probe's own socket never drops (root may
    # exceed rmem_max with SO_RCVBUFFORCE).
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((addr, 0))
    s.setblocking(False)
    return s


def _drain(s: socket.socket, seen: set[int]) -> None:
    while True:
        try:
            data = s.recv(2048)
        except BlockingIOError:
            return
        if len(data) >= 4:
            seen.add(struct.unpack_from("!I", data)[0])


def measure_loss(src_ns: str, dst_ns: str, src_addr: str, dst_addr: str, d: DirectionProfile,
                 packets: int, budget_s: float) -> DirectionLoss:
    """Send up to `packets` numbered UDP datagrams, paced below the link rate
    so the bottleneck queue never overflows; count what arrives."""
    require_benchmark_addr(dst_addr)
    tx, rx = _udp(src_ns, src_addr), _udp(dst_ns, dst_addr)
    try:
        rate_bps = d.rate_kbit * 1000 if d.rate_kbit else 400e6
        interval = max(_UDP_IP_BYTES * 8 / rate_bps / 0.8, 20e-6)
        n = max(1, min(packets, int(budget_s / interval)))
        dst = rx.getsockname()
        seen: set[int] = set()
        payload = bytearray(_UDP_PAYLOAD)
        t0 = time.perf_counter()
        for i in range(n):
            wait = t0 + i * interval - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            struct.pack_into("!I", payload, 0, i)
            try:
                tx.sendto(payload, dst)
            except BlockingIOError:
                select.select([], [tx], [], 1.0)
                tx.sendto(payload, dst)
            if i % 64 == 0:
                _drain(rx, seen)
        # Wait out the delay line, jitter tail and whatever is still queued.
        # Pacing keeps the queue near empty, so delay + jitter tail + margin.
        settle = (d.delay_ms + 4 * d.jitter_ms) / 1000 + 0.3
        deadline = time.perf_counter() + settle
        while time.perf_counter() < deadline:
            select.select([rx], [], [], max(0.0, deadline - time.perf_counter()))
            _drain(rx, seen)
        return DirectionLoss(sent=n, received=len(seen))
    finally:
        tx.close()
        rx.close()


# -- goodput ------------------------------------------------------------------
def measure_goodput(src_ns: str, dst_ns: str, src_addr: str, dst_addr: str, seconds: float) -> float:
    """TCP bulk transfer src -> dst for `seconds`; goodput (kbit/s) over the
    second half, after slow start.  The receiver ends the test by closing
    (with RST), so a bloated queue never keeps the test running."""
    require_benchmark_addr(dst_addr)
    require_benchmark_addr(src_addr)
    lst = _listener(src_ns, src_addr)
    port = lst.getsockname()[1]
    chunk = b"\0" * 65536
    done = threading.Event()  # the receiver's RST can be lost (blackout): stop on this too

    def sender() -> None:
        lst.settimeout(seconds + 10)
        try:
            c, _ = lst.accept()
        except OSError:
            return
        c.settimeout(0.2)
        end = time.monotonic() + seconds + 10
        try:
            while time.monotonic() < end and not done.is_set():
                try:
                    c.send(chunk)
                except TimeoutError:
                    continue
        except OSError:
            pass  # receiver closed: done
        finally:
            c.close()

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    r = _sock(dst_ns)
    r.settimeout(seconds + 10)
    try:
        r.bind((dst_addr, 0))
        r.connect((src_addr, port))
        t_start = time.monotonic()
        t_half, t_end = t_start + seconds / 2, t_start + seconds
        arrivals: list[tuple[float, int]] = []
        while True:
            now = time.monotonic()
            if now >= t_end:
                break
            r.settimeout(t_end - now)
            try:
                n = len(r.recv(1 << 20))
            except TimeoutError:
                break
            if n == 0:
                break
            arrivals.append((time.monotonic(), n))
        # Rate between the first and last arrival of the second half; the
        # first arrival only opens the interval, so its bytes are not counted.
        # On very slow links (a few packets per second) fall back to the
        # whole transfer rather than divide by a sliver of time.
        window = [a for a in arrivals if a[0] >= t_half]
        if len(window) < 3:
            window = arrivals
        if len(window) < 2 or window[-1][0] <= window[0][0]:
            return 0.0
        return sum(n for _, n in window[1:]) * 8 / (window[-1][0] - window[0][0]) / 1000.0
    finally:
        done.set()
        r.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_RST)
        r.close()
        t.join(timeout=seconds + 12)
        lst.close()


def measure_link(client_ns: str, server_ns: str, client_addr: str, server_addr: str, profile: LinkProfile, *,
                 rtt_samples: int = 20, loss_packets: int = 500, rate_seconds: float = 2.0,
                 time_budget_s: float = 20.0) -> LinkMeasurement:
    for ns in (client_ns, server_ns):
        require_link_netns(ns)
    m = LinkMeasurement(profile=profile.name, expected_rtt_ms=profile.rtt_ms)
    if rtt_samples:
        timeout = max(3.0, 3 * profile.rtt_ms / 1000 + 1)
        m.rtt_samples_ms, fails = measure_connect_rtt(client_ns, server_ns, client_addr, server_addr,
                                                      rtt_samples, timeout, budget_s=time_budget_s / 2)
        m.rtt_ms = RttStats.of(m.rtt_samples_ms, fails)
    if loss_packets:
        budget = time_budget_s / 4  # per direction
        m.loss["up"] = measure_loss(client_ns, server_ns, client_addr, server_addr, profile.up,
                                    loss_packets, budget)
        m.loss["down"] = measure_loss(server_ns, client_ns, server_addr, client_addr, profile.down,
                                      loss_packets, budget)
    if rate_seconds:
        m.goodput_kbit["down"] = measure_goodput(server_ns, client_ns, server_addr, client_addr, rate_seconds)
        m.goodput_kbit["up"] = measure_goodput(client_ns, server_ns, client_addr, server_addr, rate_seconds)
    return m
