"""`latencylab-phone-simulator`: a simulated device lab in a process of its own — the simulated
adb server (adb_server.py) serving the phones of a scenario file (scenario.py), and the
environment under which the real adb client, the simulated libimobiledevice tools and the
simulated fastlane of bin/ see those phones.

Everything here is a stand-in for hardware and tools that cannot exist on a CI machine or a
laptop (phones, adb's server side, usbmuxd, the fastlane gem); the measurements are the real
Kotlin harness core's (harness_core.py), or there are none. Used by

- `infra/bin/stack.py up --demo-lab` and the backend's device-farm integration tests, which
  start it as a separate process, like a lab host's adb server:

    latencylab-phone-simulator serve --dir DIR \
        --phones '{"android": [{"serial": "R5CT1234", "model": "Pixel 8"}],
                   "ios": [{"udid": "00008120-…", "product_type": "iPhone15,4"}]}'
        prints one JSON line when ready — {"scenario", "env", "runner_settings", "harness"} —
        (also to --ready-file, for a caller whose stdout is a log), then serves until
        SIGTERM/SIGINT;
    latencylab-phone-simulator set --scenario FILE --phones '{…}'    plug/unplug: the phones are now these.

- the runner's tests (runner/tests/device_lab.py: `environment` and `expand`, in-process).

A phone is described by the keyword arguments of scenario.android_device / ios_device
(anything else they take, e.g. "unplug_after_blocks": 0, goes into the scenario as is).
Only the standard library: it runs with any python3.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from . import adb_server, harness_core, scenario

# What a lab's runner config needs to drive these phones: the fake fastlane (from the
# device-runner's fastlane/ folder, where the real Fastfile is), and the JVM stand-in for
# a phone's harness run on this host — so the phones' "Wi-Fi" is the emulated link
# (link.mode "namespace", docs/device-lab.md §9) and the job exchange is on loopback.
FASTLANE_DIR = scenario.DEVICE_RUNNER / "fastlane"
FAKE_TEAM_ID = "FAKETEAM00"
FAKE_BUNDLE_ID_PREFIX = "test.latencylab-simulator.fake"
STOP_POLL_S = 0.2  # how soon a SIGTERM delivered to another thread is acted on


def expand(phones: dict[str, Any]) -> dict[str, Any]:
    """A scenario from short phone descriptions (builder keyword arguments)."""
    unknown = sorted(set(phones) - {"android", "ios", "fastlane"})
    if unknown:
        raise ValueError(f"phones: unknown key {unknown[0]!r}; known: android, ios, fastlane")
    return {"android": [scenario.android_device(**phone) for phone in phones.get("android", [])],
            "ios": [scenario.ios_device(**phone) for phone in phones.get("ios", [])],
            "fastlane": phones.get("fastlane", {"mode": "run"})}


def environment(adb_socket_spec: str, scenario_path: Path, path: str) -> dict[str, str]:
    """The variables every tool and lane needs to see the fake phones: bin/ first on PATH
    (fake idevice_id/ideviceinfo/idevicediagnostics/fastlane; the real adb stays where it
    is), the real adb client pointed at the fake server, and the scenario file."""
    return {"PATH": f"{scenario.BIN_DIR}{os.pathsep}{path}", "ADB_SERVER_SOCKET": adb_socket_spec,
            scenario.ENV: str(scenario_path)}


def runner_settings(work_dir: Path) -> dict[str, Any]:
    """The lab part of a runner config (agent/config.py) for these phones; the target and
    the credentials are the caller's."""
    return {
        "fastlane": {"command": [str(scenario.BIN_DIR / "fastlane")], "dir": str(FASTLANE_DIR),
                     "base_timeout_s": 300, "per_request_s": 0.5},
        # A made-up team and prefix (a real lab's come from its Apple Developer account): the fake
        # xcodebuild signs with whatever the lanes pass, as automatic signing would.
        "ios": {"exchange_host": "127.0.0.1", "exchange_port": 0, "lab_address": "127.0.0.1",
                "team_id": FAKE_TEAM_ID, "bundle_id_prefix": FAKE_BUNDLE_ID_PREFIX, "min_free_mb": 1024},
        "link": {"mode": "namespace"},
        "work_dir": str(work_dir),
    }


def _phones_arg(value: str) -> dict[str, Any]:
    text = Path(value[1:]).read_text() if value.startswith("@") else value
    try:
        phones = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--phones: not JSON: {exc}") from exc
    if not isinstance(phones, dict):
        raise argparse.ArgumentTypeError("--phones: must be an object {\"android\": [...], \"ios\": [...]}")
    return phones


def serve(directory: Path, phones: dict[str, Any], *, require_harness: bool, ready_file: Path | None = None) -> int:
    if require_harness:
        # Fail now, with the reason, rather than with every block failing later.
        missing = harness_core.missing_reason()
        if missing:
            print(f"latencylab-phone-simulator: {missing}", file=sys.stderr)
            return 3
    directory.mkdir(parents=True, exist_ok=True)
    scenario_path = directory / "scenario.json"
    scenario.save(expand(phones), scenario_path)
    server = adb_server.FakeAdbServer(scenario_path, directory / "phones").start()
    # Python runs a signal's handler in the main thread only, and a main thread blocked in a lock
    # (Event.wait() without a timeout) is not woken when the kernel delivers the signal to another
    # thread (the adb server's, a harness run's): SIGTERM then went unnoticed and the simulator
    # never exited (a clean-clone make test saw it). So the handler only records the signal, and
    # the main thread looks at least every STOP_POLL_S; the handler takes no lock (an Event's
    # lock may be the one the interrupted main thread holds).
    stopping: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: stopping.append(signum))
    ready = json.dumps({
        "scenario": str(scenario_path),
        "env": environment(server.socket_spec, scenario_path, os.environ.get("PATH", os.defpath)),
        "runner_settings": runner_settings(directory / "runner-work"),
        "harness": str(harness_core.jar_path()),
    })
    if ready_file is not None:
        tmp = ready_file.with_suffix(".tmp")
        tmp.write_text(ready + "\n")
        tmp.replace(ready_file)
    print(ready, flush=True)
    while not stopping:
        time.sleep(STOP_POLL_S)
    server.stop()
    return 0


def set_phones(scenario_path: Path, phones: dict[str, Any]) -> int:
    fresh = expand(phones)
    with scenario.editing(scenario_path) as world:
        world["android"], world["ios"] = fresh["android"], fresh["ios"]
        if "fastlane" in phones:
            world["fastlane"] = fresh["fastlane"]
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="latencylab-phone-simulator", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="start the fake adb server for these phones")
    run.add_argument("--dir", type=Path, required=True, help="the lab's state: scenario, phone storage, work dir")
    run.add_argument("--phones", type=_phones_arg, default={}, help="JSON, or @file")
    run.add_argument("--require-harness", action="store_true",
                     help="refuse to start without the Kotlin harness core jar (java -jar)")
    run.add_argument("--ready-file", type=Path, default=None, help="also write the ready line here")
    edit = sub.add_parser("set", help="the phones plugged in are now these")
    edit.add_argument("--scenario", type=Path, required=True)
    edit.add_argument("--phones", type=_phones_arg, required=True, help="JSON, or @file")
    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args.dir, args.phones, require_harness=args.require_harness, ready_file=args.ready_file)
        return set_phones(args.scenario, args.phones)
    except (TypeError, ValueError) as exc:  # a phone description the builders do not take
        print(f"latencylab-phone-simulator: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
