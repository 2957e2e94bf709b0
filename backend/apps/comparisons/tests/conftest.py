"""Fixtures of the comparison tests that drive the real runner agent."""

import pytest


@pytest.fixture
def target(tmp_path):
    """The device-runner's reference target server (h1c, TLS h1/h2/gRPC) on free loopback ports."""
    start_target = pytest.importorskip("latencylab_runner.target").start_target
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls") as running:
        yield running
