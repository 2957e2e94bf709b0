"""The whole stack as `make up` runs it, for benchmarks that measure through the real web
server: `infra/bin/stack.py up` in a temporary directory (PostgreSQL, Redis, gunicorn with
the production worker settings, Celery worker and beat, the target server and an idle host
runner long-polling for work), this process's Django pointed at its database, and `down`
at the end. Run from backend/.
"""

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[2]
STACK = [sys.executable, str(REPO / "infra" / "bin" / "stack.py")]


@contextmanager
def running_stack(name: str) -> Iterator[dict]:
    """Yields stack.py's state (ports, "web", "api_token"); Django is set up on its database."""
    (REPO / "var").mkdir(exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix=f"bench-{name}-", dir=REPO / "var"))
    try:
        up = subprocess.run([*STACK, "up", "--dir", str(base), "--ports", "auto", "--no-demo"],
                            capture_output=True, text=True)
        if up.returncode:
            raise RuntimeError(f"stack.py up failed:\n{up.stdout[-2000:]}\n{up.stderr[-2000:]}")
        state = json.loads(subprocess.run([*STACK, "env", "--dir", str(base)], check=True, capture_output=True,
                                          text=True).stdout)
        os.environ.update(state["env"])
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
        import django

        django.setup()
        yield state
    finally:
        subprocess.run([*STACK, "down", "--dir", str(base)], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


class Http:
    """One keep-alive HTTP/1.1 connection to the web server, as a client that reuses it."""

    def __init__(self, base_url: str, authorization: str, headers: dict[str, str] | None = None):
        parts = urlsplit(base_url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
        self.headers = {"Authorization": authorization, "Accept": "application/json", **(headers or {})}

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str = "application/json") -> tuple[int, bytes, float]:
        """(status, body, seconds from sending to the last byte read)."""
        headers = dict(self.headers)
        if body is not None:
            headers["Content-Type"] = content_type
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # gunicorn closes a keep-alive connection idle for 2 s; the request was not taken.
            self.connection.close()
            start = time.perf_counter()
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
        data = response.read()
        return response.status, data, time.perf_counter() - start

    def close(self) -> None:
        self.connection.close()


def percentiles(seconds: list[float]) -> dict[str, float]:
    """p50, p95, p99 in ms (nearest rank)."""
    ordered = sorted(seconds)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered))) - 1))] * 1000

    return {"p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99)}
