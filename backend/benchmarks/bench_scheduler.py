"""The lease long-poll at farm scale: what a farm of waiting runners costs PostgreSQL when
idle, and how fast they get work when a comparison is queued, woken by LISTEN/NOTIFY
(apps.comparisons.wakeups) vs the peer, polling every 0.5 s (the design before it, the same
code with LEASE_RECHECK_S = 0.5).

RUNNERS runners × 4 host devices, each runner a thread calling lease_acquire (the service
the HTTP view calls; one database connection per thread, as one gunicorn thread per waiting
runner holds) with 25 s waits. Idle cost: PostgreSQL transactions per second (each query of
the lease is one: autocommit) over IDLE_S. Wake latency: from the commit that queues one run
per device to each runner's lease returning, p50/p99. Issue target (200 runners × 4): lease
p99 < 100 ms and ≥ 95 % utilisation with a backlog; utilisation needs the blocks' simulated
work and uploads, which this does not run (said in the output). Needs PostgreSQL
(LATENCYLAB_DB_*; `make bench` starts one, max_connections 200, hence RUNNERS = 150).
Prints figures; no pass/fail. Run from backend/.
"""

import os
import statistics
import threading
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402  (after django.setup())
from django.db import connection, connections  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

RUNNERS, DEVICES_PER_RUNNER = 150, 4
IDLE_S = 12.0
PROFILES = ["none", "cable", "dsl", "3g", "3g-fast", "4g", "lte", "edge-lossy", "2g-rural", "qir-default",
            "transatlantic", "lossy-wifi"]


def main() -> None:
    from django.test.utils import get_runner

    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        run_benchmark()
    finally:
        connections.close_all()
        runner.teardown_databases(old)


def transactions() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def idle_rate() -> float:
    """Transactions/s over IDLE_S, after the stats collector has caught up (it lags ~0.5 s)."""
    time.sleep(1.0)
    before, started = transactions(), time.monotonic()
    time.sleep(IDLE_S)
    return (transactions() - before) / (time.monotonic() - started)


class Farm:
    def __init__(self, runners: list) -> None:
        self.runners = runners
        self.stop = threading.Event()
        self.leased_at: dict[str, float] = {}
        self.threads = [threading.Thread(target=self.wait_for_work, args=(r,), daemon=True) for r in runners]

    def wait_for_work(self, runner) -> None:
        from apps.comparisons.leasing import lease_acquire

        serials = [f"{runner.name}-d{i}" for i in range(DEVICES_PER_RUNNER)]
        try:
            while not self.stop.is_set():
                if lease_acquire(runner=runner, serials=serials, wait_s=25) and runner.name not in self.leased_at:
                    self.leased_at[runner.name] = time.monotonic()
        finally:
            connection.close()

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)


def run_benchmark() -> None:
    from apps.accounts.services import organization_get_or_create
    from apps.comparisons import leasing
    from apps.comparisons.models import Run
    from apps.comparisons.services import comparison_create, comparison_plan
    from apps.devices.models import Device
    from apps.devices.services import pool_get_or_create, runner_hello, runner_register

    settings.RUNNER_LEASE_WAIT_MAX_S = 25
    org = organization_get_or_create(slug="bench", name="Bench")
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runners = []
    for n in range(RUNNERS):
        runner, _ = runner_register(pool=pool, name=f"r{n:03d}")
        runner_hello(runner=runner, info={"version": "bench", "drivers": ["host"]},
                     devices=[{"serial": f"r{n:03d}-d{i}", "platform": "host", "model": "sim", "os_version": "1"}
                              for i in range(DEVICES_PER_RUNNER)])
        runners.append(runner)
    devices = RUNNERS * DEVICES_PER_RUNNER
    spec = {"name": "backlog", "preset": "mid-image-series", "network_profiles": PROFILES,
            "devices": {"pool": "local", "platforms": ["host"], "count": devices // len(PROFILES)},
            "workload": {"kind": "series", "periods": [3], "repetitions": 2}, "blocks": 2}
    print(f"{RUNNERS} runners × {DEVICES_PER_RUNNER} host devices, each runner a thread long-polling 25 s "
          f"(the lease service, not HTTP); PostgreSQL at {settings.DATABASES['default']['PORT']}")

    results = {}
    for design, recheck in (("LISTEN/NOTIFY (5 s recheck)", 5.0), ("peer: polling every 0.5 s", 0.5)):
        leasing.LEASE_RECHECK_S = recheck
        farm = Farm(runners)
        farm.start()
        time.sleep(recheck + 1.0)  # every thread is waiting
        idle = idle_rate()
        comparison = comparison_create(organization=org, submitted_spec=spec)
        queued_at = time.monotonic()
        comparison_plan(comparison_id=str(comparison.pk))  # commits the runs: the trigger notifies
        deadline = time.monotonic() + 30
        while len(farm.leased_at) < RUNNERS and time.monotonic() < deadline:
            time.sleep(0.05)
        farm.finish()
        waits = sorted((t - queued_at) * 1000 for t in farm.leased_at.values())
        leased = Run.objects.filter(comparison=comparison, status=Run.Status.LEASED).count()
        results[design] = (idle, waits, leased)
        # Free the farm for the next design: the runs over, the devices available again.
        Run.objects.filter(comparison=comparison).update(status=Run.Status.DONE, lease_token="")
        Device.objects.filter(pool=pool).update(state=Device.State.AVAILABLE)

    for design, (idle, waits, leased) in results.items():
        if waits:
            p50, p99 = statistics.median(waits), waits[min(len(waits) - 1, int(0.99 * len(waits)))]
            wake = f"lease after queueing p50 {p50:7.1f} ms, p99 {p99:7.1f} ms ({len(waits)}/{RUNNERS} runners)"
        else:
            wake = "no runner got work within 30 s"
        print(f"  {design:30s} idle: {idle:7.1f} PostgreSQL transactions/s; {wake}; {leased}/{devices} runs leased")
    (notify_idle, _, _), (poll_idle, _, _) = results.values()
    print(f"  idle cost ratio (LISTEN/NOTIFY ÷ polling): {notify_idle / poll_idle:.2f}")
    print("  not measured here: device utilisation with a backlog (needs the blocks' simulated work and "
          "uploads), and HTTP: each waiting runner holds one web thread and one database connection")


if __name__ == "__main__":
    main()
