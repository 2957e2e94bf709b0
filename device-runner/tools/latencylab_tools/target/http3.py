"""HTTP/3 server side: the native latencylab-h3-target (quic-go) as a child process.

aioquic in Python spent more CPU per packet than a long link's round trip allows (a
309 KB file took 13 % longer over h3 than h1 at 95 ms RTT), so HTTP/3 is served by a
Go program built from device-runner/tools/native. It serves the routes of routes.py with the
same statuses, texts and headers; the bodies come from this process (content.py, written
into a directory it loads once at start), so every protocol serves the same bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import signal
from pathlib import Path

from ..native import NativeProgramMissing, native_program
from . import content

BINARY = "latencylab-h3-target"
READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0


def find_binary() -> str:
    """The checkout's build (what bootstrap built), else $PATH (installed runners)."""
    try:
        return native_program(BINARY)
    except NativeProgramMissing as e:
        raise NativeProgramMissing(f"{e}; or start the target without HTTP/3 (--no-h3)") from e


def write_content(directory: Path) -> None:
    """The bodies the native server loads: `block` (the 1 MiB block /bytes/{n} repeats)
    and `files/<name>` for every file of content.file_sizes()."""
    (directory / "files").mkdir(parents=True, exist_ok=True)
    (directory / "block").write_bytes(content.byte_range(content.BLOCK_SIZE))
    for name in content.file_sizes():
        (directory / "files" / name).write_bytes(content.file_bytes(name))


class NativeH3Server:
    """One running latencylab-h3-target. Its stdin is a pipe from us that we never write
    to: EOF there (we closed it, or this process died) makes it exit."""

    def __init__(self, process: asyncio.subprocess.Process, port: int, server: str):
        self.process = process
        self.port = port
        self.server = server  # "quic-go <version>", for runs to record

    @property
    def pid(self) -> int:
        return self.process.pid

    async def aclose(self) -> None:
        await _stop(self.process)


async def serve_h3(host: str, port: int, cert: Path, key: Path, content_dir: Path) -> NativeH3Server:
    """Start the native server on UDP host:port; returns once it listens.

    Raises OSError(EADDRINUSE) when the port is taken (serve_target retries another)."""
    binary = find_binary()
    proc = await asyncio.create_subprocess_exec(
        binary, "--addr", _join_host_port(host, port), "--cert", str(cert), "--key", str(key),
        "--content-dir", str(content_dir),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,  # stderr: ours
    )
    try:
        if proc.stdout is None:
            raise RuntimeError("proc.stdout is None")
        line = await asyncio.wait_for(proc.stdout.readline(), READY_TIMEOUT_S)
        ready = json.loads(line) if line else {}
        if ready.get("event") == "error" and ready.get("error") == "address_in_use":
            raise OSError(errno.EADDRINUSE, f"{BINARY}: {ready.get('detail')}")
        if ready.get("event") != "ready":
            raise RuntimeError(f"{BINARY} did not start (output {line!r}); its stderr says why")
    except BaseException:
        await _stop(proc)
        raise
    return NativeH3Server(proc, int(ready["h3_port"]), str(ready["h3_server"]))


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
