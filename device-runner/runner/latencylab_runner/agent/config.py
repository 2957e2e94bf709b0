"""The runner's config file: its own credentials (written once by `latencylab-runner
register`, mode 0600) and the lab's settings (drivers, gate thresholds, where the
reference target and fastlane are, how phones are shaped).

    {"server": "https://latencylab.example.com", "runner_token": "llr_…", "runner_id": "…",
     "name": "mac-mini-3", "pool": "lab-a", "drivers": ["android", "ios"],
     "target": {"host": "192.168.10.2", "plain_port": 8080, "tls_port": 8443,
                "server_name": "lab-a.latencylab.example.com",
                "cert_file": "/etc/latencylab/tls/lab/fullchain.pem",
                "key_file": "/etc/latencylab/tls/lab/privkey.pem"},
     "gate": {"min_battery_pct": 50, "min_battery_charging_pct": 20, "max_temperature_c": 36},
     "fastlane": {"command": ["fastlane"], "dir": "/opt/latencylab/device-runner/fastlane",
                  "base_timeout_s": 900, "per_request_s": 1.0, "max_timeout_s": 14400},
     "android": {"adb": "adb"},
     "ios": {"exchange_host": "0.0.0.0", "exchange_port": 8470, "lab_address": "192.168.10.2",
             "team_id": "A1B2C3D4E5", "bundle_id_prefix": "org.examplelab.latencylab", "min_free_mb": 1024},
     "link": {"mode": "ap-netem", "interface": "wlan0", "leases": "/var/lib/misc/dnsmasq.leases"},
     "work_dir": "~/.cache/latencylab/runner", "hosted": false}

`hosted: true` marks a host of LatencyLab's hosted fleet: every run's customer hosts are
checked against the hosted-pool policy and pinned (target_policy.py) even if a lease
said otherwise. Every setting but the credentials has a default; a bad value is refused with its field
path and the allowed values.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..devices.gate import GateThresholds
from ..drivers.device_link import LINK_MODES
from ..drivers.phone import DEFAULT_FASTLANE_DIR, LaneSettings
from ..drivers.targets import ReferenceTarget

CONFIG_ENV = "LATENCYLAB_RUNNER_CONFIG"
# An Apple Developer Team ID (10 upper-case letters and digits) and a bundle-ID prefix: reverse-DNS
# labels of letters, digits and hyphens (Xcode's rule for CFBundleIdentifier).
_TEAM_ID = re.compile(r"^[A-Z0-9]{10}$")
_BUNDLE_ID_PREFIX = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
DRIVERS = ("host", "android", "ios")
_KNOWN = {"server", "runner_token", "runner_id", "name", "pool", "drivers", "target", "gate", "fastlane", "android",
          "ios", "link", "work_dir", "heartbeat_interval_s", "hosted"}


class ConfigError(ValueError):
    pass


def default_config_path() -> Path:
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "latencylab" / "runner.json"


@dataclass(frozen=True)
class RunnerConfig:
    server: str
    runner_token: str
    name: str
    runner_id: str | None = None
    pool: str | None = None
    drivers: tuple[str, ...] = ("android", "ios")
    target: ReferenceTarget = ReferenceTarget("127.0.0.1", 8080, 8443, "localhost", None)
    gate: GateThresholds = field(default_factory=GateThresholds)
    lane: LaneSettings = field(default_factory=LaneSettings)
    adb: str = "adb"
    android_device_dir: str | None = None
    idevice_id: str = "idevice_id"
    ideviceinfo: str = "ideviceinfo"
    idevicediagnostics: str = "idevicediagnostics"
    exchange_host: str = "127.0.0.1"
    exchange_port: int = 0
    lab_address: str | None = None
    ios_team_id: str | None = None
    ios_bundle_id_prefix: str | None = None
    ios_min_free_mb: int = 1024
    link_mode: str = "ap-netem"
    link_interface: str | None = None
    link_leases: Path | None = None  # dnsmasq's lease file on the AP: how iPhones are found (drivers/dhcp_leases.py)
    # The roots the phones' system store holds, to judge target.cert_file against; None: this
    # host's bundle (the same public roots). The phone simulator's JVM phones trust its private CA.
    target_trust_store: Path | None = None
    work_dir: Path = Path("~/.cache/latencylab/runner").expanduser()
    heartbeat_interval_s: float = 10.0
    hosted: bool = False


def _section(doc: dict[str, Any], key: str, known: set[str]) -> dict[str, Any]:
    value = doc.get(key) or {}
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: must be an object")
    unknown = sorted(set(value) - known)
    if unknown:
        raise ConfigError(f"{key}.{unknown[0]}: unknown setting; known: {', '.join(sorted(known))}")
    return value


def _number(section: dict[str, Any], where: str, key: str, default: float, low: float, high: float) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(f"{where}.{key}: must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _port(section: dict[str, Any], where: str, key: str, default: int, *, allow_zero: bool = False) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not (0 if allow_zero else 1) <= value <= 65535:
        raise ConfigError(f"{where}.{key}: must be a port number from {0 if allow_zero else 1} to 65535, got {value!r}")
    return value


def parse_config(doc: Any) -> RunnerConfig:
    if not isinstance(doc, dict):
        raise ConfigError("(root): must be a JSON object")
    unknown = sorted(set(doc) - _KNOWN)
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown setting; known: {', '.join(sorted(_KNOWN))}")
    for key in ("server", "runner_token", "name"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise ConfigError(f"{key}: required (a non-empty string); run `latencylab-runner register` first")
    if not doc["server"].startswith(("https://", "http://")):
        raise ConfigError(f"server: must be an http(s) URL, got {doc['server']!r}")
    drivers = doc.get("drivers", ["android", "ios"])
    if not isinstance(drivers, list) or not drivers or any(d not in DRIVERS for d in drivers):
        raise ConfigError(f"drivers: must be a non-empty list of {', '.join(DRIVERS)}, got {drivers!r}")
    t = _section(doc, "target", {"host", "plain_port", "tls_port", "server_name", "ca_file", "cert_file", "key_file",
                                 "trust_store"})
    if bool(t.get("cert_file")) != bool(t.get("key_file")):
        raise ConfigError("target.cert_file, target.key_file: give both (the lab's certificate chain for "
                          "target.server_name and its key, as latencylab-target --cert-file/--key-file serves them) "
                          "or neither (the target's private CA)")
    target = ReferenceTarget(str(t.get("host", "127.0.0.1")), _port(t, "target", "plain_port", 8080),
                             _port(t, "target", "tls_port", 8443), str(t.get("server_name", "localhost")),
                             *(str(Path(t[key]).expanduser()) if t.get(key) else None
                               for key in ("ca_file", "cert_file", "key_file")))
    try:
        gate = GateThresholds.from_config(_section(doc, "gate", set(GateThresholds.__dataclass_fields__)))
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    f = _section(doc, "fastlane", {"command", "dir", "base_timeout_s", "per_request_s", "max_timeout_s"})
    command = f.get("command", ["fastlane"])
    if isinstance(command, str):
        command = [command]
    if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
        raise ConfigError(f"fastlane.command: must be a program and its arguments, e.g. [\"bundle\", \"exec\", "
                          f"\"fastlane\"], got {command!r}")
    lane = LaneSettings(tuple(command), Path(f.get("dir", DEFAULT_FASTLANE_DIR)).expanduser(),
                        _number(f, "fastlane", "base_timeout_s", 900, 10, 86400),
                        _number(f, "fastlane", "per_request_s", 1.0, 0, 600),
                        _number(f, "fastlane", "max_timeout_s", 14400, 10, 7 * 86400))
    a = _section(doc, "android", {"adb", "device_dir"})
    i = _section(doc, "ios", {"idevice_id", "ideviceinfo", "idevicediagnostics", "exchange_host", "exchange_port",
                              "lab_address", "team_id", "bundle_id_prefix", "min_free_mb"})
    team_id, prefix = i.get("team_id"), i.get("bundle_id_prefix")
    if team_id is not None and (not isinstance(team_id, str) or not _TEAM_ID.match(team_id)):
        raise ConfigError(f"ios.team_id: must be an Apple Developer Team ID (10 upper-case letters and digits, "
                          f"Xcode → Settings → Accounts), got {team_id!r}")
    if prefix is not None and (not isinstance(prefix, str) or not _BUNDLE_ID_PREFIX.match(prefix)
                               or prefix.startswith("dev.latencylab")):
        raise ConfigError(f"ios.bundle_id_prefix: must be the lab's own reverse-DNS prefix (e.g. "
                          f"\"org.examplelab.latencylab\"; App IDs are unique across Apple teams, so not "
                          f"dev.latencylab.*), got {prefix!r}")
    link = _section(doc, "link", {"mode", "interface", "leases"})
    if link.get("mode", "ap-netem") not in LINK_MODES:
        raise ConfigError(f"link.mode: must be one of {', '.join(LINK_MODES)}, got {link.get('mode')!r}")
    if not isinstance(doc.get("hosted", False), bool):
        raise ConfigError(f"hosted: must be true or false, got {doc['hosted']!r}")
    return RunnerConfig(
        server=doc["server"], runner_token=doc["runner_token"], name=doc["name"], runner_id=doc.get("runner_id"),
        pool=doc.get("pool"), drivers=tuple(drivers), target=target, gate=gate, lane=lane,
        adb=a.get("adb", "adb"), android_device_dir=a.get("device_dir"),
        idevice_id=i.get("idevice_id", "idevice_id"), ideviceinfo=i.get("ideviceinfo", "ideviceinfo"),
        idevicediagnostics=i.get("idevicediagnostics", "idevicediagnostics"),
        exchange_host=i.get("exchange_host", "127.0.0.1"), exchange_port=_port(i, "ios", "exchange_port", 0,
                                                                               allow_zero=True),
        lab_address=i.get("lab_address"), ios_team_id=team_id, ios_bundle_id_prefix=prefix,
        ios_min_free_mb=int(_number(i, "ios", "min_free_mb", 1024, 0, 1024 * 1024)),
        link_mode=link.get("mode", "ap-netem"), link_interface=link.get("interface"),
        link_leases=Path(link["leases"]).expanduser() if link.get("leases") else None,
        target_trust_store=Path(t["trust_store"]).expanduser() if t.get("trust_store") else None,
        work_dir=Path(doc.get("work_dir", "~/.cache/latencylab/runner")).expanduser(),
        heartbeat_interval_s=_number(doc, "(root)", "heartbeat_interval_s", 10, 1, 60),
        hosted=doc.get("hosted", False),
    )


def load_config(path: Path) -> RunnerConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such config; enroll first with `latencylab-runner register`") from exc
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"{path}: holds the runner token but is readable by others (mode {mode:o}); "
                          f"chmod 600 {path}")
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path}: not JSON: {exc}") from exc
    try:
        return parse_config(doc)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def write_new_config(path: Path, doc: dict[str, Any], *, force: bool) -> None:
    """Create the config with mode 0600 from the first byte (never a window where the
    token is world-readable); refuse to replace an existing one unless forced."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.exists() and not force:
        raise ConfigError(f"{path} exists (this host is already enrolled); pass --force to replace it")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.chmod(tmp, 0o600)  # whatever the umask did
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
