"""Servers nobody here wrote, standing in for a customer's two builds: Debian's nginx
(HTTP/1.1 and HTTP/2 over TLS, with the echo module's `echo_sleep` for a delay endpoint)
and Caddy (HTTP/1.1, HTTP/2 and HTTP/3), each serving one static root from a private
directory on a free loopback port. Only their configuration is ours, as a customer's
would be."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conditions import poll_until

from .ports import free_port

ECHO_MODULE = Path("/usr/lib/nginx/modules/ngx_http_echo_module.so")


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path, timeout_s: float = 15.0) -> None:
    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            return False

    if not poll_until(listening, timeout_s):
        raise TimeoutError(f"port {port} not listening: {log.read_text()[-2000:]}")


@dataclass
class CustomerServer:
    name: str
    port: int
    protocols: tuple[str, ...]
    proc: subprocess.Popen[bytes]

    def endpoint(self) -> str:
        return f"https://localhost:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start_nginx(workdir: Path, root: Path, *, cert: Path, key: Path, delays_ms: Iterable[int] = ()) -> CustomerServer:
    """nginx on TLS (h1 + h2 by ALPN). `/slow/<ms>` answers after that many milliseconds for
    each of `delays_ms` (echo_sleep takes seconds, so the config maps each path to its value);
    `/api/ping` answers any method with "pong" (an API call that ignores its body)."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    delay_map = "\n".join(f"    /slow/{ms} {ms / 1000:.3f};" for ms in delays_ms)
    load_echo = f"load_module {ECHO_MODULE};" if delay_map else ""
    slow = (f"""    map $uri $slow_s {{\n    default 0;\n{delay_map}\n  }}""" if delay_map else "")
    slow_location = ("""location ~ ^/slow/\\d+$ { default_type text/plain; echo_sleep $slow_s; echo "slept"; }"""
                     if delay_map else "")
    conf = workdir / "nginx.conf"
    conf.write_text(f"""{load_echo}
daemon off; worker_processes 1; pid {workdir}/nginx.pid; error_log {workdir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off; default_type application/octet-stream; keepalive_requests 100000;
  client_body_temp_path {workdir}/body; proxy_temp_path {workdir}/proxy; fastcgi_temp_path {workdir}/fastcgi;
  uwsgi_temp_path {workdir}/uwsgi; scgi_temp_path {workdir}/scgi;
{slow}
  server {{
    listen 127.0.0.1:{port} ssl http2; root {root};
    ssl_certificate {cert}; ssl_certificate_key {key}; ssl_protocols TLSv1.2 TLSv1.3;
    {slow_location}
    location = /api/ping {{ default_type text/plain; return 200 "pong"; }}
  }}
}}
""")
    log = workdir / "error.log"
    proc = subprocess.Popen([binary, "-c", str(conf), "-p", str(workdir), "-e", str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_listening(port, proc, log)
    return CustomerServer("nginx", port, ("h1", "h2"), proc)


def start_caddy(workdir: Path, root: Path, *, cert: Path, key: Path) -> CustomerServer:
    """Caddy with h1, h2 and h3 (QUIC on the same port number, UDP), no admin endpoint,
    automatic HTTPS off (the certificate is the test CA's)."""
    binary = shutil.which("caddy")
    if binary is None:
        raise FileNotFoundError("caddy is not installed (apt-get install caddy)")
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = {
        "admin": {"disabled": True},
        "apps": {"http": {"servers": {"customer": {
            "listen": [f"127.0.0.1:{port}"], "protocols": ["h1", "h2", "h3"], "automatic_https": {"disable": True},
            "tls_connection_policies": [{}],
            "routes": [{"handle": [{"handler": "file_server", "root": str(root)}]}],
        }}}, "tls": {"certificates": {"load_files": [{"certificate": str(cert), "key": str(key)}]}}},
    }
    conf = workdir / "caddy.json"
    conf.write_text(json.dumps(config))
    log = workdir / "caddy.log"
    env = {"HOME": str(workdir), "XDG_DATA_HOME": str(workdir / "data"), "XDG_CONFIG_HOME": str(workdir / "config"),
           "PATH": "/usr/bin:/bin"}
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "run", "--config", str(conf)], stdout=out, stderr=out, env=env)
    _wait_listening(port, proc, log)
    return CustomerServer("caddy", port, ("h1", "h2", "h3"), proc)
