"""The agent with many devices: full descriptors in hello and heartbeat (devices appear,
change state and vanish within one heartbeat), leases only for free and ready devices,
each run in its own thread, and a drain on SIGTERM that finishes the run in progress,
takes no new lease and exits 0."""

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from device_lab import scenario

from latencylab_runner.agent.agent import Agent
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.fleet import Fleet
from latencylab_runner.devices.model import DeviceStatus
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.phone_simulator import lab as lab_process

SPEC = {"name": "fleet", "seed": 1, "blocks": 1, "timeout_s": 10, "baseline_arm": "h2",
        "workload": {"kind": "api", "rounds": 1, "calls": 2, "request_bytes": 64, "warmup": 0},
        "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}]}


def by_serial(devices):
    return {d["serial"]: d for d in devices}


def test_hello_and_heartbeat_carry_every_device_and_its_changes(lab, backend, target_server):
    lab.set(android=[scenario.android_device("R5CT1234"),
                     {"serial": "R58M41ABCDE", "state": "unauthorized", "usb": "1-3"},
                     scenario.android_device("LOWBATT1", level=32, plugged=False)],
            ios=[scenario.ios_device("00008130-IPHONE")])
    reference = ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                                str(target_server.ca_file))
    exchange = JobExchange()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    # A long interval: the heartbeats here are the test's own, each waiting for discovery.
    agent = Agent(client, name="mac-mini-3", drivers=[lab.android_driver(reference),
                                                      lab.ios_driver(reference, exchange)],
                  heartbeat_interval_s=600)
    try:
        assert agent.run_forever(idle_exit_s=0.5) == 0
        hello = backend.hellos[0]
        assert hello["runner"]["drivers"] == ["android", "ios"]
        assert hello["runner"]["name"] == "mac-mini-3"
        devices = by_serial(hello["devices"])
        assert devices["R5CT1234"]["state"] == "available"
        assert devices["R5CT1234"]["model"] == "Pixel 8"
        assert devices["R5CT1234"]["battery"] == 87.0
        assert devices["R5CT1234"]["temperature"] == 31.5
        assert devices["R58M41ABCDE"]["state"] == "unauthorized"
        assert devices["LOWBATT1"]["state"] == "not_ready"
        assert devices["LOWBATT1"]["reason"] == "battery 32 % < 50 %"
        assert devices["00008130-IPHONE"]["state"] == "available"
        assert devices["00008130-IPHONE"]["platform"] == "ios"
        # Leases are asked only for the free, ready devices.
        assert backend.leases_asked
        assert all(sorted(ask["devices"]) == ["00008130-IPHONE", "R5CT1234"]
                                            for ask in backend.leases_asked)

        # Hot-plug, authorization granted, unplug: each visible at the next heartbeat.
        lab.set(android=[scenario.android_device("R58M41ABCDE"), scenario.android_device("NEW00001"),
                         scenario.android_device("LOWBATT1", level=32, plugged=False)], ios=[])
        agent.heartbeat_once()
        devices = by_serial(backend.heartbeats[-1]["devices"])
        assert devices["NEW00001"]["state"] == "available"
        assert devices["R58M41ABCDE"]["state"] == "available"
        assert devices["R58M41ABCDE"]["model"] == "Pixel 8"
        assert (devices["R5CT1234"]["state"], devices["R5CT1234"]["reason"]) == ("offline", "disconnected")
        assert (devices["00008130-IPHONE"]["state"], devices["00008130-IPHONE"]["reason"]) == ("offline",
                                                                                               "disconnected")
        assert backend.violations == []
    finally:
        client.close()
        exchange.close()


