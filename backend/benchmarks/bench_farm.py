"""The scheduler's server at farm scale, measured apart from the farm that drives it.

bench_scheduler.py runs 200 real runner agents as threads on the two cores that also run the
server and PostgreSQL, so it cannot tell which one is short of CPU. Here FARM_RUNNERS (250)
simulated runners × FARM_DEVICES_PER_RUNNER (4) devices run in ONE asyncio loop (one thread of
this process; an httpx.AsyncClient per runner, as each agent has its own client: HTTP/1.1
keep-alive, at most FARM_RUNNER_CONNECTIONS connections), speaking the real
runner protocol over real HTTP to the same backend as bench_scheduler (its start_web: gunicorn
gthread, 2 workers × 128 threads, a pool of 32 database connections each) — the calls
latencylab_runner's RunnerClient makes, with its payloads: hello with the device
descriptors; a heartbeat every 10 s per runner listing the runs it holds; one lease long-poll
per runner at a time for its free devices (25 s, 5 s while a run is going, as the agent);
per block, BLOCK_S ± 25 % later, an upload of one sample per arm (contract-valid, stored);
then finish `ok`. And it reports what each side spent:

- the server: CPU time of the gunicorn master and workers (utime + stime from /proc/<pid>/stat,
  the tree found by walking /proc, reaped children's cutime + cstime included); PostgreSQL: the
  same for the postmaster and every backend of the cluster; Redis (the throttle's counters, the
  wake-ups) from INFO cpu;
- the simulator: getrusage of this process (its loop thread does all the HTTP);
- statements the database ran: pg_stat_statements `calls` on the benchmark's database (needs
  `services.py start --stat-statements`; without it the counts are left out), transaction
  control (BEGIN, COMMIT, SAVEPOINT, RELEASE, ROLLBACK) counted apart from queries; the counts
  are emptied at each phase's start, and a phase that still overflowed them is reported.

Per-operation figures by isolated rounds. The farm first does each operation alone, every
runner (or every held run) once, FARM_ROUND_CONCURRENCY (8) requests in flight and nothing
else: hello; heartbeat (no runs held); an empty lease (wait_s 0, no backlog: 204); with a
backlog queued, a lease (wait_s 0, answered with a run for each of the runner's devices);
heartbeat (4 runs held); upload of block 0; heartbeat; upload of block 1; heartbeat; finish.
A round's cost is its CPU and statements minus what the same stack spends doing nothing
(a quiet phase measured first, as a rate × the round's duration), divided by its requests.
That attribution is sound because nothing else reaches the server during a round: the
simulator sends only that round's requests (no heartbeat or long-poll loop runs yet), the
backend has no Celery worker or beat here, and this process's own database work (seeding,
queueing the backlog) happens between rounds; the web processes' wake-up listener (a query per
process every 5 s while runs are queued) is the one thing left, at most a few hundredths of a query
per request. CPU-seconds and statements are totals, not
timings, so a busy neighbour on the machine stretches a round's duration but barely changes
its CPU per request (the caches' and scheduler's share aside); statement counts do not move at
all. Heartbeats are separate rounds between the others so that no held lease (60 s) expires
and no device goes offline (30 s) meanwhile.

Then the farm runs as a farm (every loop above) on the rest of the backlog: over MEASURE_S,
after one BLOCK_S to settle, device utilisation (lease answered → finish answered, ÷ wall time,
the backlog checked non-empty at the end), lease request → answer-with-work p50/p99, the load
average, each side's CPU; and the CPU the per-operation costs predict for the operations
counted in the window beside what was measured (a lease priced per run leased, as a farm's
leases are mostly for one device; long-polls that waited priced as empty leases).

The backlog is queued in one transaction, then ANALYZEd (what autovacuum does within a minute of
so many new rows; the lease round right after would otherwise measure the look for work planned
on the empty table's statistics). Stopping the farm cancels the requests in flight: gunicorn may
log a few 400s for their cut bodies.

Prints figures; no pass/fail. Needs PostgreSQL (with --stat-statements for the counts) and
Redis (LATENCYLAB_DB_*, LATENCYLAB_REDIS_URL). Run from backend/. Sizes through the
environment: FARM_RUNNERS (250), FARM_DEVICES_PER_RUNNER (4), FARM_BLOCK_S (30),
FARM_MEASURE_S (90), FARM_RUNNER_CONNECTIONS (6: each runner's client's connections, for its
long-poll, heartbeat and its devices' uploads), FARM_ROUND_CONCURRENCY (8: a farm's requests
arrive spread out, not all at once).

The simulator's own delay is reported beside the lease latency: how late a 50 ms timer on its
loop fires (p50, p99) over the window. A loop that is late by tens of milliseconds adds that
to every latency it measures, on both the sending and the answering side.
"""

