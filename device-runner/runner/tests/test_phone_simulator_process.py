"""The phone simulator as a process of its own (its console command,
`latencylab-phone-simulator`), as the backend's device-farm tests and `stack.py up --demo-lab`
start it: the real adb client sees its phones through
the environment it prints, `set` plugs and unplugs phones, a bad phone description is
refused naming the key, and `--require-harness` refuses to start without the jar."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from device_lab import scenario

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
        assert proc.wait(10) == 0


def test_a_bad_phone_description_is_refused_naming_the_key(tmp_path):
    proc, ready = start(tmp_path, {"androids": []})
    assert ready is None
    assert proc.wait(10) == 2
    assert "phones: unknown key 'androids'" in (proc.stderr.read() if proc.stderr else "")


def test_require_harness_refuses_to_start_without_the_jar(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "LATENCYLAB_HARNESS_JAR": str(tmp_path / "missing.jar")}
    proc, ready = start(tmp_path, {}, "--require-harness", env=env)
    assert ready is None
    assert proc.wait(10) == 3
    assert "harness core jar is not built" in (proc.stderr.read() if proc.stderr else "")