class BlockingDriver:
    """Runs return only once every run has started: sequential runs would never end."""

    name = "android"

    def __init__(self, serials, expected):
        self.serials = serials
        self.started = threading.Barrier(expected, timeout=60)
        self.threads = set()

    def discover(self, busy=frozenset()):
        return [DeviceStatus(serial=s, platform="android", model="Pixel 8", os_version="14") for s in self.serials]

    def execute(self, lease, client, cancelled):
        self.threads.add(threading.current_thread().name)
        self.started.wait()
        client.finish(lease["run_id"], {"lease_token": lease["lease_token"], "status": "ok",
                                        "fingerprint": {"platform": "android"}, "link": {"profile": "none"}})


def test_runs_on_different_devices_go_in_parallel_threads(backend):
    driver = BlockingDriver(["PHONE-A", "PHONE-B"], expected=2)
    runs = [backend.enqueue(serial="PHONE-A", spec=SPEC), backend.enqueue(serial="PHONE-B", spec=SPEC)]
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        assert Agent(client, name="lab", drivers=[driver]).run_forever(max_runs=2) == 2
    finally:
        client.close()
    assert all(backend.finishes[run]["status"] == "ok" for run in runs)
    assert driver.threads == {"run-PHONE-A", "run-PHONE-B"}


class WedgedDriver:
    """Discovery hangs (a wedged adb) after the first call."""

    name = "android"

    def __init__(self):
        self.calls = 0
        self.stuck = threading.Event()
        self.release = threading.Event()

    def discover(self, busy=frozenset()):
        self.calls += 1
        if self.calls > 1:
            self.stuck.set()
            self.release.wait(60)
        return [DeviceStatus(serial="PHONE-A", platform="android", model="Pixel 8", os_version="14")]

    def execute(self, lease, client, cancelled):
        raise AssertionError("nothing is leased here")


def test_a_wedged_discovery_does_not_hold_back_the_heartbeat(backend):
    driver = WedgedDriver()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    agent = Agent(client, name="lab", drivers=[driver], heartbeat_interval_s=0.2)
    try:
        agent.hello()
        agent.heartbeat_once()  # discovery is stuck in its second call
        assert driver.stuck.wait(30)
        assert driver.calls == 2
        assert by_serial(backend.heartbeats[-1]["devices"])["PHONE-A"]["state"] == "available"
        agent.heartbeat_once()  # still stuck: no second discovery is started beside it
        assert driver.calls == 2
        assert len(backend.heartbeats) == 2
    finally:
        driver.release.set()
        client.close()


def test_a_device_the_backend_quarantined_is_not_offered(backend):
    backend.quarantined = {"PHONE-A"}
    driver = BlockingDriver(["PHONE-A", "PHONE-B"], expected=1)
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        Agent(client, name="lab", drivers=[driver]).run_forever(idle_exit_s=0.5)
    finally:
        client.close()
    assert backend.leases_asked
    assert all(ask["devices"] == ["PHONE-B"] for ask in backend.leases_asked)


def test_reasons_are_bounded_for_the_backend():
    status = DeviceStatus(serial="S", platform="android", state="offline", reason="adb: " + "x" * 500)
    assert len(status.descriptor()["reason"]) == 200


def write_config(path: Path, backend, lab, target_server, **extra):
    config = {"server": backend.url, "runner_token": backend.runner_token, "runner_id": "r-1", "name": "lab-1",
              "pool": "lab-a", "drivers": ["android"], "heartbeat_interval_s": 1,
              "target": {"host": "127.0.0.1", "plain_port": target_server.plain_port,
                         "tls_port": target_server.tls_port, "server_name": "localhost",
                         "ca_file": str(target_server.ca_file)},
              "fastlane": {"command": [str(scenario.BIN_DIR / "fastlane")], "dir": str(lab_process.FASTLANE_DIR),
                           "base_timeout_s": 15,
                           "per_request_s": 0},
              "work_dir": str(lab.dir / "work"), **extra}
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


