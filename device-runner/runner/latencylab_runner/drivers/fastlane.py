"""Running a fastlane lane as a bounded subprocess: its log streamed line by line to the
runner's log and into a bounded in-memory tail (the artifact), a time limit, and a kill
of the lane's whole process group (gradle daemons, xcodebuild, adb children) when it is
over its limit or the run is cancelled."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("latencylab.fastlane")

ARTIFACT_LIMIT = 2 * 1024 * 1024  # the backend's per-artifact cap (contract/README.md)


class BoundedTail:
    """The last `limit` bytes of a stream (a log's end says why it failed)."""

    def __init__(self, limit: int = ARTIFACT_LIMIT):
        self.limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self.dropped = 0

    def append(self, data: bytes) -> None:
        self._chunks.append(data)
        self._size += len(data)
        while self._size > self.limit and self._chunks:
            head = self._chunks.popleft()
            excess = self._size - self.limit
            if len(head) > excess:
                self._chunks.appendleft(head[excess:])
                self._size -= excess
                self.dropped += excess
            else:
                self._size -= len(head)
                self.dropped += len(head)

    def value(self) -> bytes:
        body = b"".join(self._chunks)
        if not self.dropped:
            return body
        marker = f"[… {self.dropped} earlier bytes of this log were cut; the tail is kept …]\n".encode()
        return marker + body[len(marker):]


def bounded(data: bytes, limit: int = ARTIFACT_LIMIT) -> bytes:
    tail = BoundedTail(limit)
    tail.append(data)
    return tail.value()


@dataclass(frozen=True)
class LaneRun:
    argv: list[str]
    returncode: int | None  # None when killed
    timed_out: bool
    cancelled: bool
    log: bytes  # the tail, at most ARTIFACT_LIMIT bytes
    seconds: float
    start_error: str | None = None  # the lane could not even start (fastlane missing, bad cwd)

    @property
    def text(self) -> str:
        return self.log.decode("utf-8", "replace")


def run_lane(argv: list[str], *, cwd: Path, env: dict[str, str], timeout_s: float, label: str,
             cancelled: threading.Event | None = None, limit: int = ARTIFACT_LIMIT) -> LaneRun:
    started = time.monotonic()
    tail = BoundedTail(limit)
    try:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        message = f"cannot start {argv[0]} in {cwd}: {exc.strerror or exc}"
        return LaneRun(argv, None, False, False, (message + "\n").encode(), 0.0, start_error=message)

    def pump() -> None:
        if process.stdout is None:
            raise RuntimeError("process.stdout is None")
        for line in process.stdout:
            tail.append(line)
            log.info("%s | %s", label, line.decode("utf-8", "replace").rstrip())

    reader = threading.Thread(target=pump, name=f"fastlane-log-{label}", daemon=True)
    reader.start()
    deadline = started + timeout_s
    timed_out = was_cancelled = False
    while True:
        try:
            process.wait(timeout=min(0.5, max(0.0, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                timed_out = True
            elif cancelled is not None and cancelled.is_set():
                was_cancelled = True
            else:
                continue
            _kill_group(process)
            break
    reader.join(timeout=10)
    if timed_out:
        tail.append(f"\n[latencylab-runner] killed after {timeout_s:g} s: over the lane's time limit\n".encode())
    return LaneRun(argv, None if (timed_out or was_cancelled) else process.returncode, timed_out, was_cancelled,
                   tail.value(), time.monotonic() - started)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the lane's process group, SIGKILL after 5 s."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            # The leader is gone; make sure its children are too.
            os.killpg(process.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return
