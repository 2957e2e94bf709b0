"""A secret end to end: created through the API, referenced in a spec's header, run by the
real runner agent with the host probe, received by the server it was meant for — and
nowhere else: not in any API response, the CSV and JSON exports, the webhook delivery
(stored and received), the runner's uploads, nor any log line of the backend, the Celery
worker or the agent.

The reference target does not record headers, so the request that carries the secret goes
to a small recording server on loopback (a customer's absolute URL, allowed in a private
pool); the other requests go to the reference target as usual."""

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker

from apps.comparisons.models import Comparison, Run
from apps.devices.services import runner_register
from apps.webhooks.models import WebhookDelivery
from apps.webhooks.tests.receiver import Receiver
from config.celery import app as celery_app
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.main import Agent
from latencylab_runner.drivers.host import HostDriver
from latencylab_runner.drivers.targets import ReferenceTarget
from testing.waiting import wait_for

SECRET = "Bearer sk-live-Zq8wX3vN5tR7yP1m"


class HeaderRecorder:
    """HTTP/1.1 on 127.0.0.1 that remembers each request's headers and answers 200 `ok`."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                recorder.headers.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class LogLines(logging.Handler):
    """Every log record of this process (backend, Celery worker, agent), at DEBUG."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self._level = logging.getLogger().level
        self.attach()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def attach(self) -> None:
        root = logging.getLogger()
        root.setLevel(logging.DEBUG)
        if self not in root.handlers:
            root.addHandler(self)
        # Earlier tests in the same process may have configured logging (Celery's worker, Django's
        # dictConfig): loggers they disabled or stopped propagating would hide lines from the root.
        # Celery's worker setup also gives its loggers levels of their own (ERROR under start_worker).
        self._changed: list[tuple[logging.Logger, bool, bool, int]] = []
        for logger in list(logging.root.manager.loggerDict.values()):
            if isinstance(logger, logging.Logger) and (logger.disabled or not logger.propagate or logger.level):
                self._changed.append((logger, logger.disabled, logger.propagate, logger.level))
                logger.disabled, logger.propagate = False, True
                logger.setLevel(logging.NOTSET)

    def detach(self) -> None:
        if self in logging.getLogger().handlers:
            logging.getLogger().removeHandler(self)
            logging.getLogger().setLevel(self._level)
        for logger, disabled, propagate, level in getattr(self, "_changed", []):
            logger.disabled, logger.propagate = disabled, propagate
            logger.setLevel(level)

    def text(self) -> str:
        return "\n".join(self.lines)


class UploadSpy:
    """The runner client, recording what it sends (uploads, finish reports)."""

    def __init__(self, client: RunnerClient) -> None:
        self._client = client
        self.sent: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name not in ("upload_block", "finish", "upload_artifact"):
            return attribute

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.sent.append(json.dumps([args, kwargs], default=str))
            return attribute(*args, **kwargs)

        return recorded


