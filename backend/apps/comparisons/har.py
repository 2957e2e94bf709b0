"""HAR (HTTP Archive 1.2, as Chrome DevTools, Charles and Proxyman export it) → a
`requests` workload preview.

The recording's requests keep their order (by `startedDateTime`, ties in file order), their
methods, bodies and the statuses the recording saw (as `expect_status`). A request to the
recording's main origin (the first request's, or the one the user names) becomes a `path`,
so the list replays against each arm's endpoint; any other origin stays an absolute `url`.
Credentials never leave the file: `Cookie`, `Authorization` and similar headers are
dropped and listed, never copied into the preview, unless the user maps them to the
organization's secrets (`secret_map`: {"Authorization": "API_TOKEN"} → the header's value
is `{{secret.API_TOKEN}}`); a URL carrying user:password@ (in an entry, or as the `origin`
given) is a 400 naming it, as in a spec (url_credentials.py). Headers the client sets itself (HTTP/2
pseudo-headers, Host, Content-Length, hop-by-hop) are dropped silently. Requests that
overlapped in time in the recording form a concurrency group (what the app issued at
once), reported beside the workload.

The preview is validated by the spec's own RequestsWorkloadSpec, so what it returns can be
submitted as it is. A malformed entry is a ValidationError naming it
(`{"entries": {"3": {"request.url": [...]}}}`)."""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from rest_framework import serializers

from apps.accounts.models import SECRET_NAME_PATTERN

from .spec import HEADER_NAME, MAX_LISTED_REQUESTS, RESERVED_HEADERS, RequestsWorkloadSpec, check_request_url

MAX_HAR_BYTES = 10 * 1024 * 1024
# Credentials and session state: dropped unless the user maps them to secrets.
CREDENTIAL_HEADERS = {"authorization", "cookie", "proxy-authorization", "x-api-key", "x-auth-token", "x-csrf-token",
                      "x-xsrf-token"}
# Set by the replaying client from its own connection and protocol.
# accept-encoding: the probe does not decompress, so a replayed br/gzip offer would change the bytes.
CLIENT_HEADERS = RESERVED_HEADERS | {"accept-encoding"}
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9 ._:/()-]+")


def _fail(index: int, field: str, message: str) -> serializers.ValidationError:
    return serializers.ValidationError({"entries": {str(index): {field: [message]}}})


def _started(entry: dict[str, Any], index: int) -> float:
    """startedDateTime as epoch seconds (ISO 8601 with offset, as HAR 1.2 requires)."""
    raw = entry.get("startedDateTime")
    if not isinstance(raw, str):
        raise _fail(index, "startedDateTime", "Required: an ISO 8601 date-time.")
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise _fail(index, "startedDateTime", f"Not an ISO 8601 date-time: {raw[:64]!r}.") from None


def _entries(har: Any) -> list[dict[str, Any]]:
    if not isinstance(har, dict) or not isinstance(har.get("log"), dict):
        raise serializers.ValidationError({"log": ["Not a HAR file: no `log` object."]})
    entries = har["log"].get("entries")
    if not isinstance(entries, list) or not entries:
        raise serializers.ValidationError({"log": {"entries": ["A HAR needs a non-empty `log.entries` list."]}})
    if len(entries) > MAX_LISTED_REQUESTS:
        raise serializers.ValidationError({"log": {"entries": [
            f"At most {MAX_LISTED_REQUESTS} requests per workload; this HAR has {len(entries)}. Export a shorter "
            f"recording or split it."]}})
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
            raise _fail(index, "request", "Each entry needs a `request` object.")
    return entries


def _name(index: int, method: str, path: str) -> str:
    """`03 GET /v1/feed` cut to the spec's 64 characters and alphabet."""
    return _NAME_UNSAFE.sub("_", f"{index:02d} {method} {path.split('?', 1)[0]}")[:64]


def _body(request: dict[str, Any], index: int) -> dict[str, Any]:
    post = request.get("postData")
    if post is None:
        return {}
    if not isinstance(post, dict):
        raise _fail(index, "request.postData", "Must be an object.")
    text = post.get("text")
    if text is None:
        if post.get("params"):
            raise _fail(index, "request.postData", "Form params without `text` cannot be replayed byte for byte.")
        return {}
    if not isinstance(text, str):
        raise _fail(index, "request.postData.text", "Must be a string.")
    if post.get("encoding") == "base64":
        try:
            base64.b64decode(text, validate=True)
        except ValueError:
            raise _fail(index, "request.postData.text", "encoding is base64 but the text is not.") from None
        return {"body_b64": text}
    return {"body": text}


