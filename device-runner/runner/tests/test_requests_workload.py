"""The `requests` workload (a customer's own ordered requests) from plan to probe: the
plan keeps the list's order and ABBA-alternates the arms; the job carries each request's
headers, inline body, name and expected status, and a `path` goes to each arm's own
endpoint ("two builds": two reference targets on different ports), an absolute `url` to
the same origin for every arm; the host probe sends exactly that (a recording HTTP/1.1
server checks the bytes on the wire) and judges the status by `expect_status`."""

from __future__ import annotations

import base64
import copy
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from latencylab_contract.validation import ContractError, validate
from target_process import TargetProcess, launch_target

from latencylab_runner.drivers.probe_harness import execute_job
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import build_job, result_problems
from latencylab_runner.workloads.plan import plan_block

UNUSED_TARGET = ReferenceTarget("127.0.0.1", 9, 9, "localhost", None)


def listed(**request: object) -> dict:
    """A request as the backend normalizes it (every field present)."""
    base = {"name": None, "method": "GET", "url": None, "path": None, "headers": {}, "body": None,
            "body_b64": None, "body_bytes": None, "expect_status": None}
    return {**base, **request}


def requests_spec(requests: list[dict], arms: list[dict], *, repetitions: int = 2, warmup: int = 1,
                  think_ms: int = 0, blocks: int = 1) -> dict:
    return {"workload": {"kind": "requests", "requests": requests, "repetitions": repetitions, "warmup": warmup,
                         "think_ms": think_ms},
            "arms": arms, "blocks": blocks, "seed": 3, "timeout_s": 10}


LIST = [listed(name="login", method="POST", path="/echo", body='{"u":"a"}',
               headers={"content-type": "application/json"}),
        listed(name="feed", path="/bytes/2000?page=1"),
        listed(name="upload", method="POST", path="/echo", body_b64=base64.b64encode(b"\x00\x01\xff").decode()),
        listed(name="big", method="POST", path="/echo", body_bytes=3000, expect_status=200)]


def test_plan_keeps_the_list_order_with_abba_arms_and_the_first_request_as_warmup():
    spec = requests_spec(LIST, [{"label": "a", "protocol": "h2"}, {"label": "b", "protocol": "h2"}],
                         repetitions=4, blocks=2)
    plan = plan_block(spec, run_id="r", block=0)
    warmups = [p for p in plan if p.phase == "warmup"]
    assert [(p.arm, p.name, p.method, p.path) for p in warmups] in (
        [("a", "login", "POST", "/echo"), ("b", "login", "POST", "/echo")],
        [("b", "login", "POST", "/echo"), ("a", "login", "POST", "/echo")])
    measured = [p for p in plan if p.phase == "measure"]
    # Block 0 of 2 takes repetitions 0 and 2; each is the whole list, per arm, in order.
    assert len(measured) == 2 * 2 * len(LIST)
    runs = [measured[i:i + len(LIST)] for i in range(0, len(measured), len(LIST))]
    for run in runs:
        assert [p.step for p in run] == [0, 1, 2, 3]
        assert [p.name for p in run] == ["login", "feed", "upload", "big"]
        assert len({p.arm for p in run}) == 1
    assert [r[0].arm for r in runs[:2]] == list(reversed([r[0].arm for r in runs[2:]]))  # ABBA
    assert {r[0].repetition for r in runs} == {0, 2}
    assert plan == plan_block(spec, run_id="r", block=0)  # pure


def test_job_carries_headers_bodies_names_expectations_and_each_arms_own_endpoint():
    arms = [{"label": "build-a", "protocol": "h2", "endpoint": "https://a.example.com:8443/api/v2"},
            {"label": "build-b", "protocol": "h2", "endpoint": "https://b.example.com:9443"}]
    requests = [*LIST, listed(name="cdn", path=None, url="https://cdn.example.com/img/1.jpg?w=64")]
    job = build_job(requests_spec(requests, arms, think_ms=40), run_id="r", block=0, attempt=1,
                    target=UNUSED_TARGET)
    validate(job, "job")
    assert job["gap_ms"] == 40  # think time after each request
    by_arm = {label: [r for r in job["requests"] if r["arm"] == label and r["phase"] == "measure"][:5]
              for label in ("build-a", "build-b")}
    assert [r["path"] for r in by_arm["build-a"]] == ["/api/v2/echo", "/api/v2/bytes/2000?page=1", "/api/v2/echo",
                                                      "/api/v2/echo", "/img/1.jpg?w=64"]
    assert [r["path"] for r in by_arm["build-b"]][:2] == ["/echo", "/bytes/2000?page=1"]
    login, feed, upload, big, cdn = by_arm["build-a"]
    assert login["headers"] == {"content-type": "application/json"}
    assert login["name"] == "login"
    assert base64.b64decode(login["body_b64"]) == b'{"u":"a"}'
    assert "body_bytes" not in login
    assert "headers" not in feed
    assert "body_b64" not in feed
    assert "origin" not in feed
    assert base64.b64decode(upload["body_b64"]) == b"\x00\x01\xff"
    assert big["body_bytes"] == 3000
    assert big["expect_status"] == 200
    assert cdn["origin"] == "https://cdn.example.com:443"
    assert by_arm["build-b"][4]["origin"] == cdn["origin"]


