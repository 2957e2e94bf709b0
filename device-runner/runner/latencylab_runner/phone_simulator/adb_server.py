"""A fake adb server: the real Debian `adb` client talks to it through
ADB_SERVER_SOCKET=tcp:127.0.0.1:PORT, so everything the runner parses is formatted by
the real client (its `List of devices attached`, `adb: error: …`, pull summaries).

Host protocol (AOSP adb `SERVICES.TXT`, `adb_client.cpp`, observed with the Debian 29.0.6
client): each request is 4 hex digits of length + the service name; the answer is
`OKAY`, or `FAIL` + 4 hex length + message. Services served here:

- `host:version` (41), `host:devices`, `host:devices-l` (lines formatted as
  transport.cpp `append_transport` does), `host-serial:S:features`, `host:features`;
- `host:tport:serial:S` / `host:tport:any` (OKAY + 8-byte transport id) and
  `host:transport:S`, then on the same connection one device service:
- `shell,v2,…:CMD` (shell protocol v2 packets: id byte, u32 LE length, data; exit code in
  an id-3 packet), `shell:CMD` (raw), `exec:CMD` (raw) for `getprop`, `dumpsys battery`,
  `dumpsys thermalservice`, `am instrument -w -r …`;
- `sync:` with STAT/STA2/LST2/RECV/SEND/QUIT (file_sync_protocol.h) for push and pull;
- `abb_exec:package\0install\0…\0-S\0SIZE` (or `exec:cmd package install … -S SIZE`): the
  client's streamed install (adb `install_app_streamed`), the APK's bytes after OKAY, then
  `Success` or `Failure [INSTALL_FAILED_…]` (PackageManagerShellCommand);
- `cmd package uninstall PKG` / `pm uninstall PKG`, which delete the app's data the way
  PackageManager does: its /data/data and its external data, obb and media directories;
- `dumpsys package PKG`, `am force-stop PKG`.

Each device's storage is a directory; `am instrument` of the installed harness test runs the
real Kotlin core (harness_core.py) on the job pushed there and writes the result there, and
prints what the real `am instrument -w -r` prints, replayed from golden transcripts
(transcripts/, with their sources). An APK here is the simulator's stand-in (bin/fastlane's
build_harness writes it): a zip whose `latencylab-simulator.json` names the package, its
version and, for a test APK, its instrumentation.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import threading
import traceback
import zipfile
from pathlib import Path
from typing import Any

from . import golden, harness_core
from . import scenario as scenario_file

ADB_SERVER_VERSION = 41
# What an Android 10 adbd advertises (adb transport.cpp supported_features).
FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec,remount_shell"
UNAUTHORIZED = ("device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
                "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.")
HARNESS_PACKAGE = "dev.latencylab.harness"
HARNESS_COMPONENT = "dev.latencylab.harness.test/dev.latencylab.harness.instrumentation.BenchInstrumentation"
TEST_CLASS, TEST_METHOD = "dev.latencylab.harness.BenchTest", "runJob"
APK_MANIFEST = "latencylab-simulator.json"  # what the simulator's stand-in APK says about itself
# What PackageManager deletes with a package (its internal data and its external directories).
APP_DATA = ("/data/data/{pkg}", "/sdcard/Android/data/{pkg}", "/sdcard/Android/obb/{pkg}",
            "/sdcard/Android/media/{pkg}")
# The scenario's `instrumentation` modes: what the harness test does on this phone.
INSTRUMENTATION_MODES = ("run", "fail", "crash", "hang", "malformed", "system_crash")
SYNC_DATA_MAX = 64 * 1024
ENOENT, S_IFREG, S_IFDIR = 2, 0o100000, 0o040000
THERMAL_NAMES = {0: "NONE", 1: "LIGHT", 2: "MODERATE", 3: "SEVERE", 4: "CRITICAL", 5: "EMERGENCY", 6: "SHUTDOWN"}


class Closed(Exception):
    pass


def _read_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise Closed()
        data += chunk
    return data


def _protocol_string(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return b"%04x" % len(data) + data


def format_device_line(device: dict[str, Any], transport_id: int, long: bool) -> str:
    """transport.cpp append_transport: `%-22s %s` then usb:/product:/model:/device: each
    only when known (a device that has not sent its banner has none), transport_id last."""
    state = device["state"]
    if not long:
        return f"{device['serial']}\t{state}\n"
    line = f"{device['serial']:<22} {state}"
    if device.get("usb"):
        line += f" usb:{device['usb']}"
    if state == "device":
        model = "".join(c if c.isalnum() else "_" for c in device["props"].get("ro.product.model", ""))
        for key, value in (("product", device.get("product")), ("model", model), ("device", device.get("device"))):
            if value:
                line += f" {key}:{value}"
    return line + f" transport_id:{transport_id}\n"


def format_battery(battery: dict[str, Any]) -> str:
    """BatteryService.dumpInternal, newer release (Dock powered / Charging state lines)."""
    return (
        "Current Battery Service state:\n"
        f"  AC powered: {str(battery.get('ac', False)).lower()}\n"
        f"  USB powered: {str(battery.get('usb', False)).lower()}\n"
        f"  Wireless powered: {str(battery.get('wireless', False)).lower()}\n"
        "  Dock powered: false\n"
        "  Max charging current: 1500000\n"
        "  Max charging voltage: 5000000\n"
        "  Charge counter: 2448973\n"
        f"  status: {battery.get('status', 2)}\n"
        "  health: 2\n"
        "  present: true\n"
        f"  level: {battery['level']}\n"
        f"  scale: {battery.get('scale', 100)}\n"
        f"  voltage: {battery.get('voltage', 4248)}\n"
        f"  temperature: {battery['temperature']}\n"
        "  technology: Li-ion\n"
        "  Charging state: 1\n"
        "  Charging policy: 1\n"
    )


# PowerManager.THERMAL_STATUS_* by code: what the phone's harness reads itself (getCurrentThermalStatus).
_THERMAL_NAMES = ("none", "light", "moderate", "severe", "critical", "emergency", "shutdown")


def _thermal_name(code: int | None) -> str | None:
    """The name the harness reports for the scenario's status code; None without a thermal service."""
    return _THERMAL_NAMES[code] if code is not None and 0 <= code < len(_THERMAL_NAMES) else None


