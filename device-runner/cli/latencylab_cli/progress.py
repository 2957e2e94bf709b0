"""Progress while waiting: a redrawn bar with percentage and ETA on a terminal, plain lines in CI logs."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any, TextIO

BAR_WIDTH = 24
# In a log, repeat an unchanged state at most this often so the job visibly lives.
LOG_HEARTBEAT_S = 60.0
# CI systems that set CI to one of these run the job in a log, even behind a pseudo-terminal.
_CI_FALSE = {"", "0", "false", "no"}


def is_interactive(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """A terminal that redraws lines: a TTY, outside CI (CI=true), and not TERM=dumb."""
    env = os.environ if environ is None else environ
    if env.get("CI", "").strip().lower() not in _CI_FALSE or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def describe(detail: dict[str, Any]) -> str:
    """`running 40% (4/10 blocks), about 3 min of device time left`."""
    progress = detail.get("progress") or {}
    status = detail.get("status", "?")
    percent = progress.get("percent")
    done, total = progress.get("blocks_done"), progress.get("blocks_total")
    text = str(status)
    if isinstance(percent, (int, float)):
        text += f" {percent:.0f}%"
    if done is not None and total:
        text += f" ({done}/{total} blocks"
        low, high = progress.get("blocks_min"), progress.get("blocks_max")
        # Run until decided: the runs stop at a decided look, between min and max blocks.
        ranged = isinstance(low, int) and isinstance(high, int) and low != high
        text += f"; run until decided: {low}–{high})" if ranged else ")"
    left_min, left_max = progress.get("device_seconds_left_min"), progress.get("device_seconds_left_max")
    # At the pace of the blocks stored so far (the server says null until it has one).
    if isinstance(left_min, int) and isinstance(left_max, int) and left_max > 0:
        if left_min == left_max:
            text += f", about {_duration(left_max)} of device time left"
        elif left_min == 0:  # a look that can stop the runs is due now
            text += f", up to about {_duration(left_max)} of device time left"
        else:
            text += f", about {_duration(left_min)}–{_duration(left_max)} of device time left"
    if status == "queued" and (waiting := _waiting_for(detail)):
        text += f"; {waiting}"
    return text


def _waiting_for(detail: dict[str, Any]) -> str | None:
    """Why a queued comparison has not started: the server's reason for its first queued run
    (a free device and the work ahead of it, no runner online, devices quarantined)."""
    for run in detail.get("runs") or ():
        if isinstance(run, dict) and run.get("status") == "queued" and run.get("waiting_for"):
            return str(run["waiting_for"])
    return None


def _duration(seconds: int) -> str:
    """45 s, 3 min, 1 h 20 min."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = int(seconds / 60 + 0.5)  # half up, as the dashboard rounds
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def _elapsed(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class EtaEstimator:
    """Wall-clock time left, from the rate at which blocks were stored while we watched.

    The server's device_seconds_left is device time summed over devices; devices run in
    parallel, so the wall-clock time is estimated from the blocks observed per second
    instead. Before a second distinct block count has been seen there is no rate, and no
    ETA is claimed.
    """

    def __init__(self) -> None:
        self._first: tuple[float, int] | None = None  # (when, blocks_done) at the first observed change
        self._last: tuple[float, int] | None = None

    def observe(self, now: float, blocks_done: Any) -> None:
        if not isinstance(blocks_done, int):
            return
        if self._last is None:
            self._last = (now, blocks_done)
            return
        if blocks_done < self._last[1]:  # a reset (should not happen): start over
            self._first, self._last = None, (now, blocks_done)
            return
        if blocks_done > self._last[1]:
            self._last = (now, blocks_done)
            if self._first is None:
                # The rate runs from the first change seen, so neither time spent queued nor the
                # unknown start of the block in progress when we began watching is counted.
                self._first = self._last

    def seconds_left(self, now: float, blocks_done: Any, blocks_total: Any) -> float | None:
        if self._first is None or self._last is None:
            return None
        if not isinstance(blocks_done, int) or not isinstance(blocks_total, int):
            return None
        (t0, b0), (t1, b1) = self._first, self._last
        if b1 <= b0 or t1 <= t0:
            return None
        rate = (b1 - b0) / (t1 - t0)
        left = max(blocks_total - blocks_done, 0) / rate
        # Time since the last block counts against the estimate: a stalled run's ETA does not freeze.
        return max(left - (now - t1), 0.0)


def eta_text(seconds: float | None, *, upper_bound: bool = False) -> str:
    if seconds is None:
        return "ETA --"
    return f"ETA {'≤ ' if upper_bound else ''}{_elapsed(seconds)}"


def estimate(eta: EtaEstimator, now: float, detail: dict[str, Any]) -> tuple[float | None, bool]:
    """(seconds left, whether that is only an upper bound). The observed block rate first; before
    there is one, the server's device time left, which bounds the wall-clock time from above
    while devices work in parallel (it is summed over them)."""
    counts = detail.get("progress") or {}
    done, total = counts.get("blocks_done"), counts.get("blocks_total")
    # Analysing, or every scheduled block stored: nothing left that a block rate could time.
    if detail.get("status") not in ("queued", "running") or (isinstance(done, int) and isinstance(total, int)
                                                             and done >= total):
        return None, False
    left = eta.seconds_left(now, counts.get("blocks_done"), counts.get("blocks_total"))
    if left is not None:
        return left, False
    device_left = counts.get("device_seconds_left_max")
    if isinstance(device_left, (int, float)) and device_left > 0:
        return float(device_left), True
    return None, False


class Progress:
    """On a terminal: `[#########...............] running 37% (…)  ETA 2m10s  elapsed 1m05s`, redrawn in place.
    In a log (not a TTY, or CI=true): one plain line per change, no carriage returns."""

    def __init__(self, stream: TextIO, *, tty: bool | None = None, clock: Any = time.monotonic,
                 environ: Mapping[str, str] | None = None) -> None:
        self.stream = stream
        self.tty = is_interactive(stream, environ) if tty is None else tty
        self.clock = clock
        self.started = clock()
        self.eta = EtaEstimator()
        self._last_line: str | None = None
        self._last_print = 0.0
        self._bar_shown = False

    def update(self, detail: dict[str, Any]) -> None:
        line = describe(detail)
        now = self.clock()
        counts = detail.get("progress") or {}
        active = detail.get("status") in ("queued", "running", "analysing")
        self.eta.observe(now, counts.get("blocks_done"))
        left, bound = estimate(self.eta, now, detail)
        if self.tty:
            percent = float(counts.get("percent") or 0)
            filled = max(0, min(BAR_WIDTH, round(BAR_WIDTH * percent / 100)))
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            eta = f"  {eta_text(left, upper_bound=bound)}" if active else ""
            self.stream.write(f"\r\x1b[K[{bar}] {line}{eta}  elapsed {_elapsed(now - self.started)}")
            self.stream.flush()
            self._bar_shown = True
        elif line != self._last_line or now - self._last_print >= LOG_HEARTBEAT_S:
            # Only the observed rate is worth a log line's space; the device time is in `line` already.
            suffix = f", {eta_text(left)}" if left is not None and not bound else ""
            self.stream.write(f"{line}{suffix}\n")
            self.stream.flush()
            self._last_print = now
        self._last_line = line

    def note(self, message: str) -> None:
        """A message that must not be overdrawn by the bar."""
        self.finish_line()
        self.stream.write(message + "\n")
        self.stream.flush()

    def finish_line(self) -> None:
        if self._bar_shown:
            self.stream.write("\n")
            self.stream.flush()
            self._bar_shown = False