def _headers(request: dict[str, Any], index: int, dropped: list[dict[str, Any]],
             secret_map: dict[str, str]) -> dict[str, str]:
    raw = request.get("headers", [])
    if not isinstance(raw, list):
        raise _fail(index, "request.headers", "Must be a list of {name, value}.")
    kept: dict[str, str] = {}
    for position, header in enumerate(raw):
        if not isinstance(header, dict) or not isinstance(header.get("name"), str) or not isinstance(
                header.get("value"), str):
            raise _fail(index, f"request.headers.{position}", "Must be {name: string, value: string}.")
        name = header["name"].lower()
        if name.startswith(":") or name in CLIENT_HEADERS:
            continue
        if name in secret_map:
            # The recorded value never leaves the file: the organization's secret stands in.
            kept[name] = f"{{{{secret.{secret_map[name]}}}}}"
            continue
        if name in CREDENTIAL_HEADERS:
            dropped.append({"entry": index, "header": name, "reason": "credential (map it to a secret to send it)"})
            continue
        if any(c in header["value"] for c in "\r\n\x00"):
            raise _fail(index, f"request.headers.{position}",
                        f"The value of {header['name']!r} contains CR, LF or NUL.")
        kept[name] = header["value"] if name not in kept else f"{kept[name]}, {header['value']}"
    return kept


def concurrency_groups(spans: list[tuple[float, float]]) -> list[list[int]]:
    """Indexes of requests (in replay order) grouped where the recording overlapped them:
    a request that started before every request of the current group had finished joins it."""
    groups: list[list[int]] = []
    group_end = float("-inf")
    for index, (start, end) in enumerate(spans):
        if groups and start < group_end:
            groups[-1].append(index)
            group_end = max(group_end, end)
        else:
            groups.append([index])
            group_end = end
    return groups


def check_secret_map(secret_map: Any) -> dict[str, str]:
    """{header name: secret name} → lower-cased header names; a ValidationError under
    `secret_map` naming the header otherwise."""
    if not isinstance(secret_map, dict):
        raise serializers.ValidationError({"secret_map": ["An object: {header name: secret name}."]})
    checked: dict[str, str] = {}
    for header, secret in secret_map.items():
        if not isinstance(header, str) or not HEADER_NAME.match(header) or header.lower() in CLIENT_HEADERS:
            raise serializers.ValidationError({"secret_map": {str(header): [
                "Not a header a replayed request may carry (a token name; not one the client sets itself)."]}})
        if not isinstance(secret, str) or not re.match(SECRET_NAME_PATTERN, secret):
            raise serializers.ValidationError({"secret_map": {header: [
                "A secret name: 1–64 of A-Z, 0-9 and _, starting with a letter."]}})
        checked[header.lower()] = secret
    return checked


def har_preview(har: Any, *, origin: str | None = None, repetitions: int = 10,
                secret_map: dict[str, str] | None = None) -> dict[str, Any]:
    """The `requests` workload a HAR replays, with what was dropped and the concurrency
    groups. `origin` (scheme://host[:port]) is the recording's main server; default: the
    first request's. `secret_map` ({header: secret name}, checked by check_secret_map)
    turns those headers into `{{secret.NAME}}` instead of dropping or copying them."""
    secret_map = check_secret_map(secret_map or {})
    if origin is not None and (problem := check_request_url(origin)):
        # The origin becomes the arms' endpoint in the dashboard: refused like one.
        raise serializers.ValidationError({"origin": [problem]})
    entries = _entries(har)
    ordered = sorted(enumerate(entries), key=lambda pair: (_started(pair[1], pair[0]), pair[0]))
    dropped: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    spans: list[tuple[float, float]] = []
    main_origin = origin.rstrip("/").lower() if origin else None
    for index, entry in ordered:
        request = entry["request"]
        method, url = request.get("method"), request.get("url")
        if not isinstance(method, str) or not method:
            raise _fail(index, "request.method", "Required.")
        if not isinstance(url, str) or not url:
            raise _fail(index, "request.url", "An http(s) URL is required: missing.")
        if problem := check_request_url(url):
            raise _fail(index, "request.url", problem)
        parts = urlsplit(url)
        entry_origin = f"{parts.scheme}://{parts.netloc}".lower()
        main_origin = main_origin or entry_origin
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        item: dict[str, Any] = {"name": _name(len(requests), method.upper(), path), "method": method.upper()}
        item.update({"path": path} if entry_origin == main_origin else {"url": url.split("#", 1)[0]})
        if headers := _headers(request, index, dropped, secret_map):
            item["headers"] = headers
        item.update(_body(request, index))
        status = (entry.get("response") or {}).get("status")
        if isinstance(status, int) and 100 <= status <= 599:
            item["expect_status"] = status
        requests.append(item)
        duration = entry.get("time")
        start = _started(entry, index)
        spans.append((start, start + (duration / 1000 if isinstance(duration, int | float) and duration > 0 else 0)))
    workload = {"kind": "requests", "requests": requests, "repetitions": repetitions, "warmup": 1, "think_ms": 0}
    checked = RequestsWorkloadSpec(data=workload)
    if not checked.is_valid():
        # Map the list index back to the HAR entry the user can find in the file.
        errors = checked.errors.get("requests")
        if isinstance(errors, dict) and errors and all(isinstance(k, int) for k in errors):
            raise serializers.ValidationError(
                {"entries": {str(ordered[position][0]): error for position, error in errors.items()}})
        raise serializers.ValidationError(checked.errors)
    return {"workload": workload, "origin": main_origin, "dropped": dropped,
            "concurrency_groups": concurrency_groups(spans)}