import asyncio
import logging
import os
import random
import resource
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scheduler as sched  # noqa: E402 — django.setup() and the shared backend, backlog and figures
import httpx  # noqa: E402
import psycopg  # noqa: E402
import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from scratch_database import scratch_database  # noqa: E402

from latencylab_runner import __version__ as RUNNER_VERSION  # noqa: E402
from latencylab_runner.agent.client import KEEPALIVE_EXPIRY_S  # noqa: E402
from latencylab_runner.devices.model import DeviceStatus  # noqa: E402
from testing.factories import make_sample  # noqa: E402

RUNNERS = int(os.environ.get("FARM_RUNNERS", "250"))
DEVICES_PER_RUNNER = int(os.environ.get("FARM_DEVICES_PER_RUNNER", "4"))
BLOCK_S = float(os.environ.get("FARM_BLOCK_S", "30"))
MEASURE_S = float(os.environ.get("FARM_MEASURE_S", "90"))
RUNNER_CONNECTIONS = int(os.environ.get("FARM_RUNNER_CONNECTIONS", "6"))
ROUND_CONCURRENCY = int(os.environ.get("FARM_ROUND_CONCURRENCY", "8"))
HEARTBEAT_S = 10.0
LEASE_WAIT_S = 25.0
QUIET_S = 8.0
LATENESS_TIMER_S = 0.05
CLK_TCK = os.sysconf("SC_CLK_TCK")
TRANSACTION_CONTROL = r"^\s*(begin|commit|rollback|savepoint|release|start transaction)\M"


# -- what each side spent ------------------------------------------------------------------------

def _stat(pid: int) -> tuple[int, float] | None:
    """(ppid, utime + stime + cutime + cstime in seconds) of a live process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # fields[0] is the state (stat field 3)
    return int(fields[1]), sum(int(v) for v in fields[11:15]) / CLK_TCK


def tree_cpu(root: int) -> float:
    """CPU seconds of `root` and every descendant alive now, plus the children each reaped."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))):
            stats[int(entry)] = stat
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
        todo.extend(children.get(pid, []))
    return total


@dataclass
class Snapshot:
    wall: float
    server: float
    postgres: float
    redis: float
    simulator: float
    statements: int | None
    transaction_control: int | None


