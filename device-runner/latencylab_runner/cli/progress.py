"""Progress while waiting: a redrawn bar on a terminal, plain lines in CI logs."""

from __future__ import annotations

import time
from typing import Any, TextIO

BAR_WIDTH = 24
# In a log, repeat an unchanged state at most this often so the job visibly lives.
LOG_HEARTBEAT_S = 60.0


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
    return text


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
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class Progress:
    def __init__(self, stream: TextIO, *, tty: bool | None = None, clock: Any = time.monotonic) -> None:
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.clock = clock
        self.started = clock()
        self._last_line: str | None = None
        self._last_print = 0.0
        self._bar_shown = False

    def update(self, detail: dict[str, Any]) -> None:
        line = describe(detail)
        now = self.clock()
        if self.tty:
            percent = (detail.get("progress") or {}).get("percent") or 0
            filled = max(0, min(BAR_WIDTH, round(BAR_WIDTH * float(percent) / 100)))
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            self.stream.write(f"\r\x1b[K[{bar}] {line}  {_elapsed(now - self.started)}")
            self.stream.flush()
            self._bar_shown = True
        elif line != self._last_line or now - self._last_print >= LOG_HEARTBEAT_S:
            self.stream.write(line + "\n")
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