def format_thermal(status: int, battery_temperature_tenths: int) -> str:
    """ThermalManagerService dump (TAB-indented; Java floats print like 30.000002)."""
    battery_c = battery_temperature_tenths / 10
    return (
        "IsStatusOverride: false\n"
        "ThermalEventListeners:\n\tcallbacks: 3\n\tkilled: false\n\tbroadcasts count: -1\n"
        "ThermalStatusListeners:\n\tcallbacks: 1\n\tkilled: false\n\tbroadcasts count: -1\n"
        f"Thermal Status: {status}\n"
        "Cached temperatures:\n"
        f"\tTemperature{{mValue={battery_c + 0.000002:.6f}, mType=2, mName=battery, mStatus={status}}}\n"
        "\tTemperature{mValue=46.100002, mType=0, mName=cpu0-silver-usr, mStatus=0}\n"
        "HAL Ready: true\n"
        "HAL connection:\n\tThermalHAL 2.0 connected: yes\n"
        "Current temperatures from HAL:\n"
        f"\tTemperature{{mValue={battery_c:.6f}, mType=2, mName=battery, mStatus={status}}}\n"
        "Current cooling devices from HAL:\n"
        "\tCoolingDevice{mValue=0, mType=1, mName=battery}\n"
    )


def format_package(package: str, installed: dict[str, Any] | None) -> str:
    """`dumpsys package PKG` (PackageManagerService's dump, the part that names the package):
    nothing under `Packages:` when it is not installed."""
    head = "Activity Resolver Table:\n  Non-Data Actions:\n\nKey Set Manager:\n\nPackages:\n"
    if installed is None:
        return head
    return head + (f"  Package [{package}] (4c1b2f0):\n"
                   "    appId=10234\n"
                   f"    pkg=Package{{9a3c1d1 {package}}}\n"
                   f"    codePath=/data/app/~~Xr2bQ1oUe7ZcY8Kk0A==/{package}-Qw9Lw3q8kJ2vYqf0Zt1x2w==\n"
                   "    primaryCpuAbi=null\n"
                   "    secondaryCpuAbi=null\n"
                   f"    versionCode={installed['versionCode']} minSdk=29 targetSdk=35\n"
                   f"    versionName={installed['versionName']}\n"
                   "    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA TEST_ONLY ALLOW_BACKUP ]\n"
                   "    timeStamp=2026-01-05 10:12:44\n")


