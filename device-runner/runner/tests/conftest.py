"""The runner's tests: the tools' real servers (tools/tests/target_process.py), the simulated
phones (device_lab.py over latencylab_runner.phone_simulator) and a recording backend (fakes/)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from device_lab import Lab, RecordingBackend, start_lab
from target_process import nagle_target, nginx_server, target_server, tls_dir

from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.targets import ReferenceTarget

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


@pytest.fixture
def reference(target_server) -> ReferenceTarget:
    """The reference target the runner's drivers reach, as a lab's config names it."""
    return ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                           str(target_server.ca_file))


@pytest.fixture
def exchange() -> Iterator[JobExchange]:
    """The runner's job exchange, where iPhones fetch jobs and put results."""
    server = JobExchange("127.0.0.1", 0)
    yield server
    server.close()
