"""`{{secret.NAME}}` in a request header value: the spec keeps the placeholder; the lease
of a run carries the values of the names its spec references (apps.scheduler.leasing),
and the runner substitutes them in memory (latencylab_runner.workloads.secrets)."""

import re
from collections.abc import Iterator
from typing import Any

# The name part is apps.accounts.models.SECRET_NAME_PATTERN's.
REFERENCE = re.compile(r"\{\{secret\.([A-Z][A-Z0-9_]{0,63})\}\}")
OPENING = "{{secret."


def reference_problem(value: str) -> str | None:
    """Why a header value's placeholders are malformed; None when every `{{secret.` opens
    a well-formed `{{secret.NAME}}` (or there is none)."""
    if OPENING in REFERENCE.sub("", value):
        return ("Malformed secret reference: write {{secret.NAME}}, NAME 1–64 of A-Z, 0-9 and _, starting with "
                "a letter.")
    return None


def header_references(spec: dict[str, Any]) -> Iterator[tuple[int, str, str]]:
    """(request index, header name, secret name) for every reference in a normalized spec."""
    workload = spec.get("workload") or {}
    if workload.get("kind") != "requests":
        return
    for index, request in enumerate(workload.get("requests") or []):
        for header, value in (request.get("headers") or {}).items():
            for name in REFERENCE.findall(value):
                yield index, header, name


def referenced_secret_names(spec: dict[str, Any]) -> set[str]:
    return {name for _, _, name in header_references(spec)}


def _submitted_header_name(submitted: Any, index: int, header: str) -> str:
    """The header name as the user wrote it (the normalized spec lower-cases it), so the
    error's field path is the one in their file."""
    try:
        names = submitted["workload"]["requests"][index]["headers"].keys()
    except (KeyError, IndexError, TypeError, AttributeError):
        return header
    return next((name for name in names if isinstance(name, str) and name.lower() == header), header)


def unknown_secret_errors(spec: dict[str, Any], submitted: Any, *, known: set[str]) -> dict[str, Any]:
    """{"workload": {"requests": {"2": {"headers": {"Authorization": [...]}}}}} for every
    reference to a secret the organization does not have; empty when all exist."""
    errors: dict[str, Any] = {}
    for index, header, name in header_references(spec):
        if name in known:
            continue
        field = _submitted_header_name(submitted, index, header)
        request_errors = errors.setdefault(str(index), {"headers": {}})["headers"]
        request_errors.setdefault(field, []).append(
            f"No secret named {name} in this organization: create it first (POST /api/v1/secrets), then "
            f"reference it as {{{{secret.{name}}}}}.")
    return {"workload": {"requests": errors}} if errors else {}

