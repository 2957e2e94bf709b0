"""The scheduler at farm scale (the target, docs/operations.md: 200 simulated runners × 4
devices, lease p99 < 100 ms, device utilisation ≥ 95 % while a backlog exists; the issue
also asks what the idle farm costs the database).

One backend as it runs in production: gunicorn (gthread) serving the runner protocol over HTTP
on loopback, on this benchmark's PostgreSQL and Redis. RUNNERS runner agents run in this
process, each the real `latencylab_runner.agent.Agent` with its HTTP client (hello, a heartbeat
every 10 s, long-polls for its free devices, one thread per leased run), driving DEVICES_PER_RUNNER
simulated devices: a leased run "runs" each block by sleeping BLOCK_S ± 25 %, uploads a few samples for
it (a real upload, stored), and finishes `ok`.

Measured, in this order:
- idle: every runner waiting in a 25 s long-poll (heartbeats going), no work: PostgreSQL
  transactions per second (pg_stat_database xact_commit + xact_rollback) and the database
  connections open, over IDLE_S;
- wake: a backlog queued in one commit (more runs than the farm can run within the window); the
  time from that commit to each waiting runner's lease answer;
- busy: over the next MEASURE_S (after one BLOCK_S for the first runs to settle), every lease
  answered with work: request → response p50/p99; and each device's utilisation: time holding a
  run (lease answer received → finish answered) ÷ wall time, the backlog never empty meanwhile
  (checked and printed).

Everything shares the machine: the load average is printed beside the figures. Prints figures
and whether each target was met; no pass/fail. Needs PostgreSQL and Redis (LATENCYLAB_DB_*,
LATENCYLAB_REDIS_URL; `make bench` starts them). Run from backend/. Sizes through the
environment: SCHEDULER_RUNNERS (200), SCHEDULER_BLOCK_S (30), SCHEDULER_MEASURE_S (90).

Through HTTP rather than calling the lease service: the issue is what a farm costs the real
backend (its threads, connections and heartbeats). On 2 vCPUs shared with the agents the farm
is CPU-bound well before the scheduler is (docs/operations.md, Sizing): compare the figures
with SCHEDULER_RUNNERS=50 run beside them.
"""

import logging
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from scratch_database import scratch_database  # noqa: E402

from latencylab_runner.agent.agent import Agent  # noqa: E402
from latencylab_runner.agent.client import RunnerClient  # noqa: E402
from latencylab_runner.devices.model import DeviceStatus  # noqa: E402
from testing.factories import make_sample  # noqa: E402

RUNNERS = int(os.environ.get("SCHEDULER_RUNNERS", "200"))
DEVICES_PER_RUNNER = 4
BLOCKS = 2
BLOCK_S = float(os.environ.get("SCHEDULER_BLOCK_S", "30"))
MEASURE_S = float(os.environ.get("SCHEDULER_MEASURE_S", "90"))
IDLE_S = 20.0
LEASE_WAIT_S = 25
# One backend: two worker processes (the production image's), with threads enough for every
# runner's long-poll at once; a waiting poll holds a thread but no database connection.
WEB_WORKERS, WEB_THREADS, WEB_POOL = 2, 128, 32
PROFILES = ["none", "cable", "dsl", "3g", "3g-fast", "4g", "lte", "edge-lossy", "2g-rural", "qir-default"]
SLOTS_PER_COMPARISON = 20
BACKEND = Path(__file__).resolve().parents[1]


def main() -> None:
    for noisy in ("httpx", "latencylab_runner"):  # a line per request and per run otherwise
        logging.getLogger(noisy).setLevel(logging.WARNING)
    with scratch_database():
        run_benchmark()


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def transactions() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def database_connections() -> str:
    """Sessions on the benchmark's database besides this process's own: open, and of those
    in use (not idle: a pool keeps idle ones open)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE state <> 'idle') FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        opened, in_use = cursor.fetchone()
    return f"{opened} database connections open, {in_use} in use"


def queued_runs() -> int:
    from apps.comparisons.models import Run

    return Run.objects.filter(status=Run.Status.QUEUED).count()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Recorder:
    """Every lease call (sent, answered, runs) and every device's busy intervals, in
    time.monotonic() seconds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.leases: list[tuple[float, float, int]] = []
        self.holding: dict[str, tuple[str, float]] = {}  # run id → device, lease answered; until finished
        self.busy: dict[str, list[tuple[float, float]]] = {}
        self.heartbeats: list[float] = []

    def lease(self, sent: float, answered: float, runs: list[dict[str, Any]]) -> None:
        with self.lock:
            self.leases.append((sent, answered, len(runs)))
            for run in runs:
                self.holding[run["run_id"]] = (run["device_serial"], answered)

    def heartbeat(self, answered: float) -> None:
        with self.lock:
            self.heartbeats.append(answered)

    def ran(self, run_id: str, finished: float) -> None:
        with self.lock:
            serial, leased = self.holding.pop(run_id)
            self.busy.setdefault(serial, []).append((leased, finished))

    def busy_until(self, now: float) -> dict[str, list[tuple[float, float]]]:
        """Every device's busy intervals, the runs still going counted up to `now`."""
        with self.lock:
            busy = {serial: list(intervals) for serial, intervals in self.busy.items()}
            for serial, leased in self.holding.values():
                busy.setdefault(serial, []).append((leased, now))
        return busy