@pytest.mark.django_db(transaction=True)
def test_a_secret_reaches_its_server_and_nothing_else(live_server, api, org, pool, target, request):
    logs = LogLines()
    request.addfinalizer(logs.detach)
    responses: list[bytes] = []

    def keep(response: Any) -> Any:
        responses.append(response.content if hasattr(response, "content") else b"".join(response.streaming_content))
        return response

    assert keep(api.post("/api/v1/secrets", {"name": "API_TOKEN", "value": SECRET}, format="json")).status_code == 201
    recorder = HeaderRecorder()
    with Receiver() as hooks:
        hook = keep(api.post("/api/v1/webhooks", {"url": hooks.url, "events": ["comparison.finished"]},
                             format="json"))
        assert hook.status_code == 201, hook.content
        hooks.secret = hook.json()["secret"]
        spec = {
            "name": "secret in a header",
            "workload": {"kind": "requests", "repetitions": 2, "warmup": 0, "requests": [
                {"name": "public", "path": "/bytes/100"},
                {"name": "private", "url": f"http://127.0.0.1:{recorder.port}/v1/me",
                 "headers": {"Authorization": "{{secret.API_TOKEN}}", "X-Trace": "t-{{secret.API_TOKEN}}-1"}},
            ]},
            "arms": [{"label": "warm", "protocol": "h1c"}, {"label": "cold", "protocol": "h1c", "connection": "cold"}],
            "blocks": 2,
            "seed": 5,
        }
        created = keep(api.post("/api/v1/comparisons", spec, format="json"))
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        _, token = runner_register(pool=pool, name="secret-runner")
        client = UploadSpy(RunnerClient(live_server.url, token))
        reference = ReferenceTarget("127.0.0.1", target.plain_port, target.tls_port, "localhost", target.ca_file)
        agent = Agent(client, name="secret-runner", serial="host-secret", driver=HostDriver(reference),  # type: ignore[arg-type]
                      heartbeat_interval_s=1)
        with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            logs.attach()  # again: the worker's logging set-up replaced the root logger's handlers
            thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 1}, daemon=True)
            thread.start()
            finished = wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 120)
            delivered = wait_for(lambda: bool(hooks.received), 30)
            agent.drain()
            thread.join(30)
        client.close()
    recorder.close()
    comparison = Comparison.objects.get(pk=comparison_id)
    assert finished, (comparison.status, list(comparison.runs.values("status", "error")))
    assert comparison.status == "finished", (comparison.status, list(comparison.runs.values("status", "error")))

    # The server it was meant for got it, substituted, on every request of both arms.
    assert len(recorder.headers) >= 2 * 2  # both arms, every repetition
    assert {h["authorization"] for h in recorder.headers} == {SECRET}
    assert {h["x-trace"] for h in recorder.headers} == {f"t-{SECRET}-1"}
    assert "{{secret" not in json.dumps(recorder.headers)

    # Everything a user, a CI job or a webhook receiver can read.
    base = f"/api/v1/comparisons/{comparison_id}"
    run = Run.objects.get(comparison_id=comparison_id)
    for path in ("/api/v1/comparisons", base, f"{base}/results", f"{base}/verdict", f"{base}/verdict/history",
                 f"{base}/samples.csv", f"{base}/samples.json", f"{base}/runs/{run.id}/artifacts", "/api/v1/devices",
                 "/api/v1/secrets", "/api/v1/webhooks", "/api/schema/"):
        response = keep(api.get(path))
        assert response.status_code == 200, (path, response.status_code)
    csv = api.get(f"{base}/samples.csv")
    assert b"".join(csv.streaming_content if csv.streaming else [csv.content]).count(b"\n") > 8
    assert b"{{secret.API_TOKEN}}" in api.get(base).content  # the spec as stored: the placeholder only
    assert delivered, "the webhook was not delivered"
    stored_deliveries = json.dumps(list(WebhookDelivery.objects.values_list("payload", flat=True)))
    received = json.dumps(hooks.received)
    run_rows = json.dumps(list(Run.objects.filter(comparison_id=comparison_id).values()), default=str)

    for where, text in (("API responses", b"\n".join(responses).decode("utf-8", "replace")),
                        ("webhook deliveries (stored)", stored_deliveries), ("webhook (received)", received),
                        ("runner uploads and finish", "\n".join(client.sent)), ("runs", run_rows),
                        ("logs", logs.text())):
        assert SECRET not in text, where
        assert "sk-live-Zq8wX3vN5tR7yP1m" not in text, where
    # The logs searched are the agent's, the worker's and the backend's, at DEBUG.
    text = logs.text()
    assert "leased run" in text
    # The worker's own loggers are captured (which of its INFO lines appear depends on the first
    # worker this process started: Celery decides that once).
    assert any(line.startswith("celery.") for line in logs.lines)
    assert "block 2/2 stored" in text
