"""Which customer URLs a comparison may send a pool's runners to (SSRF; docs/security.md,
"Hosted and private pools").

A hosted pool's runners serve every organization from LatencyLab's own network: they never
fetch a private, loopback, link-local, CGNAT, metadata or other reserved address
(apps.core.addresses). Checked here when the comparison is created, and again by the
runner at lease time after its own DNS lookup, with every connection pinned to the
address it checked (a name that resolves elsewhere the second time gets nowhere). A
private pool's runners are the organization's own machines on its own network: reaching
its internal services is why such a pool exists, so its targets are not restricted.

The reference target (an arm without `endpoint`) is the runner's own server, not a
customer URL, and is never checked.
"""

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from apps.core.addresses import BlockedAddress, check_host
from apps.devices.models import DevicePool

Where = tuple[str, ...]


def customer_urls(spec: dict[str, Any]) -> Iterator[tuple[Where, str]]:
    """Every absolute URL of the customer's in a normalized spec, with its field path: arm
    endpoints, a series' or mixed workload's absolute object/file URLs, and a request
    list's `url`s (a HAR import arrives as such a list). Paths are relative to an arm's
    endpoint, so the endpoint's check covers them."""
    for index, arm in enumerate(spec["arms"]):
        if arm.get("endpoint"):
            yield ("arms", str(index), "endpoint"), arm["endpoint"]
    workload = spec["workload"]
    for field in ("object_paths", "file_paths"):
        for index, path in enumerate(workload.get(field) or []):
            if not path.startswith("/"):
                yield ("workload", field, str(index)), path
    for index, request in enumerate(workload.get("requests") or []):
        if request.get("url"):
            yield ("workload", "requests", str(index), "url"), request["url"]


def _nested(where: Where, message: str) -> dict[str, Any]:
    error: Any = [message]
    for key in reversed(where):
        error = {key: error}
    return error


def target_policy_errors(spec: dict[str, Any], *, pool_kind: str) -> dict[str, Any] | None:
    """The DRF error map for the first customer URL a pool of `pool_kind` may not reach,
    or None. Each host is resolved once (through apps.core.addresses.resolve)."""
    if pool_kind != DevicePool.Kind.HOSTED:
        return None
    urls = list(customer_urls(spec))
    if urls and "ios" in spec["devices"]["platforms"]:
        # The iOS harness (URLSession) cannot be pinned to a checked address: the runner
        # refuses such a run, so it is refused here first.
        return {"devices": {"platforms": [
            "On a hosted pool, customer endpoints run on host and android devices: the iOS harness cannot be "
            "held to the address checked against DNS rebinding. Drop ios, or use a private pool."]}}
    checked: dict[tuple[str, int], str | None] = {}
    for where, url in urls:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        if (host, port) not in checked:
            checked[(host, port)] = _refusal(host, port)
        if (problem := checked[(host, port)]) is not None:
            return _nested(where, problem)
    return None


def _refusal(host: str, port: int) -> str | None:
    try:
        check_host(host, port)
    except BlockedAddress as exc:
        return f"{exc}; hosted pools may not reach it (a private pool of your own may)."
    except OSError as exc:
        return f"{exc}: a hosted pool's runners must be able to resolve it to a public address."
    return None
