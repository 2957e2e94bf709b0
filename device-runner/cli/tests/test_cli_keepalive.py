"""The CLI's HTTP client against a real gunicorn (gthread workers, its default 2 s keep-alive),
polling as `latencylab run --wait` does, every 2 s: a connection the server may have closed is
never reused, so no poll meets a closed connection and nothing is printed. Before, the pooled
connection was reused after exactly the server's keep-alive and a poll met the server's close
(RemoteProtocolError, ECONNRESET) several times a minute."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conditions import poll_until
from latencylab_cli.client import ApiClient


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


APP = '''
import json
def application(environ, start_response):
    body = json.dumps({"status": "queued", "progress": {}}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
'''
SERVER_KEEPALIVE_S = 2  # gunicorn's default
POLL_INTERVAL_S = 2.0  # the CLI's default --poll-interval
POLLS = 6


@pytest.fixture
def gunicorn(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "pollapp.py").write_text(APP)
    port = free_port()
    gunicorn_bin = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn_bin), "pollapp:application", "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
         "--workers", "1", "--threads", "4", "--keep-alive", str(SERVER_KEEPALIVE_S), "--log-level", "warning"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        def answers() -> bool:  # ready when it answers
            try:
                httpx.get(url + "/ready", timeout=2)
                return True
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                return False

        assert poll_until(answers, 60, every_s=0.1), "gunicorn did not start"
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_polls_across_the_servers_keepalive_meet_no_closed_connection(gunicorn: str) -> None:
    problems: list[str] = []
    connections: set[tuple[str, int]] = set()
    # retries=0: any connection problem is an error here, not a quiet retry.
    with ApiClient(gunicorn, "token", retries=0, warn=problems.append) as api:
        for _ in range(POLLS):
            # Each poll reads its detail twice, as --wait reads the comparison and then its looks.
            for _ in range(2):
                with api._send("GET", "/api/v1/comparisons/x", idempotent=True) as response:  # noqa: SLF001
                    response.read()
                    connections.add(response.extensions["network_stream"].get_extra_info("client_addr"))
            time.sleep(POLL_INTERVAL_S)  # the CLI's pause between polls: longer than the client keeps a connection
    assert problems == []
    # A poll's two requests share a connection; no connection outlives the pause after it.
    assert len(connections) == POLLS