class TimedClient(RunnerClient):
    def __init__(self, *args: Any, recorder: Recorder, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorder = recorder

    def lease(self, serials: list[str], wait_s: float) -> list[dict[str, Any]]:
        sent = time.monotonic()
        runs = super().lease(serials, wait_s)
        self.recorder.lease(sent, time.monotonic(), runs)
        return runs

    def heartbeat(self, devices: list[dict[str, Any]], runs: list[dict[str, str]]) -> dict[str, Any]:
        answer = super().heartbeat(devices, runs)
        self.recorder.heartbeat(time.monotonic())
        return answer


class SimulatedDevices:
    """A runner host's devices, as a driver: each block of a leased run is BLOCK_S of sleep,
    then a real upload of one sample per arm; then `ok`."""

    name = "host"

    def __init__(self, serials: list[str], recorder: Recorder) -> None:
        self.serials = serials
        self.recorder = recorder
        self.jitter = random.Random(serials[0])  # noqa: S311 — simulated durations, not a secret

    def discover(self, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]:
        return [DeviceStatus(serial=serial, platform="host", model="simulated", os_version="1")
                for serial in self.serials]

    def execute(self, lease: dict[str, Any], client: Any, cancelled: threading.Event) -> None:
        run_id, token, attempt = lease["run_id"], lease["lease_token"], lease["attempt"]
        arms = [arm["label"] for arm in lease["spec"]["arms"]]
        for block in range(lease["next_block"], lease["spec"]["blocks"]):
            # Blocks vary in length, as real ones do; equal ones would keep the whole farm in step
            # (every upload and every lease at the same instant, forever).
            if cancelled.wait(BLOCK_S * self.jitter.uniform(0.75, 1.25)):
                return
            client.upload_block(run_id, {"lease_token": token, "attempt": attempt, "batch_seq": block, "block": block,
                                         "baseline": None, "samples": [make_sample(arm, block, seq)
                                                                       for seq, arm in enumerate(arms)]})
        client.finish(run_id, {"lease_token": token, "status": "ok"})
        self.recorder.ran(run_id, time.monotonic())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_web() -> tuple[subprocess.Popen, str]:
    db = settings.DATABASES["default"]
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base", "LATENCYLAB_DB_NAME": str(db["NAME"]),
           "LATENCYLAB_DB_HOST": str(db["HOST"]), "LATENCYLAB_DB_PORT": str(db["PORT"]),
           "LATENCYLAB_LOG_LEVEL": "WARNING",
           # 256 threads keeping a connection each would pass max_connections: a pool per process.
           "LATENCYLAB_DB_POOL_MAX_SIZE": str(WEB_POOL)}
    web = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--worker-class", "gthread", "--workers", str(WEB_WORKERS), "--threads", str(WEB_THREADS),
         "--timeout", "90", "--graceful-timeout", "5", "--log-level", "warning"],
        cwd=BACKEND, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return web, url
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    web.kill()
    raise RuntimeError("the web server did not answer /healthz")