class Meter:
    def __init__(self, web_pid: int) -> None:
        db = settings.DATABASES["default"]
        self.admin = psycopg.connect(host=db["HOST"], port=db["PORT"], user="postgres", dbname="postgres",
                                     autocommit=True)
        self.web_pid = web_pid
        with self.admin.cursor() as cursor:
            cursor.execute("SELECT oid FROM pg_database WHERE datname = %s", [db["NAME"]])
            self.dbid = cursor.fetchone()[0]
            # Our backend's parent is the postmaster: every backend of the cluster is its child.
            cursor.execute("SELECT pg_backend_pid()")
            stat = _stat(cursor.fetchone()[0])
            assert stat is not None
            self.postmaster = stat[0]
            cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'shared_preload_libraries' "
                           "AND setting LIKE '%pg_stat_statements%'")
            self.counting = cursor.fetchone() is not None
            if self.counting:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        self.evicted = False
        self.redis = redis.Redis.from_url(os.environ.get("LATENCYLAB_REDIS_URL", "redis://127.0.0.1:6379/0"))

    def start(self) -> Snapshot:
        """A phase's first snapshot, the statement counts emptied first: Django names each
        savepoint anew, so a long phase could otherwise fill pg_stat_statements and have
        entries evicted (counted lost). `evicted` says whether that happened anyway."""
        if self.counting:
            with self.admin.cursor() as cursor:
                cursor.execute("SELECT pg_stat_statements_reset()")
        return self.snapshot()

    def snapshot(self) -> Snapshot:
        statements = control = None
        if self.counting:
            with self.admin.cursor() as cursor:
                # Only the benchmark's database: this connection's own statements are not in it.
                cursor.execute("SELECT coalesce(sum(calls), 0), coalesce(sum(calls) FILTER (WHERE query ~* %s), 0) "
                               "FROM pg_stat_statements WHERE dbid = %s", [TRANSACTION_CONTROL, self.dbid])
                statements, control = (int(v) for v in cursor.fetchone())
                cursor.execute("SELECT dealloc FROM pg_stat_statements_info")
                if cursor.fetchone()[0]:
                    self.evicted = True
        info = self.redis.info("cpu")
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return Snapshot(wall=time.monotonic(), server=tree_cpu(self.web_pid), postgres=tree_cpu(self.postmaster),
                        redis=float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
                        simulator=usage.ru_utime + usage.ru_stime, statements=statements,
                        transaction_control=control)


@dataclass
class Spent:
    """What a phase cost: seconds of wall time and of each side's CPU, statements."""

    wall: float
    server: float
    postgres: float
    redis: float
    simulator: float
    statements: float | None
    transaction_control: float | None

    @classmethod
    def between(cls, a: Snapshot, b: Snapshot) -> "Spent":
        def d(name: str) -> Any:
            x, y = getattr(a, name), getattr(b, name)
            return None if x is None or y is None else y - x

        return cls(**{name: d(name) for name in cls.__dataclass_fields__})

    def minus_rate(self, quiet: "Spent") -> "Spent":
        """Less what the quiet stack spends in as long (the simulator is not charged)."""
        scale = self.wall / quiet.wall

        def d(name: str) -> Any:
            x, q = getattr(self, name), getattr(quiet, name)
            return None if x is None or q is None else x - q * scale

        return Spent(wall=self.wall, server=d("server"), postgres=d("postgres"), redis=d("redis"),
                     simulator=self.simulator, statements=d("statements"),
                     transaction_control=d("transaction_control"))


# -- the farm ------------------------------------------------------------------------------------

class LeaseLost(RuntimeError):
    """409: the run's lease is gone (expired, or the run requeued)."""


@dataclass
class SimRunner:
    name: str
    token: str
    serials: list[str]
    held: dict[str, dict[str, Any]] = field(default_factory=dict)  # device serial → its lease
    since: dict[str, float] = field(default_factory=dict)  # device serial → its lease answered (farm mode)
    changed: asyncio.Event | None = None
    client: httpx.AsyncClient | None = None  # its own, as each agent has (RunnerClient)

    def descriptors(self) -> list[dict[str, Any]]:
        out = []
        for serial in self.serials:
            descriptor = DeviceStatus(serial=serial, platform="host", model="simulated", os_version="1").descriptor()
            if serial in self.held:
                descriptor["state"], descriptor["reason"] = "busy", None
            out.append(descriptor)
        return out

    def runs(self) -> list[dict[str, str]]:
        return [{"run_id": lease["run_id"], "lease_token": lease["lease_token"]} for lease in self.held.values()]


