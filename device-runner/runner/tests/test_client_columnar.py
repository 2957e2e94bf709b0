"""The runner client sends a block's samples as columns by default (agent/client.py,
latencylab_contract.columnar), JSON when asked or when the batch has no columnar form; the
journal keeps the JSON form either way."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from latencylab_contract import columnar, contract_dir

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.journal import read_journal

BATCH = json.loads((contract_dir() / "examples" / "upload" / "batch.json").read_text())


class Recorder(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, takes_columns: bool = True) -> None:
        super().__init__(("127.0.0.1", 0), RecordingHandler)
        self.requests: list[tuple[str, str, bytes]] = []  # path, Content-Type, body
        self.takes_columns = takes_columns  # False: a backend from before the columnar body
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


class RecordingHandler(BaseHTTPRequestHandler):
    server: Recorder

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        content_type = self.headers["Content-Type"]
        self.server.requests.append((self.path, content_type, body))
        if content_type == columnar.MEDIA_TYPE and not self.server.takes_columns:
            # What DRF answers for a body no parser of the view takes (UnsupportedMediaType).
            answer = json.dumps({"detail": f'Unsupported media type "{content_type}" in request.'}).encode()
            status = 415
        else:
            answer = json.dumps({"stored": 4, "duplicate": False, "next_block": 1}).encode()
            status = 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder():
    server = Recorder()
    yield server
    server.shutdown()
    server.server_close()


def upload(recorder: Recorder, batch: dict[str, Any], **options: Any) -> tuple[str, bytes]:
    client = RunnerClient(recorder.url, "llr_test", retry_budget_s=0, **options)
    try:
        assert client.upload_block("run-1", batch) == {"stored": 4, "duplicate": False, "next_block": 1}
    finally:
        client.close()
    (path, content_type, body), = recorder.requests
    assert path == "/api/runner/v1/runs/run-1/samples"
    return content_type, body


def test_a_block_goes_as_columns_by_default_and_the_journal_keeps_json(recorder, tmp_path: Path):
    content_type, body = upload(recorder, BATCH, journal=tmp_path)
    assert content_type == columnar.MEDIA_TYPE
    assert body == (contract_dir() / "examples" / "upload" / "batch.llcol").read_bytes()
    assert columnar.decode(body) == BATCH
    journal, = read_journal(tmp_path)
    assert journal == {**{k: v for k, v in BATCH.items() if k != "lease_token"}, "run_id": "run-1"}


def test_json_when_asked(recorder):
    content_type, body = upload(recorder, BATCH, columnar=False)
    assert content_type == "application/json"
    assert json.loads(body) == BATCH


def test_a_batch_without_a_columnar_form_goes_as_json(recorder):
    batch = {**BATCH, "samples": [{**BATCH["samples"][0], "status": "200"}, *BATCH["samples"][1:]]}
    content_type, body = upload(recorder, batch)
    assert content_type == "application/json"
    assert json.loads(body) == batch


def test_a_backend_without_the_columnar_body_gets_the_block_again_as_json_and_json_after():
    older = Recorder(takes_columns=False)
    client = RunnerClient(older.url, "llr_test", retry_budget_s=0)
    try:
        assert client.upload_block("run-1", BATCH) == {"stored": 4, "duplicate": False, "next_block": 1}
        assert client.upload_block("run-1", {**BATCH, "block": 1, "batch_seq": 1})["stored"] == 4
    finally:
        client.close()
        older.shutdown()
        older.server_close()
    assert [content_type for _, content_type, _ in older.requests] == [
        columnar.MEDIA_TYPE, "application/json", "application/json"]
    assert json.loads(older.requests[1][2]) == BATCH
