"""The runner's one retry policy (agent/retry_policy.py) and the client that follows it on
every call (agent/client.py). VECTORS is the policy as a table: each answer the backend may
give (or no answer at all), what the call does about it and how long it waits first. The
table is checked twice: against the policy's functions, and against the real client talking
to a real HTTP server on loopback that answers the vector's way once and 200 after. The
waits are recorded, never slept, so nothing here depends on timing."""

from __future__ import annotations

import json
import random
import socket
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from latencylab_contract import columnar

from latencylab_runner.agent.client import EnrollmentError, LeaseLost, ProtocolError, RunnerClient, register
from latencylab_runner.agent.journal import read_journal
from latencylab_runner.agent.retry_policy import (
    BASE_S,
    BUDGET_S,
    CAP_S,
    MIN_WAIT_S,
    RETRY_AFTER_CAP_S,
    Outcome,
    RetrySchedule,
    outcome_of,
    retry_after_s,
)

# Answers that are not an HTTP status: the connection refused, closed before an answer, or
# an answer slower than the client's timeout.
REFUSED, RESET, TIMEOUT = "refused", "reset", "timeout"
SERVER_DATE = "Wed, 21 Oct 2026 07:28:00 GMT"
# What the first wait of an exponential backoff is drawn from (its first step, equal jitter).
BACKOFF = (BASE_S / 2, BASE_S)
# The scripted backend's 200: what every call of the client accepts (a lease's `runs` among it).
OK = {"ok": True, "runs": []}


@dataclass(frozen=True)
class Vector:
    name: str
    answer: int | str
    expect: str  # an Outcome's value, or "give_up": retried, but the wait would overspend the budget
    wait: tuple[float, float] | None = None  # the first wait's bounds, for "retry"
    headers: dict[str, str] = field(default_factory=dict)
    budget_s: float = BUDGET_S


def after(seconds: float) -> tuple[float, float]:
    return (seconds, seconds)


VECTORS = [
    Vector("200 is done", 200, "done"),
    # The backend's rate limit: Retry-After in both of RFC 9110's forms.
    Vector("429 waits its Retry-After seconds", 429, "retry", after(7), {"Retry-After": "7"}),
    Vector("429 waits Retry-After seconds with spaces around", 429, "retry", after(2), {"Retry-After": " 2 "}),
    Vector("429 with an HTTP-date waits until then by the answer's own Date", 429, "retry", after(12),
           {"Retry-After": "Wed, 21 Oct 2026 07:28:12 GMT", "Date": SERVER_DATE}),
    Vector("429 with an HTTP-date and no Date header is measured from this host's clock (far future: capped)",
           429, "retry", after(RETRY_AFTER_CAP_S), {"Retry-After": "Fri, 31 Dec 2099 23:59:59 GMT"}),
    Vector("429 with an HTTP-date already past waits the minimum", 429, "retry", after(MIN_WAIT_S),
           {"Retry-After": "Wed, 21 Oct 2026 07:27:00 GMT", "Date": SERVER_DATE}),
    Vector("429 with Retry-After 0 waits the minimum, never a tight loop", 429, "retry", after(MIN_WAIT_S),
           {"Retry-After": "0"}),
    Vector("429 with a Retry-After of an hour waits the cap, then asks again", 429, "retry",
           after(RETRY_AFTER_CAP_S), {"Retry-After": "3600"}),
    Vector("429 without Retry-After backs off", 429, "retry", BACKOFF),
    Vector("429 with a Retry-After of neither form backs off", 429, "retry", BACKOFF, {"Retry-After": "soon"}),
    Vector("429 with a negative Retry-After backs off", 429, "retry", BACKOFF, {"Retry-After": "-5"}),
    Vector("429 whose Retry-After would overspend the budget gives up", 429, "give_up",
           headers={"Retry-After": "7"}, budget_s=5),
    Vector("408 backs off", 408, "retry", BACKOFF),
    Vector("500 backs off", 500, "retry", BACKOFF),
    Vector("502 backs off", 502, "retry", BACKOFF),
    Vector("503 backs off", 503, "retry", BACKOFF),
    Vector("503 with Retry-After waits it", 503, "retry", after(3), {"Retry-After": "3"}),
    Vector("504 backs off", 504, "retry", BACKOFF),
    Vector("a 5xx when no budget is left gives up", 503, "give_up", budget_s=0),
    Vector("a connection refused backs off", REFUSED, "retry", BACKOFF),
    Vector("a connection closed without an answer backs off", RESET, "retry", BACKOFF),
    Vector("an answer slower than the timeout backs off", TIMEOUT, "retry", BACKOFF),
    # Final: the same request would get the same answer.
    Vector("409 (the lease is gone) is final", 409, "lease_lost"),
    Vector("400 is final", 400, "refused"),
    Vector("401 is final", 401, "refused"),
    Vector("403 is final", 403, "refused"),
    Vector("404 is final", 404, "refused"),
    Vector("405 is final", 405, "refused"),
    Vector("410 is final", 410, "refused"),
    Vector("413 is final", 413, "refused"),
    Vector("415 is final", 415, "refused"),
    Vector("422 is final", 422, "refused"),
    Vector("451 is final", 451, "refused"),
]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_the_policy_decides_each_vector(vector: Vector):
    status = vector.answer if isinstance(vector.answer, int) else None
    outcome = outcome_of(status)
    if vector.expect in ("retry", "give_up"):
        assert outcome is Outcome.RETRY
        asked = retry_after_s(vector.headers.get("Retry-After"), date=vector.headers.get("Date"))
        wait = RetrySchedule(rng=random.Random(7), budget_s=vector.budget_s).next_wait(asked)
        if vector.expect == "give_up":
            assert wait is None
        else:
            assert vector.wait is not None
            assert wait is not None
            assert vector.wait[0] <= wait <= vector.wait[1]
    else:
        assert outcome is Outcome(vector.expect)


