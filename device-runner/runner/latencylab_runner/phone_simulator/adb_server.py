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
- `sync:` with STAT/STA2/LST2/RECV/SEND/QUIT (file_sync_protocol.h) for push and pull.

Each device's storage is a directory; `am instrument` of the harness test runs the real
Kotlin core (harness_core.py) on the job pushed there and writes the result there.
"""

from __future__ import annotations

import os
import shlex
import socket
import struct
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from . import harness_core
from . import scenario as scenario_file

ADB_SERVER_VERSION = 41
# What an Android 10 adbd advertises (adb transport.cpp supported_features).
FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec,remount_shell"
UNAUTHORIZED = ("device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
                "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.")
HARNESS_COMPONENT = "dev.latencylab.harness.test/androidx.test.runner.AndroidJUnitRunner"
TEST_CLASS, TEST_METHOD = "dev.latencylab.harness.BenchTest", "runJob"
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

    @property
    def socket_spec(self) -> str:
        return f"tcp:127.0.0.1:{self.port}"

    def start(self) -> FakeAdbServer:
        self._sock.listen(64)
        threading.Thread(target=self._accept, name="fake-adb", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
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
        try:
            self._dispatch(conn)
        except Closed:
            pass
        except Exception:  # a fake's bug must be visible in the test output
            traceback.print_exc()
        finally:
            # shutdown, not just close: the stdin-draining thread's recv holds the socket open.
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def _fail(self, conn: socket.socket, message: str) -> None:
        conn.sendall(b"FAIL" + _protocol_string(message))

    def _dispatch(self, conn: socket.socket) -> None:
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
                self._shell(conn, device, command, v2="v2" in options.split(","))
                return
            if service.startswith("exec:"):
                conn.sendall(b"OKAY")
                self._shell(conn, device, service[len("exec:"):], v2=False)
                return
            if service == "sync:":
                conn.sendall(b"OKAY")
                self._sync(conn, device)
                return
            self._fail(conn, f"unknown service '{service}'")
            return

    # -- shell -----------------------------------------------------------
    def _shell(self, conn: socket.socket, device: dict[str, Any], command: str, *, v2: bool) -> None:
        if v2:
            # The client sends stdin packets (and id 4, close-stdin); nothing here reads them.
            threading.Thread(target=self._drain, args=(conn,), daemon=True).start()
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
        if words[:2] == ["mkdir", "-p"] and len(words) == 3:
            self._local(device, words[2]).mkdir(parents=True, exist_ok=True)
            return 0
        if words[:2] == ["rm", "-f"]:
            for target in words[2:]:
                self._local(device, target).unlink(missing_ok=True)
            return 0
        shell.err(f"/system/bin/sh: {words[0] if words else ''}: inaccessible or not found\n")
        return 127

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
        mode = device.get("instrumentation", "run")
        if component != HARNESS_COMPONENT or mode == "not_installed":
            # Instrument.java: -r prints onError to stdout, the exception to stderr, exit 1.
            shell.out(f"onError: commandError=true message=INSTRUMENTATION_FAILED: {component}\n")
            shell.err(f"android.util.AndroidException: INSTRUMENTATION_FAILED: {component}\n"
                      "\tat com.android.commands.am.Instrument.run(Instrument.java:519)\n")
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
        shell.out(self._status_block(1, ""))
        if unplug or revoked:
            # The cable is pulled (or the authorization revoked) mid-test: the stream ends
            # without an exit packet.
            time.sleep(0.2)
            shell.conn.shutdown(socket.SHUT_RDWR)
            return None
        if mode == "crash":
            # The harness app dies under instrumentation: ActivityManager ends the session with
            # this result bundle, and `am instrument` still exits 0.
            shell.out("INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n")
            return 0
        started = time.monotonic()
        failure = None
        if mode == "fail":
            failure = "java.lang.AssertionError: harness could not run the job\n\tat " \
                      f"{TEST_CLASS}.{TEST_METHOD}(BenchTest.kt:42)"
        elif mode == "malformed":
            # A result cut short, as a crash mid-write leaves it: no samples, no numbers.
            self._local(device, extras["out"]).parent.mkdir(parents=True, exist_ok=True)
            self._local(device, extras["out"]).write_text('{"contract": "latencylab.result/v1", "run_id": "')
        else:
            failure = self._run_harness(device, extras)
        seconds = time.monotonic() - started
        if failure is None:
            shell.out(self._status_block(0, "."))
            shell.out(f"INSTRUMENTATION_RESULT: stream=\n\nTime: {seconds:.3f}\n\nOK (1 test)\n\n\n"
                      "INSTRUMENTATION_CODE: -1\n")
        else:
            shell.out(self._status_block(-2, f"\nError in {TEST_METHOD}({TEST_CLASS}):\n{failure}", stack=failure))
            shell.out(f"INSTRUMENTATION_RESULT: stream=\n\nTime: {seconds:.3f}\nThere was 1 failure:\n"
                      f"1) {TEST_METHOD}({TEST_CLASS})\n{failure}\n\nFAILURES!!!\nTests run: 1,  Failures: 1\n\n\n"
                      "INSTRUMENTATION_CODE: -1\n")
        return 0  # Instrument.run() ends in System.exit(0), pass or fail

    def _run_harness(self, device: dict[str, Any], extras: dict[str, str]) -> str | None:
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
        done = harness_core.run_core(job=job, out=out, platform="android", model=props["ro.product.model"],
                                     os_version=props["ro.build.version.release"], netns=extras.get("ll_netns"),
                                     battery=100.0 * battery["level"] / battery.get("scale", 100),
                                     charging=bool(battery.get("ac") or battery.get("usb") or battery.get("wireless")),
                                     temperature=battery["temperature"] / 10)
        if done.returncode != 0:
            return f"java.lang.AssertionError: harness core exited {done.returncode}\n{done.stderr[-3000:]}"
        return None

    @staticmethod
    def _status_block(code: int, stream: str, stack: str | None = None) -> str:
        """InstrumentationResultPrinter: keys sorted, then the status code."""
        keys = {"class": TEST_CLASS, "current": "1", "id": "AndroidJUnitRunner", "numtests": "1",
                "stream": stream if code != 1 else f"\n{TEST_CLASS}:", "test": TEST_METHOD}
        if stack is not None:
            keys["stack"] = stack
        lines = "".join(f"INSTRUMENTATION_STATUS: {k}={keys[k]}\n" for k in sorted(keys))
        return lines + f"INSTRUMENTATION_STATUS_CODE: {code}\n"

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
