"""A whole LatencyLab stack to break on purpose (infra/bin/stack.py: PostgreSQL, Redis,
gunicorn, Celery worker and beat, the reference target, a host runner agent), with the
levers the fault tests pull and the check they all end with: the comparison's stored
samples are exactly what the plan asked for and what the runner sent.

The runner keeps every batch it sends (its upload journal, LATENCYLAB_RUNNER_JOURNAL), so
the stored samples are compared field by field with what was measured, not only counted.
Reconciliation runs every few seconds here (LATENCYLAB_RECONCILE_INTERVAL_S) instead of
every minute, so a test waits seconds for what an operator would wait a minute for."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis
from conditions import poll_until

from latencylab_runner.agent.journal import JOURNAL_ENV, read_journal
from latencylab_runner.workloads.plan import plan_block

REPO = Path(__file__).resolve().parents[3]
PY = str(REPO / ".venv" / "bin" / "python")
STACK = str(REPO / "infra" / "bin" / "stack.py")
SERVICES = str(REPO / "infra" / "bin" / "services.py")
RECONCILE_INTERVAL_S = 2

# The export's columns that come straight from the runner's sample (the rest are the
# device, profile and run it belongs to, and durations derived on the server).
SENT_FIELDS = [
    "arm", "block", "period", "repetition", "step", "seq", "part", "phase", "op", "path", "wall_time", "t0",
    "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready", "req_start", "req_end", "resp_first_byte",
    "resp_headers_end", "resp_end", "app_done", "conn_id", "conn_reused", "in_flight", "alpn", "tls_version",
    "tls_resumed", "early_data", "req_bytes", "resp_bytes", "status", "server_delay_ms", "server_time_us",
    "srtt_us", "retrans", "error_class", "error_detail",
]
SEQ = SENT_FIELDS.index("seq")
# What the plan decides about each request, by its seq in the block.
PLANNED_FIELDS = ["arm", "phase", "op", "path", "period", "repetition", "step"]


def wait_until(what: str, check: Callable[[], Any], timeout_s: float, every_s: float = 0.5) -> Any:
    """Polls `check` until it returns something truthy; a bound, not a measurement."""

    def looked() -> Any:
        try:
            return check()
        except (httpx.HTTPError, redis.RedisError, OSError, ValueError):
            return None  # the service under test may be down: that is the point

    value = poll_until(looked, timeout_s, every_s=every_s)
    if not value:
        raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
    return value


class FaultStack:
    def __init__(self, base: Path):
        self.base = base
        self.journal = base / "journal"
        self.env = {**os.environ, "LATENCYLAB_RECONCILE_INTERVAL_S": str(RECONCILE_INTERVAL_S),
                    JOURNAL_ENV: str(self.journal)}
        self.state: dict[str, Any] = {}

    # -- the stack -------------------------------------------------------------------
    def up(self) -> None:
        self._stack("up", "--ports", "auto", "--no-demo")
        self.state = json.loads(self._stack("env"))
        self.http = httpx.Client(base_url=self.state["web"], timeout=30,
                                 headers={"Authorization": f"Bearer {self.state['api_token']}"})

    def down(self) -> None:
        # Killed, not drained: nothing here needs a graceful stop, and each waits up to 10 s.
        for process in ("runner", "target", "beat", "worker", "web"):
            if (self.base / "pids" / f"{process}.pid").exists():
                self.kill(process)
        self._stack("down")

    def _stack(self, *args: str) -> str:
        done = subprocess.run([PY, STACK, *args, "--dir", str(self.base)], env=self.env,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"stack.py {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def kill(self, process: str) -> None:
        """SIGKILL: no graceful shutdown, no goodbye to anyone."""
        self._stack("kill", process)

    def start(self, process: str) -> None:
        self._stack("start", process)

    def alive(self, process: str) -> bool:
        pidfile = self.base / "pids" / f"{process}.pid"
        return pidfile.exists() and Path(f"/proc/{pidfile.read_text().strip()}").exists()

    def heal(self) -> None:
        """Whatever a test left stopped (it failed between breaking something and mending it) comes
        back, so that one failure does not starve the tests after it."""
        self.start_servers()
        for process in ("web", "worker", "beat", "target", "runner"):
            if not self.alive(process):
                self.start(process)

    def stop_server(self, which: str) -> None:
        """PostgreSQL (`pg_ctl stop -m fast`: every connection cut) or Redis (its data gone:
        it runs without persistence, like a cache-only deployment)."""
        subprocess.run([PY, SERVICES, "stop", "--dir", str(self.base), "--only", which], check=True, timeout=60)

    def start_servers(self) -> None:
        """Whatever of PostgreSQL and Redis is stopped comes back, on its old port."""
        ports = self.state["ports"]
        subprocess.run([PY, SERVICES, "start", "--dir", str(self.base), "--pg-port", str(ports["pg"]),
                        "--redis-port", str(ports["redis"])], check=True, timeout=120, capture_output=True)

    def redis(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.state["ports"]["redis"], socket_timeout=5)

    def queued_tasks(self) -> list[tuple[str, str]]:
        """(task name, argsrepr) of every message waiting in Celery's queue (kombu's JSON envelope)."""
        client = self.redis()
        try:
            return [(json.loads(raw)["headers"]["task"], json.loads(raw)["headers"]["argsrepr"])
                    for raw in client.lrange("celery", 0, -1)]
        finally:
            client.close()

    def is_queued(self, task: str, comparison_id: str) -> bool:
        return any(name == task and comparison_id in args for name, args in self.queued_tasks())

    def log(self, process: str) -> str:
        return (self.base / "logs" / f"{process}.log").read_text(errors="replace")

    # -- the API ---------------------------------------------------------------------
    def submit(self, name: str) -> str:
        # Six blocks of a few requests each: about 2 s a block, long enough to break things
        # in the middle, short enough that a scenario takes well under a minute.
        spec = {"name": name, "preset": "mid-image-series", "blocks": 6, "seed": 11,
                "workload": {"kind": "series", "periods": [3], "repetitions": 6}}
        response = self.http.post("/api/v1/comparisons", json=spec)
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def comparison(self, comparison_id: str) -> dict[str, Any]:
        response = self.http.get(f"/api/v1/comparisons/{comparison_id}")
        response.raise_for_status()
        return response.json()

    def wait_status(self, comparison_id: str, statuses: set[str], timeout_s: float = 90) -> dict[str, Any]:
        return wait_until(f"comparison {comparison_id} to be {' or '.join(sorted(statuses))}",
                          lambda: (c := self.comparison(comparison_id))["status"] in statuses and c, timeout_s)

    def wait_blocks_done(self, comparison_id: str, at_least: int, timeout_s: float = 60) -> int:
        return wait_until(f"{at_least} block(s) of {comparison_id} stored",
                          lambda: (n := self.comparison(comparison_id)["progress"]["blocks_done"]) >= at_least and n,
                          timeout_s)

    def wait_runner_retrying(self, what: str, pattern: str, after: int, timeout_s: float = 60,
                             times: int = 1) -> str:
        """Waits until the runner's log, past offset `after`, says `times` times that it is
        retrying a call that matches `pattern` (the fault reached the runner, and the runner
        did not give up); returns the last such line."""
        regex = re.compile(pattern + r".*retrying in")

        def retried() -> str | None:
            found = regex.findall(self.log("runner")[after:])
            return found[-1] if len(found) >= times else None

        return wait_until(what, retried, timeout_s)

    def exported_samples(self, comparison_id: str) -> list[dict[str, Any]]:
        response = self.http.get(f"/api/v1/comparisons/{comparison_id}/samples.json")
        response.raise_for_status()
        return [json.loads(line) for line in response.text.splitlines() if line]


def exact_sample_problems(stack: FaultStack, comparison_id: str) -> list[str]:
    """Everything that keeps the stored samples from being exactly the expected set: one
    sample per planned request (count and (run, block, seq) from the plan, each with the
    planned arm, phase and path), none twice, and each equal, field by field, to a batch the
    runner sent for that run and block. Empty when all is well."""
    comparison = stack.comparison(comparison_id)
    stored = stack.exported_samples(comparison_id)
    problems: list[str] = []
    keys = Counter((s["run"], s["block"], s["seq"]) for s in stored)
    problems += [f"stored {n} times: run {k[0]} block {k[1]} seq {k[2]}" for k, n in keys.items() if n > 1]

    planned: dict[tuple[str, int, int], dict[str, Any]] = {}
    for run in comparison["runs"]:
        for block in range(run["blocks_total"]):
            for seq, request in enumerate(plan_block(comparison["spec"], run_id=run["id"], block=block)):
                planned[(run["id"], block, seq)] = {f: getattr(request, f) for f in PLANNED_FIELDS}
    if len(stored) != len(planned):
        problems.append(f"{len(stored)} samples stored, the plan has {len(planned)} requests")
    problems += [f"planned but not stored: {k}" for k in sorted(planned.keys() - keys.keys())[:5]]
    problems += [f"stored but never planned: {k}" for k in sorted(keys.keys() - planned.keys())[:5]]
    for sample in stored:
        plan = planned.get((sample["run"], sample["block"], sample["seq"]))
        if plan is not None and {f: sample[f] for f in PLANNED_FIELDS} != plan:
            problems.append(f"sample {sample['run']}/{sample['block']}/{sample['seq']} is not the planned request: "
                            f"{ {f: sample[f] for f in PLANNED_FIELDS} } != {plan}")

    # What the runner sent, per (run, block): one batch per attempt that measured the block.
    sent: dict[tuple[str, int], list[list[dict[str, Any]]]] = defaultdict(list)
    for batch in read_journal(stack.journal):
        sent[(batch["run_id"], batch["block"])].append(batch["samples"])
    by_block: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for sample in stored:
        by_block[(sample["run"], sample["block"])].append(sample)
    def rows(samples: list[dict[str, Any]]) -> list[list[Any]]:
        return sorted(([s.get(f) for f in SENT_FIELDS] for s in samples), key=lambda row: row[SEQ])

    for (run_id, block), samples in sorted(by_block.items()):
        as_stored = rows(samples)
        candidates = [rows(batch) for batch in sent.get((run_id, block), [])]
        if not candidates:
            problems.append(f"run {run_id} block {block}: stored, but the runner's journal has no batch for it")
        elif as_stored not in candidates:
            problems.append(f"run {run_id} block {block}: the stored samples differ from every batch the runner sent")
    return problems
