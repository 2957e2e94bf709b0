"""Two web processes share the lease load with no double lease: two gunicorn backends (as in
production, on one database) serve the runner protocol to runners that lease concurrently
through both, each with its own devices, until the backlog is drained. Every run is leased
exactly once, by one device, and no device ever holds two runs at once. Not timed: each
runner leases, finishes what it got and asks again until every run is done."""

import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connection

from apps.comparisons.models import Run, RunAttempt
from apps.comparisons.services import comparison_create, comparison_plan
from apps.devices.services import runner_hello, runner_register
from testing.factories import SPEC
from testing.ports import free_port
from testing.waiting import wait_for

BACKEND = Path(__file__).resolve().parents[3]
RUNNERS, DEVICES_PER_RUNNER = 8, 3
# Twice as many runs as devices: every device leases more than once, most runners through both
# processes, and any two leases may race for one run.
COMPARISONS, SLOTS, PROFILES = 6, 2, ["none", "cable", "dsl", "lte"]  # 48 runs


@contextmanager
def web_processes(count: int) -> Iterator[list[str]]:
    """`count` gunicorn backends (one gthread worker each) on the test database, started
    together; their URLs once every one answers."""
    db = settings.DATABASES["default"]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base", "LATENCYLAB_DB_NAME": str(db["NAME"]),
           "LATENCYLAB_DB_HOST": str(db["HOST"]), "LATENCYLAB_DB_PORT": str(db["PORT"]),
           "LATENCYLAB_LOG_LEVEL": "WARNING"}
    webs: list[subprocess.Popen] = []
    urls: list[str] = []

    def answers(url: str) -> bool:
        try:
            return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        for _ in range(count):
            port = free_port()
            webs.append(subprocess.Popen(
                [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application",
                 "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", "1", "--threads", "8",
                 "--timeout", "60", "--graceful-timeout", "2", "--log-level", "warning"],
                cwd=BACKEND, env=env))
            urls.append(f"http://127.0.0.1:{port}")
        for web, url in zip(webs, urls, strict=True):
            assert wait_for(lambda web=web, url=url: web.poll() is not None or answers(url), 60), \
                f"{url} did not answer /healthz"
            assert web.poll() is None, f"the web process of {url} exited ({web.returncode})"
        yield urls
    finally:
        for web in webs:
            web.terminate()
        for web in webs:
            try:
                web.wait(10)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait()


class Farm:
    """What the runners saw: every lease answer (server, runner, run, device), in one list."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.leases: list[tuple[str, str, str, str]] = []
        self.errors: list[str] = []

    def runner(self, urls: list[str], name: str, token: str, serials: list[str], first: int) -> None:
        """Lease for the runner's devices, alternating between the web processes (the first
        one by `first`), and finish each run leased (status failed: a test failure ends the
        run, with nothing to upload), until no run is queued."""
        try:
            self._lease_until_drained(urls, name, token, serials, first)
        finally:
            connection.close()  # the thread's own, which asked whether runs were queued

    def _lease_until_drained(self, urls: list[str], name: str, token: str, serials: list[str], first: int) -> None:
        headers = {"Authorization": f"Runner {token}"}
        turn = first
        with httpx.Client(headers=headers, timeout=30) as client:
            while Run.objects.filter(status=Run.Status.QUEUED).exists():
                url = urls[turn % len(urls)]
                turn += 1
                # Its devices may each have run the rest's comparison and profile already (one
                # device takes one slot of each): then it waits, up to a second, for any change.
                answer = client.post(f"{url}/api/runner/v1/lease", json={"devices": serials, "wait_s": 1})
                if answer.status_code not in (200, 204):
                    self.fail(f"{name}: lease answered {answer.status_code}: {answer.text[:300]}")
                    return
                runs = answer.json()["runs"] if answer.status_code == 200 else []
                with self.lock:
                    self.leases += [(url, name, run["run_id"], run["device_serial"]) for run in runs]
                if len({run["device_serial"] for run in runs}) != len(runs):
                    self.fail(f"{name}: one lease gave a device two runs: {runs}")
                for run in runs:
                    finished = client.post(f"{url}/api/runner/v1/runs/{run['run_id']}/finish",
                                           json={"lease_token": run["lease_token"], "status": "failed",
                                                 "error": "drained by the test"})
                    if finished.status_code != 200:
                        self.fail(f"{name}: finish answered {finished.status_code}: {finished.text[:300]}")
                        return

    def fail(self, error: str) -> None:
        with self.lock:
            self.errors.append(error)


def queue_backlog(org: Any) -> int:
    spec = {**SPEC, "devices": {"pool": "local", "count": SLOTS}, "network_profiles": PROFILES}
    for n in range(COMPARISONS):
        comparison = comparison_create(organization=org, submitted_spec={**spec, "seed": n})
        comparison_plan(comparison_id=str(comparison.id))
    return Run.objects.filter(status=Run.Status.QUEUED).count()


@pytest.mark.beside
@pytest.mark.django_db(transaction=True)
def test_two_web_processes_lease_every_run_once_to_runners_polling_both(org, pool):
    runners = []
    for n in range(RUNNERS):
        runner, token = runner_register(pool=pool, name=f"farm-{n}")
        serials = [f"farm-{n}-d{i}" for i in range(DEVICES_PER_RUNNER)]
        runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                     devices=[{"serial": s, "platform": "host", "model": "test", "os_version": "1"} for s in serials])
        runners.append((f"farm-{n}", token, serials))
    total = queue_backlog(org)
    assert total == COMPARISONS * SLOTS * len(PROFILES)

    farm = Farm()
    with web_processes(2) as urls:
        threads = [threading.Thread(target=farm.runner, args=(urls, name, token, serials, n), daemon=True)
                   for n, (name, token, serials) in enumerate(runners)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not any(thread.is_alive() for thread in threads), "the runners did not drain the backlog"
    assert farm.errors == []

    leased = Counter(run_id for _, _, run_id, _ in farm.leases)
    assert len(leased) == total, "every run was leased"
    assert [run_id for run_id, times in leased.items() if times > 1] == [], "no run was leased twice"
    assert {url for url, *_ in farm.leases} == set(urls), "both web processes leased runs"
    assert set(Run.objects.values_list("status", flat=True)) == {Run.Status.FAILED}
    # In the database too: one attempt per run, on the device its lease named, and a device's
    # attempts one after another (each ended before the next began).
    attempts = list(RunAttempt.objects.select_related("device").order_by("device", "started_at", "ended_at"))
    assert len(attempts) == total
    assert len({attempt.run_id for attempt in attempts}) == total
    device_of = {run_id: serial for _, _, run_id, serial in farm.leases}
    assert all(device_of[str(attempt.run_id)] == attempt.device.serial for attempt in attempts)
    for before, after in zip(attempts, attempts[1:], strict=False):
        if before.device_id == after.device_id:
            assert before.ended_at is not None
            assert before.ended_at <= after.started_at, (before, after)
