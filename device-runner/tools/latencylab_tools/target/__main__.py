"""`python -m latencylab_tools.target`: serve until SIGTERM/SIGINT.

Prints one JSON line with the bound ports once every listener is ready, so a parent
process (runner agent, tests, benchmarks) can start it with port 0 and read the ports.

`--workers N` (default: the CPUs this process may run on) serves the TCP ports from N
worker processes, each with its own SO_REUSEPORT listener on the same port (the kernel
spreads connections across them by 4-tuple hash). This process then only supervises
the workers and the HTTP/3 server (latencylab-h3-target, a native child process, see
http3.py): QUIC packets of one connection must always reach the process holding its
state, and the kernel's per-4-tuple UDP routing cannot follow connection IDs (migration,
NAT rebinding), so h3 stays in one process. The ready line
is printed once every worker listens; SIGTERM/SIGINT stops the workers (SIGTERM, then
SIGKILL after 10 s) and exits 0; a worker that dies stops the whole target (exit 1).
Workers also exit when this process disappears (their stdin pipe closes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from .server import TICKET_KEYS_LEN, serve_target

STOP_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 60.0


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="latencylab-target", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--plain-port", type=int, default=8080, help="cleartext h1c port (0 = free port, -1 = off)")
    p.add_argument("--tls-port", type=int, default=8443, help="TLS h1/h2/gRPC port; h3 on the same UDP port (0 = free)")
    p.add_argument("--tls-dir", type=Path, default=Path("var/tls"), help="CA + server cert, created if missing")
    p.add_argument("--cert-file", type=Path, default=None,
                   help="serve this certificate chain (PEM) instead of the private CA's: the lab's publicly trusted "
                        "certificate for its DNS name, which Android's h3 needs (with --key-file)")
    p.add_argument("--key-file", type=Path, default=None, help="the private key (PEM) of --cert-file")
    p.add_argument("--nagle-trap", action="store_true", help="calibration: Nagle on and responses split in two writes")
    p.add_argument("--tcp-pacing", action="store_true",
                   help="pace TCP as QUIC is paced (the kernel's internal pacing); default: burst the window "
                        "as a default Linux server does (h3 is always paced)")
    p.add_argument("--no-h3", action="store_true", help="do not serve HTTP/3 (needs no native latencylab-h3-target)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes serving the TCP ports (SO_REUSEPORT); default: CPU count; 1 = one process")
    # Internal: how the supervisor starts a worker.
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--advertise-h3-port", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.workers is None:
        args.workers = 1 if args.worker else default_workers()
    if args.workers < 1:
        p.error("--workers must be >= 1")
    if (args.cert_file is None) != (args.key_file is None):
        p.error("--cert-file and --key-file: give both (the lab's certificate chain and its key) or neither")
    return args


def _port(value: int) -> int | None:
    return None if value < 0 else value


def _stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)


def _stop_when_parent_goes(stop: asyncio.Event) -> None:
    """A worker's stdin is a pipe from the supervisor: EOF means the supervisor is gone."""
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            stop.set()

    loop.add_reader(fd, readable)


async def _serve(args: argparse.Namespace, ticket_keys: bytes | None = None) -> None:
    """One process serves everything (--workers 1), or is one worker (--worker)."""
    target = await serve_target(
        args.host,
        _port(args.plain_port),
        _port(args.tls_port),
        args.tls_dir,
        nagle_trap=args.nagle_trap,
        tcp_pacing=args.tcp_pacing,
        h3=not args.no_h3 and not args.worker,
        reuse_port=args.worker,
        advertise_h3_port=args.advertise_h3_port,
        ticket_keys=ticket_keys,
        cert_file=args.cert_file,
        key_file=args.key_file,
    )
    stop = asyncio.Event()
    _stop_on_signals(stop)
    if args.worker:
        _stop_when_parent_goes(stop)
    print(json.dumps({"event": "ready", **target.describe(), "workers": 1, "worker_pids": [os.getpid()]}), flush=True)
    await stop.wait()
    await target.aclose()


def _worker_command(args: argparse.Namespace, plain_port: int | None, tls_port: int | None,
                    h3_port: int | None) -> list[str]:
    cmd = [sys.executable, "-m", "latencylab_tools.target", "--worker", "--host", args.host,
           "--plain-port", str(-1 if plain_port is None else plain_port),
           "--tls-port", str(-1 if tls_port is None else tls_port), "--tls-dir", str(args.tls_dir)]
    if args.nagle_trap:
        cmd.append("--nagle-trap")
    if args.tcp_pacing:
        cmd.append("--tcp-pacing")
    if args.cert_file is not None:
        cmd += ["--cert-file", str(args.cert_file), "--key-file", str(args.key_file)]
    if h3_port is not None:
        cmd += ["--advertise-h3-port", str(h3_port)]
    return cmd