def queue_backlog(org: Any, runs: int) -> int:
    """Comparisons of PROFILES × SLOTS_PER_COMPARISON runs, planned in one transaction: one
    notification per pool."""
    from django.db import transaction

    from apps.comparisons.services import comparison_create, comparison_plan

    per_comparison = len(PROFILES) * SLOTS_PER_COMPARISON
    comparisons = [comparison_create(organization=org, submitted_spec={
        "name": f"backlog {n}", "preset": "mid-image-series", "network_profiles": PROFILES, "seed": n,
        "devices": {"pool": "local", "platforms": ["host"], "count": SLOTS_PER_COMPARISON},
        "workload": {"kind": "series", "periods": [3], "repetitions": BLOCKS, "concurrency": "sequential"},
        "blocks": BLOCKS}) for n in range(-(-runs // per_comparison))]
    with transaction.atomic():
        for comparison in comparisons:
            comparison_plan(comparison_id=str(comparison.pk))
    return len(comparisons) * per_comparison


def utilisation(busy: dict[str, list[tuple[float, float]]], devices: list[str], start: float,
                end: float) -> list[float]:
    """Per device: the share of [start, end] it held a run (intervals clipped to the window)."""
    shares = []
    for serial in devices:
        held = sum(max(0.0, min(b, end) - max(a, start)) for a, b in busy.get(serial, []))
        shares.append(held / (end - start))
    return shares


def run_benchmark() -> None:
    from apps.accounts.services import organization_get_or_create
    from apps.devices.services import pool_get_or_create, runner_register

    org = organization_get_or_create(slug="bench", name="Bench")
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    tokens = [runner_register(pool=pool, name=f"r{n:03d}")[1] for n in range(RUNNERS)]
    web, url = start_web()
    recorder = Recorder()
    agents: list[Agent] = []
    try:
        for n, token in enumerate(tokens):
            serials = [f"r{n:03d}-d{i}" for i in range(DEVICES_PER_RUNNER)]
            client = TimedClient(url, token, recorder=recorder, retry_budget_s=60, timeout_s=LEASE_WAIT_S + 30)
            agents.append(Agent(client, name=f"r{n:03d}", drivers=[SimulatedDevices(serials, recorder)],
                                lease_wait_s=LEASE_WAIT_S))
        for agent in agents:
            threading.Thread(target=agent.run_forever, daemon=True).start()
        devices = [f"r{n:03d}-d{i}" for n in range(RUNNERS) for i in range(DEVICES_PER_RUNNER)]
        print(f"{RUNNERS} runner agents × {DEVICES_PER_RUNNER} simulated devices (blocks of {BLOCK_S:g} s, "
              f"{BLOCKS} per run) against one backend over HTTP: gunicorn {WEB_WORKERS} workers × {WEB_THREADS} "
              f"threads, a pool of {WEB_POOL} database connections each; "
              f"PostgreSQL at {settings.DATABASES['default']['PORT']}")

        # Idle: every runner in a long-poll.
        time.sleep(LEASE_WAIT_S / 2)
        time.sleep(1.0)  # pg_stat_database lags ~0.5 s
        before, started = transactions(), time.monotonic()
        time.sleep(IDLE_S)
        idle_end = time.monotonic()
        idle_rate = (transactions() - before) / (idle_end - started)
        idle_connections = database_connections()
        idle_load = load()

        # Busy: a backlog larger than the farm can run within the window.
        runs_per_device = MEASURE_S / (BLOCKS * BLOCK_S) + 3
        queued_at = time.monotonic()
        backlog = queue_backlog(org, int(len(devices) * runs_per_device))
        committed = time.monotonic()
        window_start = committed + BLOCK_S
        time.sleep(BLOCK_S + MEASURE_S / 2)
        busy_connections = database_connections()
        time.sleep(MEASURE_S / 2)
        window_end = time.monotonic()
        busy = recorder.busy_until(window_end)
        left = queued_runs()
        busy_load = load()
    finally:
        for agent in agents:
            agent.stopping.set()
            for cancelled in list(agent._cancel.values()):  # noqa: SLF001 — end the simulated runs now
                cancelled.set()
        web.send_signal(signal.SIGTERM)
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            web.kill()

    with recorder.lock:
        leases, heartbeats = list(recorder.leases), list(recorder.heartbeats)
    idle_requests = (f"{sum(started <= answered <= idle_end for _, answered, _ in leases) / IDLE_S:.1f} long-polls "
                     f"and {sum(started <= answered <= idle_end for answered in heartbeats) / IDLE_S:.1f} heartbeats "
                     f"answered a second")
    woken = [answered - committed for sent, answered, runs in leases if runs and sent < queued_at]
    answered = [(answered - sent) * 1000 for sent, answered, runs in leases
                if runs and sent >= committed and window_start <= answered <= window_end]
    shares = utilisation(busy, devices, window_start, window_end)
    mean_share = statistics.fmean(shares)

    print(f"  idle ({IDLE_S:g} s, every runner waiting, heartbeats every 10 s): {idle_rate:.1f} PostgreSQL "
          f"transactions/s for {idle_requests}; {idle_connections} ({idle_load})")
    print(f"  backlog: {backlog} runs queued in one commit; {len(woken)} waiting runners woken with work, "
          f"commit → lease answer p50 {statistics.median(woken) * 1000:.0f} ms, "
          f"p99 {percentile(woken, 0.99) * 1000:.0f} ms" if woken else "  no waiting runner was woken with work")
    if answered:
        p50, p99 = statistics.median(answered), percentile(answered, 0.99)
        print(f"  busy ({window_end - window_start:.0f} s window, {left} runs still queued at its end): "
              f"{len(answered)} leases with work, request → answer p50 {p50:.0f} ms, p99 {p99:.0f} ms; "
              f"{busy_connections} ({busy_load})")
        print(f"  device utilisation: mean {mean_share:.1%}, lowest {min(shares):.1%}, "
              f"p5 {percentile(shares, 0.05):.1%} over {len(shares)} devices")
        verdict = [f"lease p99 {'<' if p99 < 100 else '≥'} 100 ms ({'met' if p99 < 100 else 'NOT met'})",
                   f"utilisation {mean_share:.1%} {'≥' if mean_share >= 0.95 else '<'} 95 % "
                   f"({'met' if mean_share >= 0.95 else 'NOT met'})"]
        if not left:
            verdict.append("the backlog ran out inside the window: utilisation understated")
        print("  targets: " + "; ".join(verdict))
    else:
        print("  no lease with work was answered inside the window")


if __name__ == "__main__":
    main()