def test_sigterm_drains_the_run_in_progress_then_exits_0(lab, backend, target_server, tmp_path):
    # The lane hangs, so the run is in progress when SIGTERM arrives; it ends at its limit.
    lab.set(android=[scenario.android_device("R5CT1234")], fastlane={"mode": "hang"})
    config = write_config(tmp_path / "runner.json", backend, lab, target_server)
    first = backend.enqueue(serial="R5CT1234", spec=SPEC)
    agent = subprocess.Popen([sys.executable, "-m", "latencylab_runner.agent", "run", "--config", str(config)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        pid_file = lab.dir / "fastlane-hang.pid"
        with backend.lock:
            assert backend.lock.wait_for(lambda: not backend.queue, timeout=60), "the run was never leased"
        lane_started = threading.Event()

        def watch():
            while agent.poll() is None and not pid_file.exists():
                lane_started.wait(0.05)
            lane_started.set()

        threading.Thread(target=watch, daemon=True).start()
        assert lane_started.wait(60), "the lane never started"
        assert pid_file.exists(), "the lane never started"
        agent.send_signal(signal.SIGTERM)
        with backend.lock:
            asked_at_sigterm = len(backend.leases_asked)
        second = backend.enqueue(serial="R5CT1234", spec=SPEC)
        output, _ = agent.communicate(timeout=120)
    finally:
        if agent.poll() is None:
            agent.kill()
    assert agent.returncode == 0, output
    assert "draining" in output
    # The run in progress was finished (at its lane's limit) before the process left ...
    assert backend.finishes[first]["error_kind"] == "timeout"
    # ... and nothing new was leased after the signal.
    assert second not in backend.finishes
    assert len(backend.leases_asked) <= asked_at_sigterm + 1
    assert any(run["run_id"] == second for run in backend.queue)
    assert backend.violations == []


class PluggableDriver:
    """Lists the phones in `plugged`, like adb devices -l."""

    name = "android"

    def __init__(self, plugged):
        self.plugged = list(plugged)

    def discover(self, busy=frozenset()):
        return [DeviceStatus(serial=s, platform="android", model="Pixel 8", os_version="14") for s in self.plugged]

    def execute(self, lease, client, cancelled):
        raise AssertionError("not leased here")


def test_a_device_freed_by_a_run_is_offered_again_only_once_discovery_saw_it():
    driver = PluggableDriver(["PHONE-A", "PHONE-B"])
    fleet = Fleet([driver])
    fleet.refresh()
    assert fleet.claim("PHONE-A") is driver
    assert fleet.free() == ["PHONE-B"]
    # The run ends because PHONE-A was unplugged mid-block: what the fleet knows of it
    # dates from before the run, so it is not offered on that knowledge.
    driver.plugged = ["PHONE-B"]
    fleet.release("PHONE-A")
    assert fleet.free() == ["PHONE-B"]
    fleet.refresh()
    assert fleet.free() == ["PHONE-B"]
    assert by_serial(fleet.descriptors())["PHONE-A"]["reason"] == "disconnected"
    # Plugged back in and discovered: offered again.
    driver.plugged = ["PHONE-A", "PHONE-B"]
    fleet.refresh()
    assert sorted(fleet.free()) == ["PHONE-A", "PHONE-B"]


def test_a_discovery_that_started_while_the_device_was_busy_does_not_clear_it():
    driver = PluggableDriver(["PHONE-A"])
    fleet = Fleet([driver])
    fleet.refresh()
    fleet.claim("PHONE-A")
    in_discovery, run_ended = threading.Event(), threading.Event()
    listed = driver.discover

    def slow_discover(busy=frozenset()):
        in_discovery.set()
        assert run_ended.wait(30)
        return listed(busy)

    driver.discover = slow_discover
    refreshing = threading.Thread(target=fleet.refresh)
    refreshing.start()
    assert in_discovery.wait(30)
    fleet.release("PHONE-A")  # the run ends while that discovery (told PHONE-A is busy) goes on
    run_ended.set()
    refreshing.join(30)
    assert fleet.free() == []
    driver.discover = listed
    fleet.refresh()
    assert fleet.free() == ["PHONE-A"]
