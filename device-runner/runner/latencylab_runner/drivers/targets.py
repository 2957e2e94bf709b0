"""Where an arm's requests go: the runner's reference target server, or the customer's
own endpoint from the spec (with its own CA bundle; verification is never turned off)."""

from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class ReferenceTarget:
    host: str
    plain_port: int
    tls_port: int
    server_name: str
    ca_file: str | None
    # The lab's own certificate (chain) and key for `server_name`, which `latencylab-target
    # --cert-file/--key-file` serves; None: the target's private CA (target_certificate.py
    # judges whether phones' system stores trust it: Android's h3 needs that).
    cert_file: str | None = None
    key_file: str | None = None


@dataclass(frozen=True)
class ArmEndpoint:
    scheme: str
    host: str
    port: int
    server_name: str
    ca_file: str | None
    ca_pem: str | None
    base_path: str


def arm_endpoint(arm: dict, target: ReferenceTarget) -> ArmEndpoint:
    if arm.get("endpoint"):
        url = urlsplit(arm["endpoint"])
        scheme = url.scheme.lower()
        port = url.port or (80 if scheme == "http" else 443)
        return ArmEndpoint(scheme, url.hostname or "", port, url.hostname or "", None, arm.get("ca_bundle"),
                           url.path.rstrip("/"))
    if arm["protocol"] == "h1c":
        return ArmEndpoint("http", target.host, target.plain_port, target.server_name, None, None, "")
    return ArmEndpoint("https", target.host, target.tls_port, target.server_name, target.ca_file, None, "")
