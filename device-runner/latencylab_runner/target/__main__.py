"""`python -m latencylab_runner.target`: serve until SIGTERM/SIGINT.

Prints one JSON line with the bound ports once every listener is ready, so a parent
process (runner agent, tests, benchmarks) can start it with port 0 and read the ports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

from .server import serve_target


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="latencylab-target", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--plain-port", type=int, default=8080, help="cleartext h1c port (0 = free port, -1 = off)")
    p.add_argument("--tls-port", type=int, default=8443, help="TLS h1/h2/gRPC port; h3 on the same UDP port (0 = free)")
    p.add_argument("--tls-dir", type=Path, default=Path("var/tls"), help="CA + server cert, created if missing")
    p.add_argument("--nagle-trap", action="store_true", help="calibration: Nagle on and responses split in two writes")
    p.add_argument("--no-h3", action="store_true", help="do not serve HTTP/3")
    return p.parse_args(argv)


async def _serve(args: argparse.Namespace) -> None:
    target = await serve_target(
        args.host,
        None if args.plain_port < 0 else args.plain_port,
        None if args.tls_port < 0 else args.tls_port,
        args.tls_dir,
        nagle_trap=args.nagle_trap,
        h3=not args.no_h3,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(json.dumps({"event": "ready", **target.describe()}), flush=True)
    await stop.wait()
    await target.aclose()


def main(argv: list[str] | None = None) -> int:
    asyncio.run(_serve(parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