class Farm:
    """Every simulated runner, on one event loop (in a thread of its own, so that this
    process's main thread can use Django — synchronous only — between rounds)."""

    def __init__(self, url: str, runners: list[SimRunner]) -> None:
        self.url = url
        self.runners = runners
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="farm", daemon=True)
        self.thread.start()
        self.requests: Counter[str] = Counter()
        self.retried: Counter[str] = Counter()
        self.answered: list[tuple[str, float]] = []  # (operation, time answered) in farm mode
        self.leases: list[tuple[float, float, int]] = []  # (sent, answered, runs) in farm mode
        self.busy: dict[str, list[tuple[float, float]]] = {}
        self.lost: list[float] = []  # runs abandoned (lease lost), when
        self.failed: list[str] = []  # runs abandoned for another error: the error
        self.heartbeats_failed = 0  # answered cancel_run for a run still held, or never answered
        self.farming = False
        self.lateness: list[tuple[float, float]] = []  # (when, how late a 50 ms timer fired) in farm mode
        self.tasks: set[asyncio.Task] = set()
        self.rng = random.Random(1)  # noqa: S311 — simulated durations, not a secret
        self.call(self._open())

    async def _open(self) -> None:
        base = self.url + "/api/runner/v1"
        headers = {"User-Agent": f"latencylab-runner/{RUNNER_VERSION}"}
        # A client per runner, as each agent has one: a pool shared by the whole farm is what
        # the simulator measured of itself before — httpcore walks every connection of a pool
        # (a readability check of each idle one) whenever a request joins or leaves it, so one
        # pool of hundreds of connections held its requests back for a quarter of a second at
        # the median before they were sent. One TLS context for all (plain HTTP: never used).
        tls = ssl.create_default_context()
        limits = httpx.Limits(max_connections=RUNNER_CONNECTIONS, max_keepalive_connections=RUNNER_CONNECTIONS,
                              keepalive_expiry=KEEPALIVE_EXPIRY_S)  # as the agent's client
        for runner in self.runners:
            runner.changed = asyncio.Event()
            runner.client = httpx.AsyncClient(
                base_url=base, headers={**headers, "Authorization": f"Runner {runner.token}"},
                timeout=LEASE_WAIT_S + 30, limits=limits, verify=tls)

    def call(self, coroutine: Awaitable[Any]) -> Any:
        """Run `coroutine` on the farm's loop; its result."""
        future: Future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)  # type: ignore[arg-type]
        return future.result()

    async def post(self, kind: str, runner: SimRunner, path: str, body: dict[str, Any]) -> httpx.Response:
        """One protocol call, asked again (as the agent's retry policy would) on 429, 5xx or
        no answer; any other 4xx is a bug here and raised."""
        for attempt in range(8):
            self.requests[kind] += 1
            try:
                assert runner.client is not None
                response = await runner.client.post(path, json=body)
            except httpx.TransportError:
                response = None
            if response is not None and (response.status_code < 400 or response.status_code == 409):
                if self.farming:
                    self.answered.append((kind, time.monotonic()))
                return response
            if response is not None and response.status_code < 500 and response.status_code != 429:
                raise RuntimeError(f"{path}: HTTP {response.status_code}: {response.text[:500]}")
            self.retried[kind] += 1
            await asyncio.sleep(min(8.0, 0.5 * 2 ** attempt))
        raise RuntimeError(f"{path}: no answer after 8 tries")

    # The protocol's calls, as RunnerClient makes them.
    async def hello(self, runner: SimRunner) -> None:
        await self.post("hello", runner, "/hello", {
            "runner": {"name": runner.name, "version": RUNNER_VERSION, "drivers": ["host"], "hostname": "farm"},
            "devices": runner.descriptors()})

    async def heartbeat(self, runner: SimRunner) -> None:
        answer = (await self.post("heartbeat", runner, "/heartbeat",
                                  {"devices": runner.descriptors(), "runs": runner.runs()})).json()
        # A run finished while this heartbeat was on its way is answered cancel_run: the agent
        # ignores that for a run it no longer holds, and so does the farm.
        held = {lease["run_id"] for lease in runner.held.values()}
        lost = [c["run_id"] for c in answer.get("commands", [])
                if c.get("type") == "cancel_run" and c["run_id"] in held]
        if lost:
            raise RuntimeError(f"{runner.name}: leases lost {lost}")

    async def lease(self, runner: SimRunner, wait_s: float, *, kind: str = "lease") -> list[dict[str, Any]]:
        free = [serial for serial in runner.serials if serial not in runner.held]
        sent = time.monotonic()
        response = await self.post(kind, runner, "/lease", {"devices": free, "wait_s": wait_s})
        runs = [] if response.status_code == 204 else response.json()["runs"]
        answered = time.monotonic()
        for run in runs:
            runner.held[run["device_serial"]] = run
            runner.since[run["device_serial"]] = answered
        if self.farming:
            self.leases.append((sent, answered, len(runs)))
        return runs

    async def upload(self, runner: SimRunner, lease: dict[str, Any], block: int) -> None:
        arms = [arm["label"] for arm in lease["spec"]["arms"]]
        response = await self.post("upload", runner, f"/runs/{lease['run_id']}/samples", {
            "lease_token": lease["lease_token"], "attempt": lease["attempt"], "batch_seq": block, "block": block,
            "baseline": None, "samples": [make_sample(arm, block, seq) for seq, arm in enumerate(arms)]})
        if response.status_code == 409:
            raise LeaseLost(f"run {lease['run_id']}: lease lost at upload")

    async def finish(self, runner: SimRunner, lease: dict[str, Any]) -> None:
        response = await self.post("finish", runner, f"/runs/{lease['run_id']}/finish",
                                   {"lease_token": lease["lease_token"], "status": "ok"})
        if response.status_code == 409:
            raise LeaseLost(f"run {lease['run_id']}: lease lost at finish")
        runner.held.pop(lease["device_serial"], None)

    # -- rounds: one operation, every runner or held run once, nothing else in flight ----------
    def round(self, make: Callable[[SimRunner], list[Awaitable[None]]]) -> int:
        async def everything() -> int:
            coroutines = [c for runner in self.runners for c in make(runner)]
            # ROUND_CONCURRENCY in flight: a farm's requests arrive spread out, not 64 at once.
            gate = asyncio.Semaphore(ROUND_CONCURRENCY)

            async def gated(coroutine: Awaitable[None]) -> None:
                async with gate:
                    await coroutine

            await asyncio.gather(*(gated(c) for c in coroutines))
            return len(coroutines)

        return int(self.call(everything()))

    # -- farm mode: every runner as an agent ---------------------------------------------------
    def start_farming(self) -> None:
        async def start() -> None:
            self.farming = True
            lateness = asyncio.create_task(self._lateness())
            self.tasks.add(lateness)
            lateness.add_done_callback(self._ended)
            for runner in self.runners:
                for loop in (self._heartbeats(runner), self._leasing(runner)):
                    task = asyncio.create_task(loop)
                    self.tasks.add(task)
                    task.add_done_callback(self._ended)

        self.call(start())

    def _ended(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            print(f"  a simulated runner task failed: {task.exception()!r}", file=sys.stderr)

    async def _lateness(self) -> None:
        """How late the loop runs a 50 ms timer: what the simulator adds to what it measures."""
        while self.farming:
            asked = time.monotonic()
            await asyncio.sleep(LATENESS_TIMER_S)
            fired = time.monotonic()
            self.lateness.append((fired, fired - asked - LATENESS_TIMER_S))

    async def _heartbeats(self, runner: SimRunner) -> None:
        await asyncio.sleep(self.rng.uniform(0, HEARTBEAT_S))  # runners start at different times
        while self.farming:
            try:
                await self.heartbeat(runner)
            except RuntimeError:  # a missed heartbeat is retried next interval, as the agent does
                self.heartbeats_failed += 1
            await asyncio.sleep(HEARTBEAT_S)

    async def _leasing(self, runner: SimRunner) -> None:
        assert runner.changed is not None
        while self.farming:
            if len(runner.held) == len(runner.serials):
                runner.changed.clear()
                waiter = asyncio.ensure_future(runner.changed.wait())
                # Not wait_for: on Python 3.11 it can swallow the task's cancellation.
                await asyncio.wait({waiter}, timeout=1.0)
                waiter.cancel()
                continue
            # Short polls while runs are going, so a device that frees up is leased soon (the agent's rule).
            wait = LEASE_WAIT_S if not runner.held else min(LEASE_WAIT_S, 5.0)
            for run in await self.lease(runner, wait):
                task = asyncio.create_task(self._run(runner, run))
                self.tasks.add(task)
                task.add_done_callback(self._ended)

    async def _run(self, runner: SimRunner, lease: dict[str, Any]) -> None:
        leased = runner.since[lease["device_serial"]]
        assert runner.changed is not None
        try:
            for block in range(lease["next_block"], lease["spec"]["blocks"]):
                # Blocks vary in length, as real ones do (bench_scheduler's reason: equal ones keep the farm in step).
                await asyncio.sleep(BLOCK_S * self.rng.uniform(0.75, 1.25))
                await self.upload(runner, lease, block)
            await self.finish(runner, lease)
        except RuntimeError as exc:
            # The lease expired (a heartbeat too late) or the backend refused or gave up answering:
            # the agent abandons the run, frees the device and leases again; the backend requeues it.
            if isinstance(exc, LeaseLost):
                self.lost.append(time.monotonic())
            else:
                self.failed.append(str(exc))
            runner.held.pop(lease["device_serial"], None)
        finally:
            self.busy.setdefault(lease["device_serial"], []).append((leased, time.monotonic()))
            runner.changed.set()

    def busy_until(self, now: float) -> dict[str, list[tuple[float, float]]]:
        """Every device's busy intervals, the runs still going counted up to `now`."""
        async def collect() -> dict[str, list[tuple[float, float]]]:
            busy = {serial: list(intervals) for serial, intervals in self.busy.items()}
            for runner in self.runners:
                for serial in runner.held:
                    busy.setdefault(serial, []).append((runner.since.get(serial, now), now))
            return busy

        return dict(self.call(collect()))

    def stop(self) -> None:
        async def stop() -> None:
            self.farming = False
            tasks = list(self.tasks)
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=10)
            for runner in self.runners:
                if runner.client is not None:
                    await runner.client.aclose()

        try:
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(timeout=30)
        except Exception as exc:  # noqa: BLE001 — the figures are taken; do not hang on the way out
            print(f"  stopping the farm: {exc!r}", file=sys.stderr)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


