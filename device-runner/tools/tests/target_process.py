"""Real servers on free loopback ports and a fresh CA per test session: fixtures shared by the
tools' tests and the runner's (each package's conftest.py imports them from here)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conditions import poll_until
from latencylab_tools.tls import TlsPaths, ensure_tls

TOOLS = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def tls_dir(tmp_path_factory: pytest.TempPathFactory) -> TlsPaths:
    """A fresh private CA + server certificate, shared by every server of the session."""
    return ensure_tls(tmp_path_factory.mktemp("tls"))


@dataclass
class TargetProcess:
    host: str
    plain_port: int
    tls_port: int
    h3_port: int | None
    ca_file: Path
    process: subprocess.Popen[str]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def launch_target(tls: TlsPaths, *extra: str) -> TargetProcess:
    """Run the target CLI in its own process (own GIL: client timings stay honest)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "latencylab_tools.target", "--host", "127.0.0.1",
         "--plain-port", "0", "--tls-port", "0", "--tls-dir", str(tls.dir), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=TOOLS,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(5)
        raise RuntimeError(f"target did not start: {proc.stderr.read() if proc.stderr else ''}")
    ready = json.loads(line)
    return TargetProcess("127.0.0.1", ready["plain_port"], ready["tls_port"], ready["h3_port"],
                         Path(ready["ca_file"]), proc)


@pytest.fixture(scope="session")
def target_server(tls_dir: TlsPaths) -> Iterator[TargetProcess]:
    """The reference target (h1c, h1/h2/gRPC over TLS, h3) on free ports."""
    target = launch_target(tls_dir)
    yield target
    target.stop()


@pytest.fixture(scope="session")
def nagle_target(tls_dir: TlsPaths) -> Iterator[TargetProcess]:
    target = launch_target(tls_dir, "--nagle-trap", "--no-h3")
    yield target
    target.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Nginx:
    port: int  # TLS, h1 + h2 (ALPN)
    h1_only_port: int  # TLS, http/1.1 only: ALPN mismatch for an h2 arm
    plain_port: int
    root: Path


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  default_type application/octet-stream;
  keepalive_requests 100000;
  ssl_certificate {cert};
  ssl_certificate_key {key};
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_tickets on;
  server {{ listen 127.0.0.1:{port} ssl http2; root {root}; location = /healthz {{ return 200 "ok"; }} }}
  server {{ listen 127.0.0.1:{h1_port} ssl; root {root}; location = /healthz {{ return 200 "ok"; }} }}
  server {{ listen 127.0.0.1:{plain_port}; root {root}; location = /healthz {{ return 200 "ok"; }} }}
}}
"""


def _wait_port(port: int, timeout: float = 10.0) -> None:
    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            return False

    if not poll_until(listening, timeout, every_s=0.02):
        raise TimeoutError(f"port {port} not listening")


def start_nginx(tls: TlsPaths, workdir: Path) -> tuple[Nginx, subprocess.Popen[bytes]]:
    """Debian's nginx in a private dir, serving the target's files under /files/."""
    from latencylab_tools.target import content

    root = workdir / "root"
    (root / "files").mkdir(parents=True, exist_ok=True)
    for name in content.file_sizes():
        (root / "files" / name).write_bytes(content.file_bytes(name))
    nginx = Nginx(free_port(), free_port(), free_port(), root)
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=workdir, cert=tls.server_cert, key=tls.server_key, port=nginx.port,
                                      h1_port=nginx.h1_only_port, plain_port=nginx.plain_port, root=root))
    proc = subprocess.Popen([_nginx_binary(), "-c", str(conf), "-p", str(workdir), "-e", str(workdir / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for port in (nginx.port, nginx.h1_only_port, nginx.plain_port):
        _wait_port(port)
    return nginx, proc


def _nginx_binary() -> str:
    return shutil.which("nginx") or "/usr/sbin/nginx"


@pytest.fixture(scope="session")
def nginx_server(tls_dir: TlsPaths) -> Iterator[Nginx]:
    if not os.path.exists(_nginx_binary()):
        pytest.skip("nginx not installed")
    workdir = Path(tempfile.mkdtemp(prefix="ll-nginx-"))
    workdir.chmod(0o755)  # nginx workers run as an unprivileged user and must read root/
    nginx, proc = start_nginx(tls_dir, workdir)
    yield nginx
    proc.terminate()
    proc.wait(10)
    shutil.rmtree(workdir, ignore_errors=True)
