"""The runner's retries (agent/backoff.py, agent/client.py): exponential, jittered, bounded
by a time budget, the same request every time; and the upload journal. The waits are
recorded, never slept, so nothing here depends on timing."""

import json
import random
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from latencylab_runner.agent.backoff import BUDGET_S, CAP_S, backoff_delays
from latencylab_runner.agent.client import LeaseLost, ProtocolError, RunnerClient
from latencylab_runner.agent.journal import read_journal


def test_the_steps_double_up_to_the_cap_and_each_wait_is_jittered_within_its_step():
    delays = list(backoff_delays(rng=random.Random(1)))
    steps = [min(0.5 * 2**k, CAP_S) for k in range(len(delays))]
    for delay, step in zip(delays, steps, strict=True):
        assert step / 2 <= delay <= step
    assert steps[:6] == [0.5, 1, 2, 4, 8, 10]


def test_the_waits_stay_within_the_budget_and_use_most_of_it():
    for seed in range(20):
        delays = list(backoff_delays(rng=random.Random(seed)))
        # Within the budget, and the next wait (at most CAP_S) would not have fitted.
        assert BUDGET_S - CAP_S < sum(delays) <= BUDGET_S


def test_two_runners_that_lost_the_backend_together_do_not_call_back_in_step():
    first = list(backoff_delays(rng=random.Random(1)))
    second = list(backoff_delays(rng=random.Random(2)))
    assert all(a != b for a, b in zip(first, second, strict=False))


def test_a_zero_budget_means_no_retry():
    assert list(backoff_delays(rng=random.Random(1), budget_s=0)) == []


class FlakyBackend(ThreadingHTTPServer):
    """Answers 503 to the first `failures` requests, then 200 {"ok": true}; keeps each body."""

    def __init__(self, failures: int, final_status: int = 200):
        self.failures = failures
        self.final_status = final_status
        self.bodies: list[bytes] = []
        super().__init__(("127.0.0.1", 0), FlakyHandler)


class FlakyHandler(BaseHTTPRequestHandler):
    server: FlakyBackend

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        status = 503 if len(self.server.bodies) <= self.server.failures else self.server.final_status
        body = json.dumps({"ok": status == 200, "detail": "lease lost"}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def flaky():
    servers: list[FlakyBackend] = []

    def start(failures: int, final_status: int = 200) -> FlakyBackend:
        server = FlakyBackend(failures, final_status)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def client_for(url: str, waits: list[float], **kwargs) -> RunnerClient:
    return RunnerClient(url, "llr_test", sleep=waits.append, rng=random.Random(7), **kwargs)


def test_a_batch_is_retried_through_5xx_with_the_same_body_and_the_schedules_waits(flaky, tmp_path: Path):
    server = flaky(failures=3)
    waits: list[float] = []
    client = client_for(f"http://127.0.0.1:{server.server_port}", waits, journal=tmp_path)
    batch = {"lease_token": "secret-lease", "attempt": 2, "batch_seq": 4, "block": 4, "samples": [{"seq": 0}]}
    assert client.upload_block("run-1", batch) == {"ok": True, "detail": "lease lost"}
    assert len(server.bodies) == 4
    assert len(set(server.bodies)) == 1
    assert json.loads(server.bodies[0])["batch_seq"] == 4
    assert waits == list(backoff_delays(rng=random.Random(7)))[:3]
    # The journal holds the batch as sent, once, without the lease token.
    journal = read_journal(tmp_path)
    assert journal == [{"attempt": 2, "batch_seq": 4, "block": 4, "samples": [{"seq": 0}], "run_id": "run-1"}]
    assert "secret-lease" not in (tmp_path / "run-1" / "a2-b4.json").read_text()


def test_it_gives_up_when_the_budget_is_spent(flaky):
    server = flaky(failures=1000)
    waits: list[float] = []
    client = client_for(f"http://127.0.0.1:{server.server_port}", waits, retry_budget_s=20)
    with pytest.raises(ProtocolError, match=r"HTTP 503; gave up after \d+ tries"):
        client.heartbeat([], [])
    assert len(server.bodies) == len(waits) + 1
    assert waits == list(backoff_delays(rng=random.Random(7), budget_s=20))


def test_connection_refused_is_retried_like_a_5xx():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    waits: list[float] = []
    client = client_for(f"http://127.0.0.1:{port}", waits, retry_budget_s=5)
    with pytest.raises(ProtocolError, match="ConnectError"):
        client.hello({}, [])
    assert waits
    assert waits == list(backoff_delays(rng=random.Random(7), budget_s=5))


def test_a_lost_lease_is_not_retried(flaky):
    server = flaky(failures=0, final_status=409)
    waits: list[float] = []
    client = client_for(f"http://127.0.0.1:{server.server_port}", waits)
    with pytest.raises(LeaseLost):
        client.finish("run-1", {"lease_token": "t", "status": "ok"})
    assert len(server.bodies) == 1
    assert waits == []
