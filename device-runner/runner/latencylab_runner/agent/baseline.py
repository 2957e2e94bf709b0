"""Network baseline before each block (docs/methodology.md §4): TCP-connect RTT and, where the
host allows it, ICMP echo RTT: n, avg, stddev, min, max and loss."""

import re
import shutil
import socket
import statistics
import subprocess
import time
from typing import Any


def summarize(values_ms: list[float], attempts: int) -> dict[str, Any]:
    if not values_ms:
        return {"n": 0, "avg_ms": None, "stddev_ms": None, "min_ms": None, "max_ms": None, "loss_pct": 100.0}
    return {
        "n": len(values_ms),
        "avg_ms": round(statistics.fmean(values_ms), 4),
        "stddev_ms": round(statistics.pstdev(values_ms), 4),
        "min_ms": round(min(values_ms), 4),
        "max_ms": round(max(values_ms), 4),
        "loss_pct": round(100.0 * (attempts - len(values_ms)) / attempts, 2),
    }


def tcp_connect_rtt(host: str, port: int, *, count: int = 10, timeout_s: float = 3.0) -> dict[str, Any]:
    """The SYN → SYN-ACK round trip, as the time connect() takes."""
    address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    values = []
    for _ in range(count):
        sock = socket.socket(address[0], socket.SOCK_STREAM)
        sock.settimeout(timeout_s)
        start = time.perf_counter_ns()
        try:
            sock.connect(address[4])
            values.append((time.perf_counter_ns() - start) / 1e6)
        except OSError:
            pass
        finally:
            sock.close()
    return summarize(values, count)


def icmp_rtt(host: str, *, count: int = 10) -> dict[str, Any] | None:
    """ICMP echo via the system ping (needs no raw-socket privilege of our own); None if
    ping is missing or not permitted here."""
    ping = shutil.which("ping")
    if ping is None:
        return None
    try:
        out = subprocess.run([ping, "-n", "-c", str(count), "-i", "0.2", "-W", "2", host], capture_output=True,
                             text=True, timeout=count * 2 + 5).stdout
    except (subprocess.TimeoutExpired, OSError):
        return None
    values = [float(m) for m in re.findall(r"time=([\d.]+) ms", out)]
    if not values and "packets transmitted" not in out:
        return None
    return summarize(values, count)


def measure_baseline(host: str, port: int) -> dict[str, Any]:
    return {"tcp": tcp_connect_rtt(host, port), "icmp": icmp_rtt(host)}