def _stdout_stderr(text: str, stderr_from: str) -> tuple[str, str]:
    """A transcript whose tail (from the line starting `stderr_from`) went to stderr."""
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith(stderr_from)), len(lines))
    return "".join(lines[:at]), "".join(lines[at:])


class ShellOutput:
    """Writes a device command's output the way the chosen shell service frames it."""

    def __init__(self, conn: socket.socket, v2: bool):
        self.conn, self.v2 = conn, v2

    def _packet(self, packet_id: int, data: bytes) -> None:
        self.conn.sendall(bytes([packet_id]) + struct.pack("<I", len(data)) + data)

    def out(self, text: str) -> None:
        if text:
            self._packet(1, text.encode()) if self.v2 else self.conn.sendall(text.encode())

    def err(self, text: str) -> None:
        if text:
            self._packet(2, text.encode()) if self.v2 else self.conn.sendall(text.encode())

    def exit(self, code: int) -> None:
        if self.v2:
            self._packet(3, bytes([code & 0xFF]))


class FakeAdbServer:
    def __init__(self, scenario_path: Path, storage: Path):
        self.scenario_path = scenario_path
        self.storage = storage
        self.requests: list[str] = []  # every service asked for, for tests to inspect
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._accepting: threading.Thread | None = None
        self._connections: set[socket.socket] = set()  # open client connections, closed by stop()
        self._stops: dict[str, list[threading.Event]] = {}  # running instrumentations, per serial
        self._processes: dict[str, list[subprocess.Popen[str]]] = {}  # their harness processes
        self.instrumentation_started = threading.Event()  # for tests: a harness test is running now

    @property
    def socket_spec(self) -> str:
        return f"tcp:127.0.0.1:{self.port}"

    def start(self) -> FakeAdbServer:
        self._sock.listen(64)
        self._accepting = threading.Thread(target=self._accept, name="fake-adb", daemon=True)
        self._accepting.start()
        return self

    def stop(self) -> None:
        """Gone like a killed adb server: its port refuses connections and its clients' connections
        end. Closing the listening socket alone would not do it: on Linux a thread blocked in
        accept() keeps the socket listening, and the next client (a lane left over from the test
        that stopped it) would be served a world that no longer exists."""
        self._stop.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() below
        except OSError:
            pass
        if self._accepting is not None:
            self._accepting.join()
        self._sock.close()
        with self._lock:
            connections = list(self._connections)
            stops = [stop for stops in self._stops.values() for stop in stops]
            processes = [p for processes in self._processes.values() for p in processes]
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for stop in stops:  # a hanging instrumentation ends with its phone's server
            stop.set()
        for process in processes:
            if process.poll() is None:
                process.kill()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                if self._stop.is_set():
                    conn.close()
                    return
                self._connections.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    # -- scenario --------------------------------------------------------
    def _devices(self) -> list[dict[str, Any]]:
        return scenario_file.load(self.scenario_path).get("android", [])

    def _select(self, serial: str | None) -> tuple[dict[str, Any] | None, int, str | None]:
        """transport.cpp acquire_one_transport: the device, its transport id, or the error."""
        devices = self._devices()
        if serial is None:
            if not devices:
                return None, 0, "no devices/emulators found"
            if len(devices) > 1:
                return None, 0, "more than one device/emulator"
            candidates = [(devices[0], 1)]
        else:
            candidates = [(d, i + 1) for i, d in enumerate(devices) if d["serial"] == serial]
            if not candidates:
                return None, 0, f"device '{serial}' not found"
        device, transport_id = candidates[0]
        state = device["state"]
        if state == "unauthorized":
            return None, 0, UNAUTHORIZED
        if state == "offline":
            return None, 0, "device offline"
        if state.startswith("no permissions"):
            # diagnose_usb.cpp: the short text carries the problem in parentheses.
            problem = state[state.find("(") + 1:state.rfind(")")] if "(" in state else "missing udev rules?"
            return None, 0, (f"insufficient permissions for device: {problem}\n"
                             "See [http://developer.android.com/tools/device.html] for more information")
        if state != "device":
            return None, 0, f"device {state}"
        return device, transport_id, None

    # -- connection ------------------------------------------------------
    def _serve(self, conn: socket.socket) -> None:
        readers: list[threading.Thread] = []  # the connection's stdin-draining thread, if any
        try:
            self._dispatch(conn, readers)
        except (Closed, BrokenPipeError, ConnectionResetError):
            pass  # the client went away (killed with its lane, or the cable pulled)
        except OSError:
            if not self._stop.is_set():  # stop() ends the connections it finds open
                traceback.print_exc()
        except Exception:  # a fake's bug must be visible in the test output
            traceback.print_exc()
        finally:
            # shutdown ends the draining thread's recv; it is joined before the close, because a
            # recv still to come on a closed descriptor would read whichever connection is
            # accepted next on the same number.
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            for reader in readers:
                reader.join()
            with self._lock:
                self._connections.discard(conn)
            conn.close()

    def _fail(self, conn: socket.socket, message: str) -> None:
        conn.sendall(b"FAIL" + _protocol_string(message))

    def _dispatch(self, conn: socket.socket, readers: list[threading.Thread]) -> None:
        device: dict[str, Any] | None = None
        while True:
            service = _read_exact(conn, int(_read_exact(conn, 4), 16)).decode()
            self.requests.append(service)
            if service == "host:version":
                conn.sendall(b"OKAY" + _protocol_string(b"%04x" % ADB_SERVER_VERSION))
                return
            if service in ("host:devices", "host:devices-l"):
                long = service.endswith("-l")
                lines = "".join(format_device_line(d, i + 1, long) for i, d in enumerate(self._devices()))
                conn.sendall(b"OKAY" + _protocol_string(lines))
                return
            if service.endswith(":features") and service.startswith("host"):
                # host-serial:<serial>:features; a TCP serial has a colon of its own.
                serial = service[len("host-serial:"):-len(":features")] if service.startswith("host-serial:") \
                    else None
                selected, _, error = self._select(serial)
                if error:
                    self._fail(conn, error)
                else:
                    conn.sendall(b"OKAY" + _protocol_string(FEATURES))
                return
            if service.startswith(("host:tport:", "host:transport")):
                serial = None
                if service.startswith("host:tport:serial:"):
                    serial = service[len("host:tport:serial:"):]
                elif service.startswith("host:transport:"):
                    serial = service[len("host:transport:"):]
                device, transport_id, error = self._select(serial)
                if error:
                    self._fail(conn, error)
                    return
                conn.sendall(b"OKAY" + (struct.pack("<Q", transport_id) if service.startswith("host:tport:")
                                        else b""))
                continue
            if device is None:
                self._fail(conn, f"unknown host service '{service}'")
                return
            if service.startswith("shell"):
                options, _, command = service.partition(":")
                conn.sendall(b"OKAY")
                self._shell(conn, device, command, v2="v2" in options.split(","), readers=readers)
                return
            if service.startswith("abb_exec:") or service.startswith("exec:cmd package install"):
                words = (service[len("abb_exec:"):].split("\0") if service.startswith("abb_exec:")
                         else shlex.split(service[len("exec:cmd "):]))
                conn.sendall(b"OKAY")
                self._install(conn, device, words)
                return
            if service.startswith("exec:"):
                conn.sendall(b"OKAY")
                self._shell(conn, device, service[len("exec:"):], v2=False, readers=readers)
                return
            if service == "sync:":
                conn.sendall(b"OKAY")
                self._sync(conn, device)
                return
            self._fail(conn, f"unknown service '{service}'")
            return

    # -- shell -----------------------------------------------------------
    def _shell(self, conn: socket.socket, device: dict[str, Any], command: str, *, v2: bool,
               readers: list[threading.Thread]) -> None:
        if v2:
            # The client sends stdin packets (and id 4, close-stdin); nothing here reads them.
            reader = threading.Thread(target=self._drain, args=(conn,), daemon=True)
            readers.append(reader)
            reader.start()
        shell = ShellOutput(conn, v2)
        words = shlex.split(command)
        code = self._run_command(shell, device, words)
        if code is not None:
            shell.exit(code)

    @staticmethod
    def _drain(conn: socket.socket) -> None:
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass

    def _run_command(self, shell: ShellOutput, device: dict[str, Any], words: list[str]) -> int | None:
        props = device["props"]
        if words[:1] == ["getprop"]:
            if len(words) == 1:
                shell.out("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))
            else:
                shell.out(props.get(words[1], "") + "\n")  # unset: an empty line, exit 0
            return 0
        if words == ["dumpsys", "battery"]:
            shell.out(format_battery(device["battery"]))
            return 0
        if words == ["dumpsys", "thermalservice"]:
            if device.get("thermal_status") is None:
                shell.err("Can't find service: thermalservice\n")
                return 0
            shell.out(format_thermal(device["thermal_status"], device["battery"]["temperature"]))
            return 0
        if words[:1] == ["ip"] and words[-2:] == ["show", "wlan0"]:
            # toybox ip, iproute2's format; the address the lab's AP gave the phone.
            shell.out("30: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default "
                      "qlen 3000\n")
            if device.get("wifi_ip"):
                shell.out(f"    inet {device['wifi_ip']}/24 brd 192.168.10.255 scope global wlan0\n"
                          "       valid_lft forever preferred_lft forever\n")
            return 0
        if words[:2] == ["am", "instrument"]:
            return self._instrument(shell, device, words[2:])
        if words[:2] == ["am", "force-stop"] and len(words) == 3:
            self._force_stop(device, words[2])
            return 0
        if words[:3] == ["cmd", "package", "uninstall"] or words[:2] == ["pm", "uninstall"]:
            return self._uninstall(shell, device, words[-1])
        if words[:2] == ["dumpsys", "package"] and len(words) == 3:
            shell.out(format_package(words[2], device.get("installed", {}).get(words[2])))
            return 0
        if words[:2] == ["mkdir", "-p"] and len(words) == 3:
            self._local(device, words[2]).mkdir(parents=True, exist_ok=True)
            return 0
        if words[:2] == ["rm", "-f"]:
            for target in words[2:]:
                self._local(device, target).unlink(missing_ok=True)
            return 0
        shell.err(f"/system/bin/sh: {words[0] if words else ''}: inaccessible or not found\n")
        return 127

    # -- packages: install, uninstall ------------------------------------------
    def _install(self, conn: socket.socket, device: dict[str, Any], words: list[str]) -> None:
        """PackageManagerShellCommand `install -S SIZE`: read the APK from the stream, answer
        `Success` or `Failure [CODE: message]` (the adb client prints it and exits 1)."""
        size = int(words[words.index("-S") + 1]) if "-S" in words else 0
        data = _read_exact(conn, size) if size else b""
        failure = device.get("install_failure")  # e.g. "INSTALL_FAILED_INSUFFICIENT_STORAGE"
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as apk:
                manifest = json.loads(apk.read(APK_MANIFEST))
        except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
            failure = failure or f"INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl.tmp/base.apk: {exc}"
            manifest = None
        if manifest is not None and "-t" not in words and manifest.get("test_only"):
            failure = failure or "INSTALL_FAILED_TEST_ONLY: installPackageLI"
        if failure:
            conn.sendall(f"Failure [{failure}]\n".encode())
            return
        with scenario_file.editing(self.scenario_path) as world:
            me = next(d for d in world["android"] if d["serial"] == device["serial"])
            me.setdefault("installed", {})[manifest["package"]] = {
                key: manifest[key] for key in ("versionCode", "versionName", "instrumentation") if key in manifest}
            me["installs"] = me.get("installs", 0) + 1
        conn.sendall(b"Success\n")

    def _uninstall(self, shell: ShellOutput, device: dict[str, Any], package: str) -> int:
        """PackageManager deletes the package and its data, external media directory included."""
        with scenario_file.editing(self.scenario_path) as world:
            me = next(d for d in world["android"] if d["serial"] == device["serial"])
            known = me.get("installed", {}).pop(package, None) is not None
        if not known:
            shell.out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
            return 1
        for path in APP_DATA:
            shutil.rmtree(self._local(device, path.format(pkg=package)), ignore_errors=True)
        shell.out("Success\n")
        return 0

    def _installed(self, device: dict[str, Any]) -> bool:
        installed = device.get("installed", {})
        test = installed.get(HARNESS_COMPONENT.split("/")[0], {})
        return HARNESS_PACKAGE in installed and test.get("instrumentation") == HARNESS_COMPONENT

    # -- am instrument: the harness test on the "phone" --------------------
    def _instrument(self, shell: ShellOutput, device: dict[str, Any], args: list[str]) -> int | None:
        extras: dict[str, str] = {}
        component = None
        i = 0
        while i < len(args):
            if args[i] == "-e" and i + 2 < len(args):
                extras[args[i + 1]] = args[i + 2]
                i += 3
            elif args[i] in ("-w", "-r", "--no-window-animation", "--no-hidden-api-checks"):
                i += 1
            elif args[i].startswith("-"):
                shell.err(f"Error: Unknown option: {args[i]}\n")
                return 1
            else:
                component = args[i]
                i += 1
        if component is not None and "/" not in component:
            out, err = _stdout_stderr(golden.transcript("am-instrument-bad-component.txt"), "Error: ")
            shell.out(out)
            shell.err(err)
            return 1
        if component != HARNESS_COMPONENT or not self._installed(device):
            # ActivityManager reports the missing instrumentation; Instrument.run() throws, exit 1.
            out, err = _stdout_stderr(golden.transcript("am-instrument-not-installed.txt"), "android.util.")
            shell.out(out)
            shell.err(err)
            return 1
        with scenario_file.editing(self.scenario_path) as world:
            me = next(d for d in world["android"] if d["serial"] == device["serial"])
            runs = me.get("instrumentation_runs", 0)
            me["instrumentation_runs"] = runs + 1
            unplug = me.get("unplug_after_blocks") is not None and runs >= me["unplug_after_blocks"]
            change = me.get("state_after_blocks")  # e.g. {"blocks": 0, "state": "unauthorized"}
            revoked = change is not None and runs >= change["blocks"]
            if unplug:
                world["android"] = [d for d in world["android"] if d["serial"] != device["serial"]]
            elif revoked:
                me["state"] = change["state"]
        mode = device.get("instrumentation", "run")
        if mode not in INSTRUMENTATION_MODES:
            raise ValueError(f"instrumentation: unknown mode {mode!r}; known: {', '.join(INSTRUMENTATION_MODES)}")
        stop = threading.Event()  # set by am force-stop
        with self._lock:
            self._stops.setdefault(device["serial"], []).append(stop)
        self.instrumentation_started.set()
        try:
            return self._run_instrumentation(shell, device, extras, mode, stop, cut=unplug or revoked)
        finally:
            with self._lock:
                self._stops[device["serial"]].remove(stop)

    def _run_instrumentation(self, shell: ShellOutput, device: dict[str, Any], extras: dict[str, str], mode: str,
                             stop: threading.Event, *, cut: bool) -> int | None:
        started, _ = golden.split_at_start(golden.transcript("am-instrument-pass.txt"))
        crashed = golden.split_at_start(golden.transcript("am-instrument-process-crashed.txt"))[1]
        if mode == "system_crash":
            shell.out(golden.transcript("am-instrument-system-crashed.txt"))
            return 0
        shell.out(started)
        if cut:
            # The cable is pulled (or the authorization revoked) mid-test: the stream ends
            # without an exit packet. What was written before still arrives first (TCP delivers
            # queued data before the FIN), so nothing needs to wait for the client to read it.
            shell.conn.shutdown(socket.SHUT_RDWR)
            return None
        failure = None
        if mode == "fail":
            failure = (f"java.lang.AssertionError: harness could not run the job\n"
                       f"\tat {TEST_CLASS}.{TEST_METHOD}(BenchTest.kt:42)")
        elif mode == "crash":
            shell.out(crashed)
            return 0
        elif mode == "hang":
            stop.wait()  # until am force-stop: ActivityManager then reports the process crashed
            shell.out(crashed)
            return 0
        elif mode == "malformed":
            # A result cut short, as a crash mid-write leaves it: no samples, no numbers.
            self._local(device, extras["out"]).parent.mkdir(parents=True, exist_ok=True)
            self._local(device, extras["out"]).write_text('{"contract": "latencylab.result/v1", "run_id": "')
        else:
            failure = self._run_harness(device, extras, stop)
            if stop.is_set():
                shell.out(crashed)
                return 0
        if failure is None:
            out = self._local(device, extras["out"])
            try:
                samples = len(json.loads(out.read_text()).get("samples", []))
            except (OSError, ValueError, AttributeError):
                samples = 0
            shell.out(golden.split_at_start(golden.transcript("am-instrument-pass.txt", out=extras["out"],
                                                              samples=samples))[1])
        else:
            shell.out(golden.split_at_start(golden.transcript("am-instrument-failure.txt", stack=failure))[1])
        return 0  # Instrument.run() ends in System.exit(0), pass or fail

    def _force_stop(self, device: dict[str, Any], package: str) -> None:
        """ActivityManager kills the app's process, and with it a running instrumentation."""
        with scenario_file.editing(self.scenario_path) as world:
            me = next((d for d in world["android"] if d["serial"] == device["serial"]), None)
            if me is not None:
                me["force_stops"] = me.get("force_stops", 0) + 1
        if package != HARNESS_PACKAGE:
            return
        with self._lock:
            stops = list(self._stops.get(device["serial"], []))
            processes = list(self._processes.get(device["serial"], []))
        for stop in stops:
            stop.set()
        for process in processes:
            try:
                os.kill(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _run_harness(self, device: dict[str, Any], extras: dict[str, str], stop: threading.Event) -> str | None:
        """The instrumentation test: read the job, run the core, write the result. A
        failure's text, or None."""
        if "job" not in extras or "out" not in extras:
            return "java.lang.IllegalArgumentException: instrumentation arguments job and out are required"
        job, out = self._local(device, extras["job"]), self._local(device, extras["out"])
        if not job.is_file():
            return f"java.io.FileNotFoundException: {extras['job']}: open failed: ENOENT (No such file or directory)"
        reason = harness_core.missing_reason()
        if reason:
            return f"java.lang.IllegalStateException: {reason}"
        props, battery = device["props"], device["battery"]
        serial = device["serial"]
        charging = bool(battery.get("ac") or battery.get("usb") or battery.get("wireless"))

        def track(process: subprocess.Popen[str]) -> None:
            with self._lock:
                self._processes.setdefault(serial, []).append(process)
            if stop.is_set():
                process.kill()

        try:
            done = harness_core.run_core(job=job, out=out, platform="android", model=props["ro.product.model"],
                                         os_version=props["ro.build.version.release"], netns=device.get("netns"),
                                         battery=100.0 * battery["level"] / battery.get("scale", 100),
                                         charging=charging,
                                         temperature=battery["temperature"] / 10, started=track,
                                         thermal_status=_thermal_name(device.get("thermal_status")))
        finally:
            with self._lock:
                self._processes[serial] = [p for p in self._processes.get(serial, []) if p.poll() is None]
        if done.returncode != 0:
            return f"java.lang.AssertionError: harness core exited {done.returncode}\n{done.stderr[-3000:]}"
        return None

    # -- sync: push and pull ---------------------------------------------
    def _local(self, device: dict[str, Any], remote: str) -> Path:
        return self.storage / device["serial"] / remote.lstrip("/")

    def _sync(self, conn: socket.socket, device: dict[str, Any]) -> None:
        while True:
            request, length = struct.unpack("<4sI", _read_exact(conn, 8))
            if request == b"QUIT":
                return
            payload = _read_exact(conn, length).decode()
            if request == b"STAT":
                conn.sendall(b"STAT" + self._stat_v1(self._local(device, payload)))
            elif request in (b"STA2", b"LST2"):
                conn.sendall(request + self._stat_v2(self._local(device, payload)))
            elif request == b"RECV":
                self._recv(conn, self._local(device, payload))
            elif request == b"SEND":
                remote, _, _mode = payload.rpartition(",")
                self._send(conn, self._local(device, remote))
            else:
                message = f"unknown sync request {request!r}".encode()
                conn.sendall(b"FAIL" + struct.pack("<I", len(message)) + message)
                return

    @staticmethod
    def _stat_v1(local: Path) -> bytes:
        if not local.exists():
            return struct.pack("<III", 0, 0, 0)
        st = local.stat()
        return struct.pack("<III", st.st_mode, st.st_size & 0xFFFFFFFF, int(st.st_mtime))

    @staticmethod
    def _stat_v2(local: Path) -> bytes:
        """struct sync_stat_v2: error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime."""
        if not local.exists():
            return struct.pack("<IQQIIIIQqqq", ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        st = local.stat()
        mode = (S_IFDIR if local.is_dir() else S_IFREG) | 0o660
        return struct.pack("<IQQIIIIQqqq", 0, 0, st.st_ino, mode, 1, 2000, 1078, st.st_size, int(st.st_atime),
                           int(st.st_mtime), int(st.st_ctime))

    @staticmethod
    def _recv(conn: socket.socket, local: Path) -> None:
        if not local.is_file():
            message = b"No such file or directory"
            conn.sendall(b"FAIL" + struct.pack("<I", len(message)) + message)
            return
        with open(local, "rb") as f:
            while chunk := f.read(SYNC_DATA_MAX):
                conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        conn.sendall(b"DONE" + struct.pack("<I", 0))

    @staticmethod
    def _send(conn: socket.socket, local: Path) -> None:
        local.parent.mkdir(parents=True, exist_ok=True)
        tmp = local.with_name(local.name + ".part")
        with open(tmp, "wb") as f:
            while True:
                kind, length = struct.unpack("<4sI", _read_exact(conn, 8))
                if kind == b"DATA":
                    f.write(_read_exact(conn, length))
                elif kind == b"DONE":
                    break  # length is the mtime
                else:
                    raise Closed()
        os.replace(tmp, local)
        conn.sendall(b"OKAY" + struct.pack("<I", 0))