class ScriptedBackend(ThreadingHTTPServer):
    """Answers its first request as `first` says, every later one `later` (200 OK;
    201 is an enrollment's answer); keeps each body. REFUSED: bound but not listening
    (connections are refused) until `listen()`."""

    daemon_threads = True

    def __init__(self, first: int | str, headers: dict[str, str] | None = None, later: int = 200):
        super().__init__(("127.0.0.1", 0), ScriptedHandler, bind_and_activate=False)
        self.server_bind()
        self.first = first
        self.later = later
        self.headers = headers or {}
        self.bodies: list[bytes] = []
        self.paths: list[str] = []
        self.client_gave_up = threading.Event()  # TIMEOUT: the first answer waits for it
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.listening = False
        if first != REFUSED:
            self.listen()

    def listen(self) -> None:
        if not self.listening:
            self.listening = True
            self.server_activate()
            threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        if self.listening:
            self.shutdown()
        self.server_close()


class ScriptedHandler(BaseHTTPRequestHandler):
    server: ScriptedBackend

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.paths.append(self.path)
        # A refused first try never arrives: then every request that does is a later one.
        first = len(self.server.bodies) == 1 and self.server.first != REFUSED
        if first and self.server.first == RESET:
            self.close_connection = True
            return
        if first and self.server.first == TIMEOUT:
            self.server.client_gave_up.wait(30)
            self.close_connection = True
            return
        status = self.server.first if first else self.server.later
        assert isinstance(status, int)
        body = json.dumps(OK if status == 200 else {"detail": f"answered {status}"}).encode()
        if status == 201:
            body = json.dumps({"runner_id": "r-1", "runner_token": "llr_new", "pool": "local"}).encode()
        self.send_response_only(status)
        headers = {"Date": self.date_time_string(), **(self.server.headers if first else {})}
        for name, value in {**headers, "Content-Type": "application/json",
                            "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def scripted():
    servers: list[ScriptedBackend] = []

    def start(first: int | str, headers: dict[str, str] | None = None, later: int = 200) -> ScriptedBackend:
        server = ScriptedBackend(first, headers, later)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def recording_sleep(server: ScriptedBackend, waits: list[float]):
    """The client's sleep: records the wait; the time the client would have slept is when a
    refused connection's server starts listening and a timed-out answer is abandoned."""

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        server.client_gave_up.set()
        server.listen()

    return sleep


BATCH = {"lease_token": "secret-lease", "attempt": 1, "batch_seq": 3, "block": 3, "samples": [{"seq": 0}]}


# A 415 to the columnar body is the one refusal an upload answers otherwise: the backend
# predates that body, so the client sends the block again as JSON (test_client_columnar.py).
# The policy itself still calls 415 final (above).
UPLOAD_VECTORS = [vector for vector in VECTORS if vector.answer != 415]


@pytest.mark.parametrize("vector", UPLOAD_VECTORS, ids=lambda v: v.name)
def test_the_client_follows_each_vector_on_an_upload(vector: Vector, scripted):
    server = scripted(vector.answer, vector.headers)
    waits: list[float] = []
    client = RunnerClient(server.url, "llr_test", sleep=recording_sleep(server, waits), rng=random.Random(7),
                          retry_budget_s=vector.budget_s, timeout_s=5 if vector.answer != TIMEOUT else 0.3)
    try:
        if vector.expect == "lease_lost":
            with pytest.raises(LeaseLost, match=f"answered {vector.answer}"):
                client.upload_block("run-1", BATCH)
        elif vector.expect == "refused":
            with pytest.raises(ProtocolError, match=f"HTTP {vector.answer}: "):
                client.upload_block("run-1", BATCH)
        elif vector.expect == "give_up":
            with pytest.raises(ProtocolError, match=f"HTTP {vector.answer}.*; gave up after 1 tries"):
                client.upload_block("run-1", BATCH)
        else:
            assert client.upload_block("run-1", BATCH) == OK
    finally:
        client.close()
    tries = 1 + len(waits)
    answered = tries - (1 if vector.answer == REFUSED else 0)  # a refused try never reached the server
    assert len(server.bodies) == answered
    # Every try sent the same batch: the backend stores the block once.
    assert {columnar.decode(body)["batch_seq"] for body in server.bodies} <= {3}  # as columns (the default)
    assert len(set(server.bodies)) <= 1
    if vector.expect == "retry":
        assert vector.wait is not None
        assert len(waits) == 1
        assert vector.wait[0] <= waits[0] <= vector.wait[1]
    else:
        assert waits == []


CALLS = {
    "hello": lambda c: c.hello({"name": "r"}, []),
    "heartbeat": lambda c: c.heartbeat([], []),
    "lease": lambda c: c.lease(["host-1"], wait_s=1),
    "upload_block": lambda c: c.upload_block("run-1", BATCH),
    "finish": lambda c: c.finish("run-1", {"lease_token": "t", "status": "ok"}),
    "upload_artifact": lambda c: c.upload_artifact("run-1", lease_token="t", name="lane.log", data=b"log"),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_every_runner_call_waits_out_a_429(call: str, scripted):
    server = scripted(429, {"Retry-After": "4"})
    waits: list[float] = []
    client = RunnerClient(server.url, "llr_test", sleep=recording_sleep(server, waits), rng=random.Random(7))
    try:
        CALLS[call](client)
    finally:
        client.close()
    assert waits == [4.0]
    assert len(server.bodies) == 2
    assert server.bodies[0] == server.bodies[1]


def test_enrollment_waits_out_a_429_too_and_a_409_needs_a_person(scripted):
    server = scripted(429, {"Retry-After": "2"}, later=201)
    waits: list[float] = []
    answer = register(server.url, "enroll", name="r", hostname="h", drivers=["host"],
                      sleep=recording_sleep(server, waits))
    assert answer["runner_token"] == "llr_new"
    assert waits == [2.0]
    assert server.paths == ["/api/runner/v1/register"] * 2
    taken = scripted(409)
    with pytest.raises(EnrollmentError, match="HTTP 409: answered 409"):
        register(taken.url, "enroll", name="r", hostname="h", drivers=["host"], sleep=waits.append)
    assert len(taken.bodies) == 1
    assert waits == [2.0]


# -- the backoff's own properties ------------------------------------------------------


def backoff_waits(seed: int, budget_s: float = BUDGET_S) -> list[float]:
    """Every wait of one call that is never answered, until the budget is spent."""
    schedule = RetrySchedule(rng=random.Random(seed), budget_s=budget_s)
    waits = []
    while (wait := schedule.next_wait()) is not None:
        waits.append(wait)
    return waits


def test_the_steps_double_up_to_the_cap_and_each_wait_is_jittered_within_its_step():
    waits = backoff_waits(1)
    steps = [min(BASE_S * 2**k, CAP_S) for k in range(len(waits))]
    for wait, step in zip(waits, steps, strict=True):
        assert step / 2 <= wait <= step
    assert steps[:6] == [0.5, 1, 2, 4, 8, 10]


def test_the_waits_stay_within_the_budget_and_use_most_of_it():
    for seed in range(20):
        # Within the budget, and the next wait (at most CAP_S) would not have fitted.
        assert BUDGET_S - CAP_S < sum(backoff_waits(seed)) <= BUDGET_S


def test_two_runners_that_lost_the_backend_together_do_not_call_back_in_step():
    assert all(a != b for a, b in zip(backoff_waits(1), backoff_waits(2), strict=False))


def test_retry_after_waits_count_against_the_same_budget():
    schedule = RetrySchedule(rng=random.Random(1), budget_s=40)
    assert [schedule.next_wait(30.0), schedule.next_wait(3600.0)] == [30.0, None]
    assert schedule.waited_s == 30.0


def test_an_http_date_without_a_date_header_is_measured_from_now():
    now = datetime(2026, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_after_s("Wed, 21 Oct 2026 07:28:09 GMT", now=now) == 9.0
    # RFC 850 and asctime, the obsolete forms a recipient must still read.
    assert retry_after_s("Wednesday, 21-Oct-26 07:28:09 GMT", now=now) == 9.0
    assert retry_after_s("Wed Oct 21 07:28:09 2026", now=now) == 9.0


# -- the client over a real socket, several tries ----------------------------------------


def test_a_batch_is_retried_through_5xx_with_the_same_body_and_journaled_once(tmp_path: Path):
    server = FlakyBackend(failures=3)
    waits: list[float] = []
    client = RunnerClient(server.url, "llr_test", sleep=waits.append, rng=random.Random(7), journal=tmp_path)
    try:
        batch = {"lease_token": "secret-lease", "attempt": 2, "batch_seq": 4, "block": 4, "samples": [{"seq": 0}]}
        assert client.upload_block("run-1", batch) == {"ok": True}
    finally:
        client.close()
        server.close()
    assert len(server.bodies) == 4
    assert len(set(server.bodies)) == 1
    assert columnar.decode(server.bodies[0])["batch_seq"] == 4  # as columns (the client's default)
    assert waits == backoff_waits(7)[:3]
    # The journal holds the batch as sent, once, without the lease token.
    journal = read_journal(tmp_path)
    assert journal == [{"attempt": 2, "batch_seq": 4, "block": 4, "samples": [{"seq": 0}], "run_id": "run-1"}]
    assert "secret-lease" not in (tmp_path / "run-1" / "a2-b4.json").read_text()


def test_it_gives_up_when_the_budget_is_spent():
    server = FlakyBackend(failures=1000)
    waits: list[float] = []
    client = RunnerClient(server.url, "llr_test", sleep=waits.append, rng=random.Random(7), retry_budget_s=20)
    try:
        with pytest.raises(ProtocolError, match=r"HTTP 503; gave up after \d+ tries"):
            client.heartbeat([], [])
    finally:
        client.close()
        server.close()
    assert len(server.bodies) == len(waits) + 1
    assert waits == backoff_waits(7, budget_s=20)


def test_a_backend_that_never_listens_is_given_up_on_after_the_budget():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    waits: list[float] = []
    client = RunnerClient(f"http://127.0.0.1:{port}", "llr_test", sleep=waits.append, rng=random.Random(7),
                          retry_budget_s=5)
    with pytest.raises(ProtocolError, match="ConnectError"):
        client.hello({}, [])
    assert waits == backoff_waits(7, budget_s=5)


class FlakyBackend(ThreadingHTTPServer):
    """Answers 503 to the first `failures` requests, then 200 {"ok": true}; keeps each body."""

    daemon_threads = True

    def __init__(self, failures: int):
        self.failures = failures
        self.bodies: list[bytes] = []
        super().__init__(("127.0.0.1", 0), FlakyHandler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class FlakyHandler(BaseHTTPRequestHandler):
    server: FlakyBackend

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        status = 503 if len(self.server.bodies) <= self.server.failures else 200
        body = json.dumps({"ok": True} if status == 200 else {"detail": "unavailable"}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


