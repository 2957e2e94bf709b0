"""The runner's tests: the tools' real servers (tools/tests/target_process.py), the simulated
phones (device_lab.py over latencylab_runner.phone_simulator) and a recording backend (fakes/)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from device_lab import Lab, RecordingBackend, start_lab
from target_process import nagle_target, nginx_server, target_server, tls_dir

__all__ = ["backend", "lab", "nagle_target", "nginx_server", "target_server", "tls_dir"]


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """Simulated phones for the device-lab tests (device_lab.py, latencylab_runner.phone_simulator)."""
    world = start_lab(tmp_path, monkeypatch)
    yield world
    world.adb.stop()


@pytest.fixture
def backend() -> Iterator[RecordingBackend]:
    """A recording runner-protocol backend that checks the runner's requests (fakes/backend.py)."""
    server = RecordingBackend()
    yield server
    server.close()
