"""Multi-process target (--workers N, SO_REUSEPORT): ready line, every protocol served,
Alt-Svc pointing at the supervisor's h3, graceful SIGTERM, no orphans."""

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conditions import poll_until
from latencylab_tools.probe import Origin, ProbeRequest, open_session
from latencylab_tools.target import content

DEVICE_RUNNER = Path(__file__).resolve().parent.parent


def _start(tls_dir, *extra: str) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "latencylab_tools.target", "--host", "127.0.0.1", "--plain-port", "0",
         "--tls-port", "0", "--tls-dir", str(tls_dir.dir), *extra],
        stdout=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER,
    )
    line = proc.stdout.readline()
    assert line, f"target exited with {proc.wait(10)}"
    return proc, json.loads(line)


def _gone(pid: int, timeout: float = 10.0) -> bool:
    def exited() -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(") ", 1)[1].startswith("Z")  # exited, waiting to be reaped by init
        except FileNotFoundError:
            return True

    return bool(poll_until(exited, timeout))


def _stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_workers_serve_every_protocol_and_stop_on_sigterm(tls_dir):
    proc, ready = _start(tls_dir, "--workers", "3")
    try:
        assert ready["event"] == "ready"
        assert ready["workers"] == 3
        assert len(set(ready["worker_pids"])) == 3
        assert proc.pid not in ready["worker_pids"]
        assert ready["h3_port"] == ready["tls_port"]
        for pid in ready["worker_pids"]:
            with open(f"/proc/{pid}/stat") as f:
                assert int(f.read().split(") ", 1)[1].split()[1]) == proc.pid  # our children
        want = content.file_bytes("mid-03")
        for protocol in ("h1c", "h1", "h2", "grpc", "h3"):
            port = ready["plain_port"] if protocol == "h1c" else ready["tls_port"]
            origin = Origin("http" if protocol == "h1c" else "https", "127.0.0.1", port, "localhost")
            # Cold: a new connection per request, so the kernel spreads them over the workers.
            with open_session(protocol=protocol, connection="cold", origin=origin, ca_file=ready["ca_file"]) as s:
                for _ in range(6):
                    f = s.fetch(ProbeRequest("GET", "/files/mid-03"))
                    assert f["error_class"] is None, f
                    assert f["server_time_us"] is not None
                    assert s.last_body == want
        # Workers (which do not serve h3) advertise the supervisor's h3 port (to an h3 arm's request).
        import ssl

        ctx = ssl.create_default_context(cafile=ready["ca_file"])
        with socket.create_connection(("127.0.0.1", ready["tls_port"]), 5) as raw, \
                ctx.wrap_socket(raw, server_hostname="localhost") as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nLatencylab-Arm-Protocol: h3\r\n"
                      b"Connection: close\r\n\r\n")
            head = s.recv(2000).lower()
        assert f'alt-svc: h3=":{ready["tls_port"]}"'.encode() in head
    finally:
        assert _stop(proc) == 0
    for pid in ready["worker_pids"]:
        assert _gone(pid)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", ready["plain_port"]), timeout=1)


def test_workers_exit_when_supervisor_is_killed(tls_dir):
    proc, ready = _start(tls_dir, "--workers", "2", "--no-h3")
    proc.kill()
    proc.wait(10)
    for pid in ready["worker_pids"]:
        assert _gone(pid), f"worker {pid} outlived its supervisor"


def test_one_worker_is_the_single_process_server(tls_dir):
    proc, ready = _start(tls_dir, "--workers", "1")
    try:
        assert ready["workers"] == 1
        assert ready["worker_pids"] == [proc.pid]
        with socket.create_connection(("127.0.0.1", ready["plain_port"]), 5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert b"200 OK" in s.recv(1000)
    finally:
        assert _stop(proc) == 0


def test_fixed_port_in_use_fails_even_with_reuseport(tls_dir):
    proc, ready = _start(tls_dir, "--workers", "2", "--no-h3")
    try:
        other = subprocess.run(
            [sys.executable, "-m", "latencylab_tools.target", "--host", "127.0.0.1", "--plain-port",
             str(ready["plain_port"]), "--tls-port", "-1", "--tls-dir", str(tls_dir.dir), "--workers", "2"],
            capture_output=True, text=True, cwd=DEVICE_RUNNER, timeout=30,
        )
        assert other.returncode != 0
        assert "ready" not in other.stdout
    finally:
        assert _stop(proc) == 0


def test_tls_resumption_works_whichever_worker_answers(tls_dir):
    # Workers share the session-ticket keys: a ticket issued by one worker resumes on any.
    proc, ready = _start(tls_dir, "--workers", "3", "--no-h3")
    try:
        origin = Origin("https", "127.0.0.1", ready["tls_port"], "localhost")
        for protocol in ("h1", "h2"):
            with open_session(protocol=protocol, connection="resumed", origin=origin, ca_file=ready["ca_file"]) as s:
                samples = [s.fetch(ProbeRequest("GET", "/healthz")) for _ in range(12)]
            assert all(f["error_class"] is None for f in samples), samples
            assert samples[0]["tls_resumed"] is False
            assert all(f["tls_resumed"] is True for f in samples[1:]), [f["tls_resumed"] for f in samples]
    finally:
        assert _stop(proc) == 0
