"""Public value types of the probe and the internal failure signal."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

PROTOCOLS = ("h1c", "h1", "h2", "h3", "grpc")
CONNECTION_POLICIES = ("cold", "warm", "resumed")
# ALPN id each arm must end up with; anything else is a protocol_mismatch.
EXPECTED_ALPN = {"h1c": None, "h1": "http/1.1", "h2": "h2", "grpc": "h2", "h3": "h3"}


@dataclass(frozen=True)
class Origin:
    scheme: str  # "https", or "http" for h1c only
    host: str  # DNS name or IP literal to connect to
    port: int
    server_name: str | None = None  # SNI + certificate name + :authority; defaults to host

    @property
    def tls_name(self) -> str:
        return self.server_name or self.host

    @property
    def authority(self) -> str:
        name = self.tls_name
        if _is_ip(name) and ":" in name:
            name = f"[{name}]"
        default = 443 if self.scheme == "https" else 80
        return name if self.port == default else f"{name}:{self.port}"

    @property
    def host_is_ip(self) -> bool:
        return _is_ip(self.host)


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value.strip("[]"))
        return True
    except ValueError:
        return False


@dataclass(frozen=True)
class ProbeRequest:
    method: str = "GET"
    path: str = "/"
    body: bytes = b""
    op: str | None = None  # sample.schema op: get|echo|delay|bytes|file|grpc_unary|grpc_stream
    server_delay_ms: float | None = None  # the injected delay, copied into the sample
    # A customer's own request headers (lower-case names), sent after the probe's own.
    headers: tuple[tuple[str, str], ...] = ()


class ProbeFailure(Exception):
    """Raised inside a fetch; becomes an error sample, never escapes fetch()."""

    def __init__(self, error_class: str, detail: str):
        super().__init__(detail)
        self.error_class = error_class
        self.detail = detail