# -- the benchmark -------------------------------------------------------------------------------

def main() -> None:
    for noisy in ("httpx", "latencylab_runner"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    with scratch_database():
        run_benchmark()


def per_op(spent: Spent, n: int) -> str:
    server = (spent.server + spent.postgres + spent.redis) / n * 1000
    text = (f"server {server:.2f} CPU-ms (gunicorn {spent.server / n * 1000:.2f}, PostgreSQL "
            f"{spent.postgres / n * 1000:.2f}, Redis {spent.redis / n * 1000:.2f}), simulator "
            f"{spent.simulator / n * 1000:.2f}")
    if spent.statements is not None and spent.transaction_control is not None:
        queries = (spent.statements - spent.transaction_control) / n
        text += f"; {queries:.1f} queries + {spent.transaction_control / n:.1f} BEGIN/COMMIT/SAVEPOINT"
    return text


def run_benchmark() -> None:
    from apps.accounts.services import organization_get_or_create
    from apps.devices.services import pool_get_or_create, runner_register

    org = organization_get_or_create(slug="bench", name="Bench")
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runners = [SimRunner(name=f"r{n:03d}", token=runner_register(pool=pool, name=f"r{n:03d}")[1],
                         serials=[f"r{n:03d}-d{i}" for i in range(DEVICES_PER_RUNNER)]) for n in range(RUNNERS)]
    devices = [serial for r in runners for serial in r.serials]
    web, url = sched.start_web()
    farm: Farm | None = None
    try:
        meter = Meter(web.pid)
        farm = Farm(url, runners)
        print(f"{RUNNERS} simulated runners × {DEVICES_PER_RUNNER} devices = {len(devices)} (blocks of {BLOCK_S:g} s, "
              f"{sched.BLOCKS} per run), one asyncio loop, a client per runner (at most {RUNNER_CONNECTIONS} "
              f"connections each); backend: gunicorn {sched.WEB_WORKERS} workers × {sched.WEB_THREADS} threads, "
              f"a pool of {sched.WEB_POOL} database connections each; "
              f"PostgreSQL at {settings.DATABASES['default']['PORT']}"
              + ("" if meter.counting else " (no pg_stat_statements: statement counts left out; start the services "
                                           "with --stat-statements)"))

        def measured(what: str, make: Callable[[SimRunner], list[Awaitable[None]]]) -> tuple[Spent, int]:
            a = meter.start()
            n = farm.round(make)
            spent = Spent.between(a, meter.snapshot())
            rounds.append((what, spent, n))
            return spent, n

        rounds: list[tuple[str, Spent, int]] = []
        time.sleep(2.0)  # gunicorn's workers settle after /healthz
        a = meter.start()
        time.sleep(QUIET_S)
        quiet = Spent.between(a, meter.snapshot())
        measured("hello", lambda r: [farm.hello(r)])
        measured("heartbeat, no run held", lambda r: [farm.heartbeat(r)])
        measured("lease, no work (wait_s 0: 204)", lambda r: [farm.lease(r, 0, kind="lease")])
        runs_per_device = MEASURE_S / (sched.BLOCKS * BLOCK_S) + 3 + 1  # + 1: the rounds' own
        backlog = sched.queue_backlog(org, int(len(devices) * runs_per_device))
        # What autovacuum does within a minute of thousands of new rows: without it the lease
        # round would measure the look for work planned on the empty table's statistics.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        time.sleep(1.0)
        measured("heartbeat, no run held", lambda r: [farm.heartbeat(r)])
        spent, n = measured("lease with work (wait_s 0)", lambda r: [farm.lease(r, 0, kind="lease")])
        leased = sum(len(r.held) for r in runners)
        lease_round = (spent, n)
        measured(f"heartbeat, {DEVICES_PER_RUNNER} runs held", lambda r: [farm.heartbeat(r)])
        for block in range(sched.BLOCKS):
            measured(f"upload (block {block}, one sample per arm)",
                     lambda r, b=block: [farm.upload(r, lease, b) for lease in r.held.values()])
            measured(f"heartbeat, {DEVICES_PER_RUNNER} runs held", lambda r: [farm.heartbeat(r)])
        measured("finish ok", lambda r: [farm.finish(r, lease) for lease in list(r.held.values())])
        print(f"  quiet stack ({quiet.wall:.0f} s, nothing sent): gunicorn {quiet.server / quiet.wall * 1000:.1f}, "
              f"PostgreSQL {quiet.postgres / quiet.wall * 1000:.1f}, Redis {quiet.redis / quiet.wall * 1000:.1f} "
              f"CPU-ms/s" + (f", {quiet.statements / quiet.wall:.2f} statements/s"
                             if quiet.statements is not None else "") + "; subtracted from each round below")
        print(f"  per operation, each alone (every runner or held run once, {ROUND_CONCURRENCY} in flight; "
              f"{leased} runs leased by {lease_round[1]} lease requests):")
        costs: dict[str, list[float]] = {}
        for what, spent, n in rounds:
            net = spent.minus_rate(quiet)
            print(f"    {what}: {n} requests in {spent.wall:.1f} s ({n / spent.wall:.0f}/s): {per_op(net, n)}")
            key = what.split(",")[0].split(" (")[0]
            costs.setdefault(key, []).append((net.server + net.postgres + net.redis) / n)
        if meter.evicted:
            print("    pg_stat_statements evicted entries: the statement counts above are low")
        if leased:
            print(f"    (lease with work per run leased: {per_op(lease_round[0].minus_rate(quiet), leased)})")
        unit = {key: statistics.fmean(values) for key, values in costs.items()}
        net = lease_round[0].minus_rate(quiet)
        per_run_leased = (net.server + net.postgres + net.redis) / max(1, leased)

        # The farm as a farm.
        start = time.monotonic()
        farm.start_farming()
        window_start = start + BLOCK_S
        time.sleep(BLOCK_S)
        a = meter.start()
        load_start = os.getloadavg()
        time.sleep(MEASURE_S)
        b = meter.snapshot()
        window_end = time.monotonic()
        busy = farm.busy_until(window_end)
        left = sched.queued_runs()
        load = sched.load()
        window = Spent.between(a, b)
    finally:
        if farm is not None:
            farm.stop()
        web.send_signal(signal.SIGTERM)
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            web.kill()

    counted = Counter(kind for kind, at in farm.answered if window_start <= at <= window_end)
    with_work = [(answered - sent) * 1000 for sent, answered, n in farm.leases
                 if n and window_start <= answered <= window_end]
    empty = sum(1 for sent, answered, n in farm.leases if not n and window_start <= answered <= window_end)
    runs_leased = sum(n for sent, answered, n in farm.leases if n and window_start <= answered <= window_end)
    shares = sched.utilisation(busy, devices, window_start, window_end)
    mean_share = statistics.fmean(shares)
    server = window.server + window.postgres + window.redis
    print(f"  farm ({window.wall:.0f} s window after {BLOCK_S:g} s to settle, backlog {backlog} runs, {left} still "
          f"queued at its end{'' if left else ': it ran out, utilisation understated'}): "
          f"{counted['heartbeat']} heartbeats, {len(with_work)} leases with work ({runs_leased} runs) and {empty} "
          f"empty long-polls, "
          f"{counted['upload']} uploads, {counted['finish']} finishes answered")
    print(f"    CPU over the window: server {server:.1f} s = {server / window.wall:.0%} of a core (gunicorn "
          f"{window.server:.1f}, PostgreSQL {window.postgres:.1f}, Redis {window.redis:.1f}); simulator "
          f"{window.simulator:.1f} s = {window.simulator / window.wall:.0%} of a core"
          + (f"; {window.statements / window.wall:.0f} statements/s" if window.statements is not None else ""))
    # A lease in the farm is mostly for one device: priced per run leased, not per request.
    predicted = (counted["heartbeat"] * unit["heartbeat"] + runs_leased * per_run_leased
                 + empty * unit["lease"] + counted["upload"] * unit["upload"] + counted["finish"] * unit["finish ok"]
                 + (quiet.server + quiet.postgres + quiet.redis) * window.wall / quiet.wall)
    print(f"    the per-operation costs predict {predicted:.1f} CPU-s for these operations (+ the quiet rate), "
          f"measured {server:.1f} CPU-s")
    if with_work:
        print(f"    leases with work: request → answer p50 {statistics.median(with_work):.0f} ms, "
              f"p99 {sched.percentile(with_work, 0.99):.0f} ms")
    late = [lag * 1000 for at, lag in farm.lateness if window_start <= at <= window_end]
    if late:
        print(f"    the simulator's own delay (a {LATENESS_TIMER_S * 1000:.0f} ms timer on its loop fired late by): "
              f"p50 {statistics.median(late):.1f} ms, p99 {sched.percentile(late, 0.99):.1f} ms")
    print(f"    device utilisation: mean {mean_share:.1%}, lowest {min(shares):.1%}, "
          f"p5 {sched.percentile(shares, 0.05):.1%} over {len(shares)} devices")
    lost = sum(1 for at in farm.lost if window_start <= at <= window_end)
    if farm.lost:
        print(f"    runs abandoned, their lease lost (a heartbeat or upload answered too late): {lost} in the window, "
              f"{len(farm.lost)} in all (held until then: counted as busy)")
    if farm.failed:
        print(f"    runs abandoned for another error: {len(farm.failed)}, the first: {farm.failed[0][:300]}")
    if farm.heartbeats_failed:
        print(f"    heartbeats that found a held lease gone or got no answer: {farm.heartbeats_failed}")
    retried = ", ".join(f"{kind} {n}" for kind, n in farm.retried.items()) or "none"
    print(f"    requests asked again (429, 5xx, no answer): {retried}; "
          f"load average at the window's start {load_start[0]:.1f}, at its end: {load}")


if __name__ == "__main__":
    main()
