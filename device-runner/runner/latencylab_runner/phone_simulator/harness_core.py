"""Running the real Kotlin harness core on the JVM as the phone's harness would run.

The simulator never fabricates measurements: a block's numbers come from this jar measuring
the reference target over real sockets (inside the emulated link's client namespace
when the run has a network profile), or there are none."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

from .scenario import HARNESS_JAR

JAR_ENV = "LATENCYLAB_HARNESS_JAR"


def jar_path() -> Path:
    return Path(os.environ.get(JAR_ENV) or HARNESS_JAR)


def missing_reason() -> str | None:
    """Why the core cannot run here, or None."""
    if not jar_path().is_file():
        return (f"the Kotlin harness core jar is not built: {jar_path()} is missing "
                "(mvn -f device-runner/harness/android/core package)")
    try:
        with zipfile.ZipFile(jar_path()) as jar:
            manifest = jar.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        return f"the Kotlin harness core jar {jar_path()} is unreadable: {exc}"
    if "Main-Class:" not in manifest:
        return f"{jar_path()} is not the runnable (shaded) harness core jar: its manifest has no Main-Class"
    if shutil.which("java") is None:
        return "java is not installed"
    return None


def run_core(*, job: Path, out: Path, platform: str, model: str, os_version: str, netns: str | None,
             battery: float | None = None, charging: bool | None = None, temperature: float | None = None,
             thermal_status: str | None = None, timeout_s: float = 600.0,
             started: Callable[[subprocess.Popen[str]], None] | None = None) -> subprocess.CompletedProcess[str]:
    """The core's own CLI (harness/android/core jvm/Main.kt); the device readings are what
    a phone's harness would read from its battery manager and the platform's thermal status."""
    argv = ["java", "-jar", str(jar_path()), "--job", str(job), "--out", str(out), "--platform", platform,
            "--model", model, "--os-version", os_version, "--radio", "wifi"]
    for flag, value in (("--battery", battery), ("--temperature", temperature)):
        if value is not None:
            argv += [flag, f"{value:g}"]
    if charging is not None:
        argv += ["--charging", "true" if charging else "false"]
    if thermal_status is not None:
        argv += ["--thermal-status", thermal_status]
    if netns:
        # The phone's Wi-Fi is the emulated link: the harness runs behind its client side.
        argv = ["ip", "netns", "exec", netns, *argv]
    # The process is handed to `started` so that the simulated phone can kill it (am force-stop).
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if started is not None:
        started(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)
