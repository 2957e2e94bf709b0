"""The device farm on one machine, for tests that drive the whole path: a fake lab process
(`latencylab-phone-simulator`, the runner package's phone simulator — a simulated adb server
and the phones of a scenario, whose harness is the real Kotlin core on the JVM) and the real runner command line
(`latencylab-runner register`, then `latencylab-runner run`) as a lab host runs it.

The fakes stand in only for what cannot exist here (phones, adb's server side, usbmuxd,
the fastlane gem); the adb client, the agent, the harness core, the reference target and
the service are real. Without the harness jar the lab refuses to start and the test
fails with the reason: `make test` builds the jar (harness-android) before this suite."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

PHONE_SIMULATOR = str(Path(sys.executable).with_name("latencylab-phone-simulator"))
RUNNER_CLI = str(Path(sys.executable).with_name("latencylab-runner"))


class LabError(RuntimeError):
    pass


class FakeLab:
    """`with FakeLab(dir, {"android": [...], "ios": [...]}) as lab:` — phones described by
    the keyword arguments of the simulator's scenario.android_device / ios_device."""

    def __init__(self, directory: Path, phones: dict[str, Any]):
        self.directory = directory
        self.phones = phones
        self.process: subprocess.Popen[str] | None = None
        self.ready: dict[str, Any] = {}

    def __enter__(self) -> "FakeLab":
        self.directory.mkdir(parents=True, exist_ok=True)
        errors = open(self.directory / "lab.stderr", "w")  # noqa: SIM115 — the process outlives this call
        self.process = subprocess.Popen(
            [PHONE_SIMULATOR, "serve", "--dir", str(self.directory), "--phones", json.dumps(self.phones),
             "--require-harness"], stdout=subprocess.PIPE, stderr=errors, text=True)
        errors.close()
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(120)
            raise LabError(f"the fake lab did not start: {(self.directory / 'lab.stderr').read_text().strip()}")
        self.ready = json.loads(line)
        return self

    def __exit__(self, *_: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            # Only a hang ends this wait: under a loaded two-core CI machine the simulator's exit
            # (its adb server's threads, the harness processes it kills) took over 10 s once.
            self.process.wait(120)

    @property
    def env(self) -> dict[str, str]:
        """What the runner (and every tool and lane it starts) needs to see these phones."""
        return self.ready["env"]

    @property
    def runner_settings(self) -> dict[str, Any]:
        return self.ready["runner_settings"]

    def set(self, phones: dict[str, Any]) -> None:
        """Plug and unplug: the phones attached are now these (fresh, as when plugged in)."""
        done = subprocess.run([PHONE_SIMULATOR, "set", "--scenario", self.ready["scenario"],
                               "--phones", json.dumps(phones)], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise LabError(f"latencylab-phone-simulator set: {done.stderr.strip()}")


def runner_register(*, server: str, enrollment_token: str, name: str, config: Path,
                    drivers: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RUNNER_CLI, "register", "--server", server, "--token", enrollment_token, "--name", name,
                           "--drivers", drivers, "--config", str(config)], capture_output=True, text=True, timeout=60)


def runner_configure(config: Path, settings: dict[str, Any]) -> None:
    """Add the lab's settings to the config `register` wrote, as the guide tells a lab to
    (docs/device-lab.md §5); the file keeps its 0600 mode (rewritten in place)."""
    document = json.loads(config.read_text())
    document.update(settings)
    with open(config, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)


class RunnerProcess:
    """`latencylab-runner run --config …` with the lab's environment; stopped with SIGTERM
    (it drains, then exits 0)."""

    def __init__(self, config: Path, env: dict[str, str], log: Path):
        self.log = log
        with open(log, "w") as out:
            self.process = subprocess.Popen([RUNNER_CLI, "run", "--config", str(config)], stdout=out,
                                            stderr=subprocess.STDOUT, env={**os.environ, **env})

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout_s: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""