def _worker_env() -> dict[str, str]:
    # Workers import this very package, wherever it was imported from (source tree or site).
    pkg_root = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, env.get("PYTHONPATH")) if p)
    return env


async def _stop_workers(workers: list[asyncio.subprocess.Process]) -> None:
    for proc in workers:
        if proc.returncode is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    async def reap(proc: asyncio.subprocess.Process) -> None:
        try:
            await asyncio.wait_for(proc.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            proc.kill()
            await proc.wait()

    await asyncio.gather(*(reap(p) for p in workers))


async def _supervise(args: argparse.Namespace) -> int:
    # Reserve the TCP port numbers (port 0 -> free ports) without listening, and serve h3.
    target = await serve_target(
        args.host, _port(args.plain_port), _port(args.tls_port), args.tls_dir,
        nagle_trap=args.nagle_trap, tcp_pacing=args.tcp_pacing, h3=not args.no_h3, reuse_port=True, listen=False,
        cert_file=args.cert_file, key_file=args.key_file,
    )
    stop = asyncio.Event()
    _stop_on_signals(stop)
    cmd = _worker_command(args, target.plain_port, target.tls_port, target.h3_port)
    env = _worker_env()
    # One set of TLS session-ticket keys for all workers (see server.set_ticket_keys),
    # handed over on the worker's stdin (not argv/environment, which others can read).
    ticket_keys = os.urandom(TICKET_KEYS_LEN).hex().encode() + b"\n"
    workers: list[asyncio.subprocess.Process] = []
    try:
        for _ in range(args.workers):
            proc = await asyncio.create_subprocess_exec(
                *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
            workers.append(proc)
            if proc.stdin is None:
                raise RuntimeError("proc.stdin is None")
            proc.stdin.write(ticket_keys)  # the pipe stays open: EOF tells the worker we are gone

        async def ready(proc: asyncio.subprocess.Process) -> dict[str, object]:
            if proc.stdout is None:
                raise RuntimeError("proc.stdout is None")
            line = await proc.stdout.readline()
            if not line:
                raise RuntimeError(f"target worker {proc.pid} exited before it was ready (code {await proc.wait()})")
            return json.loads(line)

        ready_task = asyncio.ensure_future(asyncio.wait_for(asyncio.gather(*(ready(p) for p in workers)),
                                                            READY_TIMEOUT_S))
        stop_task = asyncio.ensure_future(stop.wait())
        await asyncio.wait({ready_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        if not ready_task.done():  # SIGTERM while starting
            ready_task.cancel()
            stop_task.cancel()
            return 0
        stop_task.cancel()
        ready_task.result()  # raises if a worker failed
        target.release_reserved()  # the workers' listeners hold the ports now
        print(json.dumps({"event": "ready", **target.describe(), "workers": len(workers),
                          "worker_pids": [p.pid for p in workers]}), flush=True)
        stop_task = asyncio.ensure_future(stop.wait())
        died = [asyncio.ensure_future(p.wait()) for p in workers]
        done, _ = await asyncio.wait({stop_task, *died}, return_when=asyncio.FIRST_COMPLETED)
        for t in (stop_task, *died):
            t.cancel()
        if stop_task in done:
            return 0
        dead = next(p for p in workers if p.returncode is not None)
        print(f"latencylab-target: worker {dead.pid} exited with code {dead.returncode}; stopping",
              file=sys.stderr, flush=True)
        return 1
    finally:
        await _stop_workers(workers)
        await target.aclose()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tcp = args.plain_port >= 0 or args.tls_port >= 0
    if args.worker:
        line = sys.stdin.buffer.readline().strip()
        ticket_keys = bytes.fromhex(line.decode()) if line else None
        if ticket_keys is None:
            return 1  # the supervisor went away before handing over the keys
        asyncio.run(_serve(args, ticket_keys))
        return 0
    if args.workers == 1 or not tcp:
        asyncio.run(_serve(args))
        return 0
    return asyncio.run(_supervise(args))


if __name__ == "__main__":
    sys.exit(main())
