"""The phone simulator as a process of its own (its console command,
`latencylab-phone-simulator`), as the backend's device-farm tests and `stack.py up --demo-lab`
start it: the real adb client sees its phones through
the environment it prints, `set` plugs and unplugs phones, a bad phone description is
refused naming the key, `--require-harness` refuses to start without the jar, and a stopped
simulated adb server is gone the way a killed one is."""

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from device_lab import adb_server, scenario

# The console command the runner package installs beside the interpreter.
SIMULATOR = str(Path(sys.executable).parent / "latencylab-phone-simulator")


def start(tmp_path, phones, *extra, env=None):
    proc = subprocess.Popen([SIMULATOR, "serve", "--dir", str(tmp_path / "lab"), "--phones",
                             json.dumps(phones), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line) if line else None


def adb_devices(ready):
    return subprocess.run(["adb", "devices", "-l"], capture_output=True, text=True, timeout=30,
                          env=ready["env"]).stdout


@pytest.mark.skipif(shutil.which("adb") is None, reason="the real adb client is missing: apt-get install adb")
def test_the_lab_process_serves_its_phones_to_the_real_adb_client(tmp_path):
    proc, ready = start(tmp_path, {"android": [{"serial": "R5CT1234", "model": "Pixel 8"}],
                                   "ios": [{"udid": "00008120-000A1B2C3D4E5F60", "product_type": "iPhone15,4",
                                            "device_name": "Fake iPhone 15"}]},
                        "--ready-file", str(tmp_path / "ready.json"))
    try:
        assert ready is not None, proc.stderr.read() if proc.stderr else ""
        assert json.loads((tmp_path / "ready.json").read_text()) == ready
        info = subprocess.run(["ideviceinfo", "-u", "00008120-000A1B2C3D4E5F60", "-k", "DeviceName"],
                              capture_output=True, text=True, timeout=30, env=ready["env"])
        assert info.stdout.strip() == "Fake iPhone 15"
        assert "R5CT1234               device usb:1-4 product:shiba model:Pixel_8 device:shiba" in adb_devices(ready)
        udids = subprocess.run(["idevice_id", "-l"], capture_output=True, text=True, timeout=30, env=ready["env"])
        assert udids.stdout.split() == ["00008120-000A1B2C3D4E5F60"]
        settings = ready["runner_settings"]
        assert settings["fastlane"]["command"] == [str(scenario.BIN_DIR / "fastlane")]
        assert settings["link"] == {"mode": "namespace"}

        # Unplugged: the real client no longer lists it; plugged back with another phone.
        unplug = subprocess.run([SIMULATOR, "set", "--scenario", ready["scenario"], "--phones",
                                 json.dumps({"android": [{"serial": "RFCX21", "model": "Galaxy S24"}]})],
                                capture_output=True, text=True, timeout=30)
        assert unplug.returncode == 0, unplug.stderr
        listed = adb_devices(ready)
        assert "R5CT1234" not in listed
        assert "model:Galaxy_S24" in listed
    finally:
        proc.terminate()
        assert proc.wait(120) == 0


def test_a_bad_phone_description_is_refused_naming_the_key(tmp_path):
    proc, ready = start(tmp_path, {"androids": []})
    assert ready is None
    assert proc.wait(120) == 2
    assert "phones: unknown key 'androids'" in (proc.stderr.read() if proc.stderr else "")


def test_require_harness_refuses_to_start_without_the_jar(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "LATENCYLAB_HARNESS_JAR": str(tmp_path / "missing.jar")}
    proc, ready = start(tmp_path, {}, "--require-harness", env=env)
    assert ready is None
    assert proc.wait(120) == 3
    assert "harness core jar is not built" in (proc.stderr.read() if proc.stderr else "")


def _refused(port):
    """Whether a connection to 127.0.0.1:port is refused, from a source port other than `port`
    (a connection from the port to itself would succeed with nothing listening)."""
    held = []
    try:
        while True:
            probe = socket.socket()
            held.append(probe)
            probe.bind(("127.0.0.1", 0))
            if probe.getsockname()[1] != port:
                break
        try:
            probe.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
        return False
    finally:
        for sock in held:
            sock.close()


def test_a_stopped_adb_server_refuses_connections_and_ends_its_clients(tmp_path):
    """A test's lab is stopped at its end; a lane left over from it must not be answered from
    that test's world (the port kept listening after close(): a thread blocked in accept() holds it)."""
    scenario.save({"android": [scenario.android_device("R5CT1234")], "ios": []}, tmp_path / "scenario.json")
    server = adb_server.FakeAdbServer(tmp_path / "scenario.json", tmp_path / "phones").start()
    client = socket.create_connection(("127.0.0.1", server.port))
    request = b"host:tport:serial:R5CT1234"
    client.sendall(b"%04x" % len(request) + request)
    answer = b""
    while len(answer) < 12:  # OKAY and the transport id: the session is open, waiting for its service
        answer += client.recv(12 - len(answer))
    assert answer[:4] == b"OKAY"
    server.stop()
    assert _refused(server.port)
    assert client.recv(1) == b""  # the session ended with its server
    client.close()
