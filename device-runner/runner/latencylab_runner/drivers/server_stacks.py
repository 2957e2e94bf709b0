"""Which server answered each arm, for the run's fingerprint (result.schema.json
`server_stacks`): a harness reports the `Server` response headers it read; the runner
adds whether the arm went to its own reference target and, if so, what that target runs.

Figures get quoted: "HTTP/3 against the reference target on aioquic" and "HTTP/3 against
the customer's nginx" are different claims, so every run says which one it measured."""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from latencylab_tools.native import CHECKOUT_BIN

from .. import __version__

# The library under each protocol's front-end in the reference target (target/http1.py,
# target/http2.py, target/http3.py — the native latencylab-h3-target; gRPC is served over
# the h2 front-end). A front-end that changes library changes its entry here, or every run
# names the wrong server.
TARGET_LIBRARY = {"h1c": "h11", "h1": "h11", "h2": "h2", "grpc": "h2", "h3": "quic-go"}
# Libraries of the native programs (device-runner/tools/native): Go modules, pinned by its go.mod.
GO_MODULES = {"quic-go": "github.com/quic-go/quic-go"}
GO_MOD = CHECKOUT_BIN.parent / "go.mod"
# Contract bounds (result.schema.json `server_stack.server_headers`).
MAX_SERVER_HEADERS = 3
MAX_SERVER_HEADER_LENGTH = 128


def library_version(name: str) -> str:
    """A Python distribution's version, or a native program's Go module version ("0.65.0")."""
    if name in GO_MODULES:
        return go_module_version(GO_MODULES[name])
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def go_module_version(module: str) -> str:
    """The version the native programs are built with: their go.mod pins it (go.sum checks it)."""
    try:
        text = GO_MOD.read_text()
    except OSError:  # an installed runner without the native sources
        return "unknown"
    # Written as the target announces it (latencylab-h3-target: "quic-go 0.65.0"), without the v.
    found = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+v(\S+)", text, re.MULTILINE)
    return found.group(1) if found else "unknown"


def reference_target_software(protocol: str) -> str:
    """The reference target ships in this package, so the runner knows what it serves."""
    library = TARGET_LIBRARY[protocol]
    return f"latencylab-target {__version__} ({library} {library_version(library)})"


def server_header_list(values: Iterable[str | None] | None) -> list[str] | None:
    """Distinct header values within the contract's bounds, first seen first; None stays
    None (the harness could not read response headers on that protocol)."""
    if values is None:
        return None
    kept: list[str] = []
    for value in values:
        cut = (value or "").strip()[:MAX_SERVER_HEADER_LENGTH]
        if cut and cut not in kept and len(kept) < MAX_SERVER_HEADERS:
            kept.append(cut)
    return kept


def merge_observed(into: dict[str, Any], observed: dict[str, Any] | None) -> dict[str, Any]:
    """Fold one block's `server_stacks` (as a harness reported it) into the run's so far:
    header values add up across blocks; read-nowhere (null) only while no block read any."""
    for label, stack in (observed or {}).items():
        headers = stack.get("server_headers") if isinstance(stack, dict) else None
        before = (into.get(label) or {}).get("server_headers")
        if before is None and headers is None:
            into[label] = {"server_headers": None}
        else:
            into[label] = {"server_headers": server_header_list([*(before or []), *(headers or [])])}
    return into


def server_stacks(arms: list[dict[str, Any]], observed: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per arm of the (normalized) spec: reference target or the customer's endpoint,
    the reference target's software, and the Server headers the harness read (null when
    it reported none: an older harness, or a protocol it cannot read headers on)."""
    stacks = {}
    for arm in arms:
        reference = not arm.get("endpoint")
        seen = (observed or {}).get(arm["label"]) or {}
        stacks[arm["label"]] = {
            "target": "reference" if reference else "customer",
            "software": reference_target_software(arm["protocol"]) if reference else None,
            "server_headers": server_header_list(seen.get("server_headers")),
        }
    return stacks
