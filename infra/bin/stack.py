#!/usr/bin/env python3
"""Runs the whole LatencyLab service on one machine without Docker.

    stack.py up   [--dir var/dev] [--web-port 8000] [--no-demo] [--demo-lab]
                                                                   start everything, submit the demo
    stack.py demo [--dir var/dev]                                  submit the demo comparison again
    stack.py down [--dir var/dev]                                  stop everything `up` started
    stack.py env  [--dir var/dev]                                  print the environment of a running stack
    stack.py kill  NAME [--dir var/dev]                            SIGKILL one process (web, worker, beat, target,
                                                                   runner)
    stack.py start NAME [--dir var/dev]                            start that process again

Processes: PostgreSQL and Redis (infra/bin/services.py), the web server (gunicorn),
a Celery worker and beat, the reference target server and one host runner agent. Each
has a pid file and a log in <dir>/; `up` is idempotent: what already runs is kept.
`--ports auto` picks free ports (the test suite uses this to run beside a dev stack).

`--demo-lab` adds a device lab whose phones are FAKES (the browser end-to-end test uses
it; `make up` does not): the runner package's phone simulator (`latencylab-phone-simulator`,
device-runner/runner/latencylab_runner/phone_simulator) serves a fake "Pixel 8" and a
fake "iPhone 15 Pro" to the real adb client through a fake adb server, and fake fastlane
lanes run the real Kotlin harness core on the JVM in place of the phones' harness apps —
real measurements of the reference target, from this machine, not from a phone. The lab
is enrolled like a real one (an enrollment token, `latencylab-runner register`, then
`latencylab-runner run`) as runner `demo-lab-fake-phones` in the `local` pool, so one
comparison can run on the host and on both "phones".
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from demo_spec import demo_spec

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"
PY = str(VENV_BIN / "python")
BACKEND = REPO / "backend"
DEMO_USER, DEMO_PASSWORD, DEMO_ORG = "demo", "demo-latencylab", "demo"
DEFAULT_PORTS = {"web": 8000, "pg": 54320, "redis": 63790, "target_plain": 8080, "target_tls": 8443}
PHONE_SIMULATOR = str(VENV_BIN / "latencylab-phone-simulator")
HARNESS_JAR = REPO / "device-runner" / "harness" / "android" / "core" / "target" / "harness-core.jar"
DEMO_LAB_RUNNER = "demo-lab-fake-phones"
# Serials and names that say what these are wherever they show (Devices page, run pages).
DEMO_LAB_PHONES = {
    "android": [{"serial": "FAKE-PIXEL-8", "model": "Pixel 8 (fake)"}],
    "ios": [{"udid": "FAKE-IPHONE-15-PRO", "device_name": "Fake iPhone 15 Pro (JVM harness stand-in)"}],
}



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.3):
            return True
    except OSError:
        return False


class Stack:
    def __init__(self, base: Path):
        self.base = base.resolve()
        self.logs = self.base / "logs"
        self.pids = self.base / "pids"
        self.secrets = self.base / "secrets"
        self.state_file = self.base / "stack.json"

    # -- state ---------------------------------------------------------------------------
    def load_state(self) -> dict:
        return json.loads(self.state_file.read_text()) if self.state_file.exists() else {}

    def save_state(self, state: dict) -> None:
        self.state_file.write_text(json.dumps(state, indent=1))

    def env(self, state: dict) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings.base",
                "LATENCYLAB_DB_HOST": "127.0.0.1",
                "LATENCYLAB_DB_PORT": str(state["ports"]["pg"]),
                "LATENCYLAB_REDIS_URL": f"redis://127.0.0.1:{state['ports']['redis']}/0",
                "LATENCYLAB_ALLOWED_HOSTS": "127.0.0.1,localhost",
                "LATENCYLAB_SECRET_KEY": self.secret("django-secret-key"),
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env

    def secret(self, name: str, value: str | None = None) -> str:
        """Secrets live in <dir>/secrets (mode 0600), never in the repository."""
        self.secrets.mkdir(parents=True, exist_ok=True)
        path = self.secrets / name
        if value is not None:
            path.write_text(value)
            path.chmod(0o600)
        elif not path.exists():
            import secrets as _secrets

            path.write_text(_secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip()

    # -- processes -----------------------------------------------------------------------
    def alive(self, name: str) -> bool:
        pidfile = self.pids / f"{name}.pid"
        if not pidfile.exists():
            return False
        try:
            os.kill(int(pidfile.read_text()), 0)
            return True
        except (ProcessLookupError, ValueError):
            return False

    def spawn(self, name: str, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        if self.alive(name):
            print(f"  {name}: already running")
            return
        self.logs.mkdir(parents=True, exist_ok=True)
        self.pids.mkdir(parents=True, exist_ok=True)
        log = open(self.logs / f"{name}.log", "ab")
        # A new session per process, so `down` can stop each with its children.
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        (self.pids / f"{name}.pid").write_text(str(proc.pid))
        print(f"  {name}: started (pid {proc.pid}, log {self.logs / (name + '.log')})")

    def stop(self, *names: str) -> None:
        """SIGTERM to each process group at once, then each waited for (SIGKILL after 10 s): each
        takes seconds to shut down gracefully, and stopping them one after the other added those up."""
        running = {}
        for name in names:
            pidfile = self.pids / f"{name}.pid"
            if not pidfile.exists():
                continue
            pid = int(pidfile.read_text())
            try:
                os.killpg(pid, signal.SIGTERM)
                running[name] = pid
            except ProcessLookupError:
                pidfile.unlink(missing_ok=True)
                print(f"  {name}: stopped")
        deadline = time.monotonic() + 10
        for name, pid in running.items():
            try:
                while time.monotonic() < deadline:
                    os.kill(pid, 0)
                    time.sleep(0.1)
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            (self.pids / f"{name}.pid").unlink(missing_ok=True)
            print(f"  {name}: stopped")

    # -- steps ---------------------------------------------------------------------------
    def manage(self, state: dict, *args: str) -> str:
        out = subprocess.run([PY, "manage.py", *args], cwd=BACKEND, env=self.env(state), capture_output=True,
                             text=True)
        if out.returncode != 0:
            sys.exit(f"manage.py {args[0]} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
        return out.stdout

    def wait_http(self, url: str, what: str, timeout_s: float = 180, proc_name: str | None = None) -> None:
        # A bound, not an expectation: on a loaded two-core machine (make test runs suites side
        # by side) gunicorn's workers may take a minute to import Django.
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=10):
                    return
            except urllib.error.HTTPError:
                return  # it answers
            except (urllib.error.URLError, OSError):
                if proc_name and not self.alive(proc_name):
                    break
                time.sleep(0.3)
        log = self.logs / f"{proc_name}.log" if proc_name else None
        tail = log.read_text()[-3000:] if log and log.exists() else ""
        sys.exit(f"{what} did not come up at {url}\n{tail}")

    def up(self, *, ports_mode: str, web_port: int | None, demo: bool, demo_lab: bool = False) -> dict:
        self.base.mkdir(parents=True, exist_ok=True)
        state = self.load_state()
        if not state.get("ports") or not self.any_alive():
            if ports_mode == "auto":
                ports = {name: free_port() for name in DEFAULT_PORTS}
            else:
                ports = dict(DEFAULT_PORTS)
            if web_port:
                ports["web"] = web_port
            state = {"ports": ports}
            self.save_state(state)
        ports = state["ports"]
        print(f"LatencyLab stack in {self.base}")
        services = subprocess.run([sys.executable, str(REPO / "infra/bin/services.py"), "start", "--dir",
                                   str(self.base), "--pg-port", str(ports["pg"]), "--redis-port", str(ports["redis"])],
                                  capture_output=True, text=True)
        if services.returncode != 0:
            sys.exit(f"PostgreSQL and Redis did not start in {self.base}:\n{services.stderr.strip()}")
        started = services.stdout
        # Servers left running from an earlier `up` keep their ports: use what they report.
        actual = dict(line.split("=", 1) for line in started.split())
        ports["pg"] = int(actual["LATENCYLAB_DB_PORT"])
        ports["redis"] = int(actual["LATENCYLAB_REDIS_URL"].rsplit(":", 1)[1].split("/")[0])
        self.save_state(state)
        print(f"  postgres: 127.0.0.1:{ports['pg']}   redis: 127.0.0.1:{ports['redis']}")
        self.manage(state, "migrate", "--noinput")
        # Kept across `up`s, so a running agent's token stays valid.
        runner_token = self.secret("runner.token")
        boot = json.loads(self.manage(state, "bootstrap_demo", "--username", DEMO_USER, "--password", DEMO_PASSWORD,
                                      # "=": a token may begin with "-", which argparse takes for an option.
                                      "--org", DEMO_ORG, f"--runner-token={runner_token}"))
        env = self.env(state)
        tls_dir = self.base / "tls"
        subprocess.run([PY, "-c", "from latencylab_tools.tls import ensure_tls; "
                                  f"ensure_tls(__import__('pathlib').Path({str(tls_dir)!r}))"],
                       check=True)
        web = f"http://127.0.0.1:{ports['web']}"
        state["runner_name"] = boot["runner"]
        for name in ("web", "worker", "beat", "target"):
            self.start_process(state, name)
        self.wait_http(f"{web}/api/v1/auth/csrf", "the web server", proc_name="web")
        self.start_process(state, "runner")
        state["web"] = web
        state["api_token"] = self.api_token(state)
        self.save_state(state)
        if demo_lab:
            self.demo_lab(state, env, tls_dir)
        if demo:
            self.demo(state)
        return state

    def commands(self, state: dict) -> dict[str, tuple[list[str], dict[str, str], Path]]:
        """How each of the stack's own processes is started: argv, environment, directory."""
        ports, env = state["ports"], self.env(state)
        tls_dir = self.base / "tls"
        return {
            "web": ([str(VENV_BIN / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{ports['web']}",
                     "--worker-class", "gthread", "--workers", "2", "--threads", "16", "--timeout", "90",
                     # No control socket: gunicorn puts it at one path per user (~/.gunicorn), so
                     # stacks side by side (tests, benchmarks) would take it from each other.
                     "--graceful-timeout", "5", "--no-control-socket"],
                    {**env, "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir)}, BACKEND),
            "worker": ([str(VENV_BIN / "celery"), "-A", "config", "worker", "--concurrency", "2", "--loglevel", "INFO",
                        "--hostname", f"worker-{ports['web']}@%h"], env, BACKEND),
            "beat": ([str(VENV_BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO",
                      "--schedule", str(self.base / "celerybeat-schedule")], env, BACKEND),
            "target": ([PY, "-m", "latencylab_tools.target", "--host", "127.0.0.1",
                        "--plain-port", str(ports["target_plain"]), "--tls-port", str(ports["target_tls"]),
                        "--tls-dir", str(tls_dir)], env, REPO),
            "runner": ([PY, "-m", "latencylab_runner.agent", "--server", f"http://127.0.0.1:{ports['web']}",
                        f"--token={self.secret('runner.token')}", "--name", state["runner_name"],
                        "--target-host", "127.0.0.1", "--target-plain-port", str(ports["target_plain"]),
                        "--target-tls-port", str(ports["target_tls"]), "--target-server-name", "localhost",
                        "--ca-file", str(tls_dir / "ca.pem")], env, REPO),
        }

    @property
    def metrics_dir(self) -> Path:
        """gunicorn's workers write their HTTP metrics here and a /metrics scrape sums them
        (prometheus_client's multiprocess mode)."""
        return self.base / "prometheus"

    def start_process(self, state: dict, name: str) -> None:
        if name == "web" and not self.alive("web"):
            # Emptied per start of the web server, as prometheus_client's docs require.
            shutil.rmtree(self.metrics_dir, ignore_errors=True)
            self.metrics_dir.mkdir()
        argv, env, cwd = self.commands(state)[name]
        self.spawn(name, argv, env, cwd)

    def kill(self, name: str) -> None:
        """SIGKILL, no goodbye (what the fault tests do to a process); `start NAME` brings it back."""
        pidfile = self.pids / f"{name}.pid"
        if not pidfile.exists():
            sys.exit(f"{name} is not running")
        pid = int(pidfile.read_text())
        try:
            os.killpg(pid, signal.SIGKILL)
            while True:  # gone (and its port free) before we return
                os.kill(pid, 0)
                time.sleep(0.05)
        except ProcessLookupError:
            pass
        pidfile.unlink(missing_ok=True)
        print(f"  {name}: killed")

    def any_alive(self) -> bool:
        return any(self.alive(name) for name in ("web", "worker", "beat", "target", "runner", "demo-lab",
                                                 "demo-lab-runner"))

    # -- the demo lab: fake phones ------------------------------------------------------
    def demo_lab(self, state: dict, env: dict[str, str], tls_dir: Path) -> None:
        """The fake lab process and its runner, enrolled once like a real lab host."""
        if not HARNESS_JAR.is_file():
            sys.exit(f"--demo-lab: the fake phones run the Kotlin harness core, and {HARNESS_JAR} is not built:\n"
                     "  cd device-runner/harness/android/core && mvn -B -q -ntp package -DskipTests")
        lab_dir = self.base / "demo-lab"
        ready_file = lab_dir / "ready.json"
        if self.alive("demo-lab") and self.alive("demo-lab-runner") and ready_file.exists():
            print("  demo-lab: already running")
            return
        # The runner's environment names the lab's adb server: both start together.
        self.stop("demo-lab-runner")
        self.stop("demo-lab")
        lab_dir.mkdir(parents=True, exist_ok=True)
        ready_file.unlink(missing_ok=True)
        self.spawn("demo-lab", [PHONE_SIMULATOR, "serve", "--dir", str(lab_dir), "--phones",
                                json.dumps(DEMO_LAB_PHONES), "--require-harness", "--ready-file", str(ready_file)],
                   env, REPO)
        deadline = time.monotonic() + 30
        while not ready_file.exists():
            if not self.alive("demo-lab") or time.monotonic() > deadline:
                log = self.logs / "demo-lab.log"
                sys.exit(f"the demo lab did not start\n{log.read_text()[-3000:] if log.exists() else ''}")
            time.sleep(0.1)
        lab = json.loads(ready_file.read_text())
        config = lab_dir / "runner.json"
        if not config.exists():
            self.enroll_demo_lab(state, config)
        document = json.loads(config.read_text())
        document.update({**lab["runner_settings"], "target": {
            "host": "127.0.0.1", "plain_port": state["ports"]["target_plain"],
            "tls_port": state["ports"]["target_tls"], "server_name": "localhost", "ca_file": str(tls_dir / "ca.pem"),
            # Judged against the CA the fake phones' JVM harness trusts (docs/device-lab.md §4).
            "cert_file": str(tls_dir / "server.pem"), "key_file": str(tls_dir / "server.key"),
            "trust_store": str(tls_dir / "ca.pem")}})
        config.write_text(json.dumps(document, indent=2))  # the file keeps its 0600 mode
        self.spawn("demo-lab-runner", [str(VENV_BIN / "latencylab-runner"), "run", "--config", str(config)],
                   {**env, **lab["env"]}, REPO)

    def enroll_demo_lab(self, state: dict, config: Path) -> None:
        """As a lab would: an enrollment token for the local pool, then `latencylab-runner register`."""
        request = urllib.request.Request(
            f"{state['web']}/api/v1/pools/local/enrollment-tokens", method="POST",
            data=json.dumps({"name": "demo lab (fake phones)", "expires_in_days": 1}).encode(),
            headers={"Authorization": f"Bearer {state['api_token']}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            enrollment = json.load(response)["token"]
        subprocess.run([str(VENV_BIN / "latencylab-runner"), "register", "--server", state["web"],
                        f"--token={enrollment}", "--name", DEMO_LAB_RUNNER, "--drivers", "android,ios",
                        "--config", str(config)],
                       check=True)

    def api_token(self, state: dict) -> str:
        existing = (self.secrets / "api.token")
        if existing.exists():
            request = urllib.request.Request(f"{state['web']}/api/v1/auth/me",
                                             headers={"Authorization": f"Bearer {existing.read_text().strip()}"})
            try:
                with urllib.request.urlopen(request, timeout=10):
                    return existing.read_text().strip()
            except (urllib.error.URLError, OSError):
                pass
        token = self.manage(state, "mint_api_token", "--org", DEMO_ORG, "--name", "demo").strip()
        return self.secret("api.token", token)

    def emulation_unavailable(self) -> str | None:
        """Why the stack's runner (this user, this host) cannot emulate a link; None when it can."""
        out = subprocess.run([PY, "-c", "from latencylab_tools.netlab import emulation_unavailable; "
                                        "print(emulation_unavailable() or '')"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            return f"the check failed: {out.stderr.strip()[-300:]}"
        return out.stdout.strip() or None

    def demo(self, state: dict) -> dict:
        unavailable = self.emulation_unavailable()
        if unavailable:
            print(f"  demo: on loopback ({unavailable})")
        request = urllib.request.Request(
            f"{state['web']}/api/v1/comparisons", data=json.dumps(demo_spec(unavailable)).encode(), method="POST",
            headers={"Authorization": f"Bearer {state['api_token']}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            comparison = json.load(response)
        print(f"\nDemo comparison submitted: {comparison['name']}\n  {state['web']}/comparisons/{comparison['id']}")
        return comparison

    def down(self) -> None:
        # The runners first: a draining runner still reports its run in progress to the web server.
        self.stop("demo-lab-runner", "runner")
        self.stop("demo-lab", "target", "beat", "worker", "web")
        subprocess.run([sys.executable, str(REPO / "infra/bin/services.py"), "stop", "--dir", str(self.base)])
        print("  postgres, redis: stopped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["up", "down", "demo", "env", "kill", "start"])
    parser.add_argument("process", nargs="?", choices=["web", "worker", "beat", "target", "runner"],
                        help="for kill and start")
    parser.add_argument("--dir", default=str(REPO / "var" / "dev"), type=Path)
    parser.add_argument("--ports", choices=["default", "auto"], default="default")
    parser.add_argument("--web-port", type=int, default=None)
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--demo-lab", action="store_true",
                        help="also start a lab of FAKE phones (JVM harness stand-in); for the browser tests")
    args = parser.parse_args()
    stack = Stack(args.dir)
    if args.action == "up":
        state = stack.up(ports_mode=args.ports, web_port=args.web_port, demo=not args.no_demo,
                         demo_lab=args.demo_lab)
        print(
            f"\nLatencyLab is running.\n"
            f"  Dashboard:  {state['web']}/\n"
            f"  Login:      {DEMO_USER} / {DEMO_PASSWORD}\n"
            f"  API token:  {state['api_token']}\n"
            f"  API docs:   {state['web']}/api/docs/\n"
            f"  Try:        curl -H 'Authorization: Bearer {state['api_token']}' {state['web']}/api/v1/comparisons\n"
            f"  Stop with:  make down"
        )
    elif args.action == "demo":
        state = stack.load_state()
        if not state.get("web") or not stack.alive("web"):
            sys.exit("The stack is not running: run `make up` first.")
        stack.demo(state)
    elif args.action in ("kill", "start"):
        if not args.process:
            parser.error(f"{args.action} needs the process: web, worker, beat, target or runner")
        if args.action == "kill":
            stack.kill(args.process)
        else:
            stack.start_process(stack.load_state(), args.process)
    elif args.action == "env":
        state = stack.load_state()
        print(json.dumps({**state, "env": {k: v for k, v in stack.env(state).items() if k.startswith("LATENCYLAB_")}}))
    else:
        stack.down()


if __name__ == "__main__":
    main()
