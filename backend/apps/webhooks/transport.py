"""The one outbound HTTP request a delivery makes: POST to the configured URL, 10 s
timeout, redirects never followed, and the address checked after DNS resolution and
then pinned, so a hostname cannot be re-pointed at an internal address (SSRF,
DNS rebinding) between the check and the connection. The address policy is the
service's one (apps.core.addresses)."""

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from apps.core.addresses import BlockedAddress, address_problem, check_host, is_loopback

TIMEOUT_S = 10.0
LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}


__all__ = ["BlockedAddress", "Response", "address_allowed", "is_loopback_host", "loopback_allowed", "post"]


def loopback_allowed() -> bool:
    # Plain-HTTP receivers on localhost are for development and tests; production sets it off.
    return bool(settings.WEBHOOKS_ALLOW_LOOPBACK)


def is_loopback_host(host: str) -> bool:
    host = host.lower().strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def address_allowed(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if is_loopback(ip):
        return loopback_allowed()
    return address_problem(ip) is None


@dataclass(frozen=True)
class Response:
    status: int
    location: str


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def resolve_allowed(host: str, port: int) -> str:
    try:
        return check_host(host, port, allow_loopback=loopback_allowed()).address
    except BlockedAddress as exc:
        raise BlockedAddress(f"{exc}; webhooks may not reach it") from exc


def post(url: str, *, body: bytes, headers: dict[str, str], timeout: float = TIMEOUT_S) -> Response:
    """Raises OSError (network), BlockedAddress; a 3xx is returned as is, never followed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = resolve_allowed(host, port)
    connection_class = _PinnedHTTPSConnection if https else _PinnedHTTPConnection
    connection = connection_class(host, port, address=address, timeout=timeout)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", path, body=body, headers={**headers, "Content-Length": str(len(body))})
        response = connection.getresponse()
        response.read(65536)
        return Response(status=response.status, location=response.getheader("Location") or "")
    finally:
        connection.close()
