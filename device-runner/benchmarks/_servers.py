"""Start the target (own process) and nginx for the benchmarks. Loopback only."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from latencylab_tools.tls import TlsPaths, ensure_tls

DEVICE_RUNNER = Path(__file__).resolve().parent.parent


class Target:
    def __init__(self, tls: TlsPaths, *extra: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "latencylab_tools.target", "--plain-port", "0", "--tls-port", "0",
             "--tls-dir", str(tls.dir), *extra], stdout=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
        ready = json.loads(self.proc.stdout.readline())
        self.plain_port, self.tls_port, self.ca_file = ready["plain_port"], ready["tls_port"], ready["ca_file"]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    def __init__(self, tls: TlsPaths):
        from latencylab_tools.target import content

        self.dir = Path(tempfile.mkdtemp(prefix="ll-bench-nginx-"))
        self.dir.chmod(0o755)
        root = self.dir / "root"
        (root / "files").mkdir(parents=True)
        for name in content.file_sizes():
            (root / "files" / name).write_bytes(content.file_bytes(name))
        self.port = free_port()
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""
daemon off; worker_processes 1; pid {self.dir}/nginx.pid; error_log {self.dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{ access_log off; client_body_temp_path {self.dir}/body; proxy_temp_path {self.dir}/proxy;
  fastcgi_temp_path {self.dir}/fcgi; uwsgi_temp_path {self.dir}/uwsgi; scgi_temp_path {self.dir}/scgi;
  keepalive_requests 1000000; tcp_nodelay on;
  server {{ listen 127.0.0.1:{self.port} ssl http2; root {root};
    ssl_certificate {tls.server_cert}; ssl_certificate_key {tls.server_key}; }} }}
""")
        self.proc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(conf), "-p", str(self.dir),
                                      "-e", str(self.dir / "error.log")])
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            except OSError:
                time.sleep(0.02)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def bench_tls() -> TlsPaths:
    return ensure_tls(Path(tempfile.gettempdir()) / "latencylab-bench-tls")
