"""`latencylab-runner register` and `run`: enrollment against the register endpoint
(README shapes, `Authorization: Enroll <token>`), the config written with mode 0600 and
never replaced without --force, and `run` refusing a config that is unsafe or wrong,
naming the field. The bare host-runner command line the local stack uses still parses."""

import json
import os
import plistlib
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from latencylab_runner.agent import main as runner_main
from latencylab_runner.agent.config import ConfigError, default_config_path, load_config, parse_config

BASE = {"server": "https://latencylab.example.com", "runner_token": "llr_x", "name": "lab-1"}


def register(backend, config, *extra, env=None):
    args = [sys.executable, "-m", "latencylab_runner.agent", "register", "--server", backend.url, "--token",
            backend.enrollment_token, "--name", "mac-mini-3", *extra]
    if config is not None:
        args += ["--config", str(config)]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)


def test_register_writes_a_0600_config(backend, tmp_path):
    config = tmp_path / "conf" / "runner.json"
    done = register(backend, config, "--drivers", "android,ios")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    stored = json.loads(config.read_text())
    assert stored == {"server": backend.url, "runner_token": backend.runner_token,
                      "runner_id": stored["runner_id"], "name": "mac-mini-3", "pool": "lab-a",
                      "drivers": ["android", "ios"]}
    sent, = backend.registrations
    assert sent["name"] == "mac-mini-3"
    assert sent["drivers"] == ["android", "ios"]
    assert sent["version"]
    assert backend.violations == []
    assert load_config(config).runner_token == backend.runner_token
    assert "latencylab-runner run --config" in done.stdout


def test_register_refuses_to_overwrite_without_force(backend, tmp_path):
    config = tmp_path / "runner.json"
    assert register(backend, config).returncode == 0
    before = config.read_text()
    again = register(backend, config)
    assert again.returncode == 1
    assert "--force" in again.stderr
    assert config.read_text() == before
    assert len(backend.registrations) == 1
    backend.runner_token = "llr_second"
    forced = register(backend, config, "--force")
    assert forced.returncode == 0
    assert json.loads(config.read_text())["runner_token"] == "llr_second"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_register_refused_by_the_server_writes_nothing(backend, tmp_path):
    backend.register_answer = (401, {"detail": "Enrollment token expired."})
    config = tmp_path / "runner.json"
    done = register(backend, config)
    assert done.returncode == 1
    assert "HTTP 401: Enrollment token expired." in done.stderr
    assert not config.exists()


def test_config_path_from_the_environment(backend, tmp_path):
    config = tmp_path / "env" / "runner.json"
    done = register(backend, None, env={**os.environ, "LATENCYLAB_RUNNER_CONFIG": str(config)})
    assert done.returncode == 0, done.stderr
    assert config.is_file()


def test_default_config_path(monkeypatch, tmp_path):
    monkeypatch.delenv("LATENCYLAB_RUNNER_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert default_config_path() == tmp_path / ".config" / "latencylab" / "runner.json"


def test_run_refuses_a_config_others_can_read(tmp_path):
    config = tmp_path / "runner.json"
    config.write_text(json.dumps(BASE))
    config.chmod(0o644)
    done = subprocess.run([sys.executable, "-m", "latencylab_runner.agent", "run", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "chmod 600" in done.stderr


def test_run_without_enrollment_says_so(tmp_path):
    done = subprocess.run([sys.executable, "-m", "latencylab_runner.agent", "run", "--config",
                           str(tmp_path / "missing.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "latencylab-runner register" in done.stderr


@pytest.mark.parametrize("change, message", [
    ({"drivers": ["android", "windows"]}, r"drivers: must be a non-empty list of host, android, ios"),
    ({"gate": {"max_temperature_c": 200}}, r"gate\.max_temperature_c: must be a number from 0 to 100"),
    ({"target": {"tls_port": 70000}}, r"target\.tls_port: must be a port number"),
    ({"link": {"mode": "wifi-magic"}}, r"link\.mode: must be one of ap-netem, namespace"),
    ({"fastlane": {"command": []}}, r"fastlane\.command: must be a program"),
    ({"fastlane": {"timeout": 5}}, r"fastlane\.timeout: unknown setting"),
    ({"server": "ftp://x"}, r"server: must be an http\(s\) URL"),
    ({"runner_token": ""}, r"runner_token: required"),
])
def test_bad_config_is_refused_naming_the_field(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({**BASE, **change})


def test_config_defaults():
    config = parse_config(BASE)
    assert config.drivers == ("android", "ios")
    assert config.gate.min_battery_pct == 50
    assert config.gate.max_temperature_c == 36
    assert config.link_mode == "ap-netem"
    assert config.lane.command == ("fastlane",)
    assert config.lane.directory.name == "fastlane"


def test_the_stacks_host_runner_command_line_still_parses():
    # infra/bin/stack.py starts `python -m latencylab_runner.agent` with these flags.
    args = runner_main.build_parser().parse_args(
        ["--server", "http://127.0.0.1:8000", "--token", "t", "--name", "local-host-runner", "--target-host",
         "127.0.0.1", "--target-plain-port", "18080", "--target-tls-port", "18443", "--target-server-name",
         "localhost", "--ca-file", "/tmp/ca.pem"])
    assert (args.name, args.target_tls_port, args.ca_file) == ("local-host-runner", 18443, "/tmp/ca.pem")


DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_systemd_unit_runs_the_agent_and_lets_it_drain():
    unit = (DEPLOY / "latencylab-runner.service").read_text()
    settings = dict(line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.startswith("#"))
    assert settings["ExecStart"].endswith("latencylab-runner run")
    # Only the agent gets SIGTERM; the lane in progress must not be killed with it.
    assert settings["KillMode"] == "mixed"
    assert settings["KillSignal"] == "SIGTERM"
    assert settings["TimeoutStopSec"] == "4h"
    assert settings["Restart"] == "on-failure"


def test_launchd_plist_runs_the_agent_and_lets_it_drain():
    plist = plistlib.loads((DEPLOY / "dev.latencylab.runner.plist").read_bytes())
    program, command = plist["ProgramArguments"]
    assert program.endswith("/latencylab-runner")
    assert command == "run"
    assert plist["ExitTimeOut"] >= 3600
    assert plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plist["RunAtLoad"] is True
