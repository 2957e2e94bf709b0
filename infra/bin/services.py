#!/usr/bin/env python3
"""Starts and stops the PostgreSQL and Redis that `make up` and `make test` use, without
Docker: the Debian binaries, in a directory of our own, on free (or given) ports.

    services.py start --dir var/test [--pg-port N] [--redis-port N] [--stat-statements]   → KEY=VALUE lines
    services.py stop  --dir var/test [--only postgres|redis]

PostgreSQL's initdb refuses to run as root, so as root the cluster is owned by and run as
the `postgres` system user.

--stat-statements (off by default, so `make test` and `make up` are unchanged) loads
pg_stat_statements into a cluster it starts, for benchmarks that count the statements the
server runs (bench_farm.py); a cluster already running is left as it was started.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

PG_BIN_CANDIDATES = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def pg_bin(name: str) -> str:
    for directory in PG_BIN_CANDIDATES:
        if (directory / name).exists():
            return str(directory / name)
    found = shutil.which(name)
    if not found:
        sys.exit(f"{name} not found: install postgresql (apt-get install postgresql)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def wait_port(port: int, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"{what} did not start listening on port {port}")


def start(base: Path, pg_port: int, redis_port: int, stat_statements: bool = False) -> None:
    base.mkdir(parents=True, exist_ok=True)
    pgdata = base / "pg"
    if os.geteuid() == 0:
        # postgres must be able to traverse to its data dir.
        for parent in [base, *base.parents]:
            if parent == Path("/"):
                break
            parent.chmod(parent.stat().st_mode | 0o011)
    if not (pgdata / "PG_VERSION").exists():
        pgdata.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(pgdata, "postgres", "postgres")
        subprocess.run(
            as_owner([pg_bin("initdb"), "-D", str(pgdata), "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
            check=True, stdout=subprocess.DEVNULL,
        )
    running = subprocess.run(as_owner([pg_bin("pg_ctl"), "-D", str(pgdata), "status"]), capture_output=True)
    if running.returncode != 0:
        sockdir = pgdata
        # Room for every distinct statement of a benchmark's phase: Django's savepoints are named
        # one by one, and each name is an entry of its own.
        extra = (" -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=50000"
                 if stat_statements else "")
        log = pgdata / "server.log"
        pg_started = subprocess.run(
            as_owner([
                pg_bin("pg_ctl"), "-D", str(pgdata), "-l", str(log), "-w", "start",
                "-o", f"-p {pg_port} -k {sockdir} -c listen_addresses=127.0.0.1 -c fsync=off "
                      f"-c synchronous_commit=off -c max_connections=200{extra}",
            ]),
            stdout=subprocess.DEVNULL,
        )
        if pg_started.returncode != 0:
            # pg_ctl says only "could not start server"; the reason is in the server's log.
            tail = log.read_text(errors="replace").splitlines()[-10:] if log.exists() else ["(no server log)"]
            sys.exit(f"PostgreSQL did not start on port {pg_port} (pg_ctl exit {pg_started.returncode}); "
                     f"the end of {log}:\n" + "\n".join(tail))
    else:
        pg_port = int((pgdata / "postmaster.pid").read_text().splitlines()[3])
    wait_port(pg_port, "PostgreSQL")
    psql = [pg_bin("psql"), "-h", "127.0.0.1", "-p", str(pg_port), "-U", "postgres", "-tAc"]
    exists = subprocess.run([*psql, "SELECT 1 FROM pg_roles WHERE rolname='latencylab'"],
                            capture_output=True, text=True)
    if exists.stdout.strip() != "1":
        subprocess.run([*psql, "CREATE ROLE latencylab LOGIN CREATEDB PASSWORD 'latencylab'"], check=True,
                       stdout=subprocess.DEVNULL)
    db = subprocess.run([*psql, "SELECT 1 FROM pg_database WHERE datname='latencylab'"], capture_output=True, text=True)
    if db.stdout.strip() != "1":
        subprocess.run([*psql, "CREATE DATABASE latencylab OWNER latencylab"], check=True, stdout=subprocess.DEVNULL)

    redis_dir = base / "redis"
    redis_dir.mkdir(exist_ok=True)
    pidfile = redis_dir / "redis.pid"
    if pidfile.exists() and Path(f"/proc/{pidfile.read_text().strip()}").exists():
        redis_port = int((redis_dir / "port").read_text())
    else:
        redis = shutil.which("redis-server") or sys.exit("redis-server not found: apt-get install redis-server")
        subprocess.run(
            [redis, "--port", str(redis_port), "--bind", "127.0.0.1", "--daemonize", "yes", "--dir", str(redis_dir),
             "--pidfile", str(pidfile), "--logfile", str(redis_dir / "redis.log"), "--save", "", "--appendonly", "no"],
            check=True,
        )
        (redis_dir / "port").write_text(str(redis_port))
    wait_port(redis_port, "Redis")
    print(f"LATENCYLAB_DB_HOST=127.0.0.1\nLATENCYLAB_DB_PORT={pg_port}\n"
          f"LATENCYLAB_REDIS_URL=redis://127.0.0.1:{redis_port}/0")


def stop(base: Path, only: str | None = None) -> None:
    """Both servers, or one (the fault tests stop one and `start` it again on the same port)."""
    pgdata = base / "pg"
    failure = None
    if only in (None, "postgres") and (pgdata / "postmaster.pid").exists():
        stopped = subprocess.run(as_owner([pg_bin("pg_ctl"), "-D", str(pgdata), "-m", "fast", "-w", "stop"]),
                                 capture_output=True, text=True)
        if stopped.returncode != 0:  # e.g. the postgres user can no longer reach its data directory
            failure = f"PostgreSQL in {pgdata} did not stop: {stopped.stderr.strip()}"
    # Redis is stopped even when PostgreSQL would not: exiting first left it running for good.
    pidfile = base / "redis" / "redis.pid"
    if only in (None, "redis") and pidfile.exists():
        try:
            pid = int(pidfile.read_text().strip())
            os.kill(pid, 15)
            # Gone before we return, so a `start` right after can take the same port.
            deadline = time.monotonic() + 10
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        except (ProcessLookupError, ValueError):
            pass
        pidfile.unlink(missing_ok=True)
    if failure:
        sys.exit(failure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--pg-port", type=int, default=0)
    parser.add_argument("--redis-port", type=int, default=0)
    parser.add_argument("--stat-statements", action="store_true",
                        help="load pg_stat_statements (a benchmark's statement counts); off by default")
    parser.add_argument("--only", choices=["postgres", "redis"], default=None, help="stop only this server")
    args = parser.parse_args()
    base = args.dir.resolve()
    if args.action == "start":
        start(base, args.pg_port or free_port(), args.redis_port or free_port(), args.stat_statements)
    else:
        stop(base, args.only)


if __name__ == "__main__":
    main()
