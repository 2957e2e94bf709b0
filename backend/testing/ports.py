"""Loopback ports for tests."""

import socket


def free_port() -> int:
    """A loopback port nobody listens on (bound and released by the OS just now): a server
    may start on it, and a client connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
