"""Warnings, not refusals, about a spec's customer endpoints: a host name that does not
resolve from the service is most likely a typo, but a private pool's runners may resolve
names the service cannot (the organization's own lab DNS), so the spec is still accepted.
The runner checks every target again before each block, and a customer endpoint that does
not answer then fails the comparison alone (`target_unreachable`), never a device.

A hosted pool's spec has been through target_policy_errors by then, which refuses a name
that does not resolve outright."""

import socket
from typing import Any
from urllib.parse import urlsplit

from apps.core.addresses import literal_address, resolve

from .target_policy import customer_urls


def target_warnings(spec: dict[str, Any]) -> list[dict[str, str]]:
    """[{field, message}] for every customer URL whose host name does not resolve, each
    host looked up once, in the spec's order."""
    warnings: list[dict[str, str]] = []
    looked_up: dict[str, str | None] = {}
    for where, url in customer_urls(spec):
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host or literal_address(host) is not None:
            continue
        if host not in looked_up:
            looked_up[host] = _lookup_problem(host, parts.port or (443 if parts.scheme.lower() == "https" else 80))
        if (problem := looked_up[host]) is not None:
            label = f" (arm {spec['arms'][int(where[1])]['label']!r})" if where[0] == "arms" else ""
            warnings.append({"field": ".".join(where), "message": (
                f"{host} does not resolve{label}: {problem}. If your lab's runners cannot resolve it either, the "
                f"comparison will fail at its first block, naming this endpoint.")})
    return warnings


def _lookup_problem(host: str, port: int) -> str | None:
    try:
        return None if resolve(host, port) else "no address"
    except (socket.gaierror, UnicodeError) as exc:
        return str(exc)