@pytest.mark.parametrize("field, value", [
    ("headers", {"x-a": "1\r\nx-evil: 2"}), ("headers", {"X-Upper": "1"}), ("headers", {"bad name": "1"}),
    ("body_b64", "***"), ("expect_status", 99), ("origin", "https://user@host:1"), ("origin", "ftp://h:1"),
])
def test_the_contract_refuses_injection_and_bad_fields(field, value):
    job = build_job(requests_spec(LIST[:1], [{"label": "a", "protocol": "h2"}]), run_id="r", block=0, attempt=1,
                    target=UNUSED_TARGET)
    job["requests"][0][field] = value
    with pytest.raises(ContractError):
        validate(job, "job")
    both = copy.deepcopy(job)
    both["requests"][0] = {**both["requests"][0], "body_bytes": 3, field: job["requests"][0].get(field)}
    with pytest.raises(ContractError):
        validate(both, "job")


# --- on the wire ------------------------------------------------------------------------------

class Recorder(http.server.BaseHTTPRequestHandler):
    """A plain HTTP/1.1 server that is not ours: records what arrived, answers 201 to
    POST /items, 404 elsewhere, with a body of the request's length."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str, dict[str, str], bytes]] = []

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        status = 201 if (self.command, self.path) == ("POST", "/v1/items") else 404
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[http.server.ThreadingHTTPServer]:
    Recorder.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_the_probe_sends_the_customers_headers_and_bytes_and_judges_the_expected_status(recorder):
    endpoint = f"http://127.0.0.1:{recorder.server_address[1]}/v1"
    requests = [listed(name="create", method="POST", path="/items", body='{"a":1}', expect_status=201,
                       headers={"authorization": "Bearer t0k", "x-trace": "abc"}),
                listed(name="missing", path="/nothing", expect_status=404),
                listed(name="missing-unexpected", path="/nothing"),
                listed(name="create-wrong", method="POST", path="/items", body_bytes=10, expect_status=200)]
    job = build_job(requests_spec(requests, [{"label": "app", "protocol": "h1c", "endpoint": endpoint}],
                                  repetitions=1, warmup=0), run_id="r", block=0, attempt=1, target=UNUSED_TARGET)
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    method, path, headers, body = Recorder.seen[0]
    assert (method, path, body) == ("POST", "/v1/items", b'{"a":1}')
    assert headers["authorization"] == "Bearer t0k"
    assert headers["x-trace"] == "abc"
    assert [(m, p) for m, p, _, _ in Recorder.seen] == [("POST", "/v1/items"), ("GET", "/v1/nothing"),
                                                        ("GET", "/v1/nothing"), ("POST", "/v1/items")]
    assert len(Recorder.seen[3][3]) == 10
    samples = result["samples"]
    assert [(s["status"], s["error_class"]) for s in samples] == [(201, None), (404, None), (404, "http"),
                                                                  (201, "http")]
    assert samples[3]["error_detail"] == "HTTP 201, expected 200"
    assert [s["step"] for s in samples] == [0, 1, 2, 3]  # the name is the spec's requests[step].name


@pytest.fixture
def second_build(tls_dir) -> Iterator[TargetProcess]:
    target = launch_target(tls_dir, "--no-h3")
    yield target
    target.stop()


@pytest.mark.parametrize("protocol", ["h1", "h2"])
def test_one_list_runs_against_two_builds_on_their_own_ports(target_server, second_build, protocol):
    pem = Path(target_server.ca_file).read_text()
    arms = [{"label": "build-a", "protocol": protocol, "endpoint": f"https://localhost:{target_server.tls_port}",
             "ca_bundle": pem},
            {"label": "build-b", "protocol": protocol, "endpoint": f"https://localhost:{second_build.tls_port}",
             "ca_bundle": pem}]
    spec = requests_spec(LIST, arms, repetitions=2)
    job = build_job(spec, run_id="r", block=0, attempt=1, target=UNUSED_TARGET)
    result = execute_job(job)
    validate(result, "result")
    assert result_problems(job, result) == []
    errors = [(s["arm"], s["error_class"], s["error_detail"]) for s in result["samples"] if s["error_class"]]
    assert errors == []
    measured = [s for s in result["samples"] if s["phase"] == "measure"]
    sizes = {(s["arm"], s["step"]): (s["req_bytes"], s["resp_bytes"]) for s in measured}
    for arm in ("build-a", "build-b"):
        assert sizes[arm, 0] == (9, 9)
        assert sizes[arm, 1] == (0, 2000)
        assert sizes[arm, 2] == (3, 3)
        assert sizes[arm, 3] == (3000, 3000)
    assert {s["alpn"] for s in measured} == {"h2" if protocol == "h2" else "http/1.1"}
    # Each arm really went to its own build: without build B, only build B's requests fail.
    second_build.stop()
    again = execute_job(build_job(spec, run_id="r", block=0, attempt=2, target=UNUSED_TARGET))
    failed = {s["arm"] for s in again["samples"] if s["error_class"] is not None}
    assert failed == {"build-b"}
