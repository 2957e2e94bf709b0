"""Validation and normalization of comparison specs (docs/api.md, "The spec").

A spec arrives as JSON or YAML, possibly naming a preset. `normalize_spec` merges the
preset, validates every field with its bounds, fills defaults and returns the
normalized spec that the runners receive. Errors are DRF field maps, so the API answers
400 with the field path (e.g. {"arms": {"1": {"protocol": [...]}}}) and creates nothing.
"""

import base64
import binascii
import hashlib
import json
import random
import re
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

from rest_framework import serializers

from .presets import PRESETS
from .secret_refs import reference_problem
from .url_credentials import refuse_url_credentials, url_credentials_problem

PROTOCOLS = ["h1c", "h1", "h2", "h3", "grpc"]
CONNECTION_POLICIES = ["cold", "warm", "resumed"]
MODES = ["ab", "aa"]
AA_SUFFIX = "-again"
WORKLOAD_KINDS = ["series", "api", "mixed", "delay_sweep", "payload_sweep", "requests"]
# A comparison brought in by POST /api/v1/imports (apps.results.ingest.imports): measured elsewhere,
# never planned, leased or submitted as a spec, so no spec validates to it. Its stored
# workload is `{"kind": "import"}` alone: whatever reads a stored spec meets this kind too.
IMPORTED_KIND = "import"
SERIES_OBJECTS = {"seed-mid-24": 24}
FILE_SETS = {"seed-unity-5": 5}
# Upper bound on requests one run may make, so a typo cannot book a device for a week.
MAX_REQUESTS_PER_RUN = 200_000
MAX_RESPONSE_BYTES = 50_000_000
# A customer's request list (the `requests` kind): the methods the job contract carries.
HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
MAX_LISTED_REQUESTS = 100
MAX_HEADERS = 32
MAX_INLINE_BODY_BYTES = 1_000_000
MAX_GENERATED_BODY_BYTES = 10_000_000
# RFC 9110 token: what a header name may be. Lower-cased on the way in (HTTP/2 and 3 require it).
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$")
# Set by the client itself from the request, the connection or the protocol: a spec giving
# them would contradict what is measured (or smuggle a second request). User-Agent names
# the measuring client, so results say which stack produced them.
RESERVED_HEADERS = {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade",
                    "te", "proxy-connection", "http2-settings", "user-agent"}
NO_CR_LF = r"^[^\r\n\x00]*$"
PATH_ONLY = re.compile(r"^/[^\s]*$")
# Fixed blocks per run (`blocks: 8`), or run until decided (`blocks: {min, max}`, `blocks: auto`).
# The default is 8: with a small workload (30 requests per arm and block) on one device, 8
# blocks call +20 % a regression 96 % of the time at α = 0.01 and 6 blocks only 81.5 % (the
# t-test on block log-ratios has 5 degrees of freedom there); A/A false positives stay 0.1 %
# (docs/methodology.md). Fixed, not `auto`, so the device time is known before a run starts.
DEFAULT_BLOCKS = 8
FIXED_BLOCKS_MAX = 50
SEQUENTIAL_BLOCKS_MIN, SEQUENTIAL_BLOCKS_MAX = 2, 200
# `blocks: auto`: 6 blocks first, up to 24 per device; a large effect is decided at 6, small
# blocks go on to 12 and 24 (docs/methodology.md).
AUTO_BLOCKS = {"min": 6, "max": 24}
# The workload field a block's share of the work is counted in.
REPEAT_FIELDS = {"series": "repetitions", "api": "rounds", "mixed": "rounds", "delay_sweep": "trials",
                 "payload_sweep": "repetitions", "requests": "repetitions"}


# `gate.metric`: what the CI gate judges, per workload kind; the first is the kind's default.
# The gate judges what the workload is about: a series is loaded as a whole (its series time,
# judged per period and pooled over the periods), a request list as a page (the pass's time),
# API calls and sweeps per request. Per-request metrics remain allowed everywhere: with
# requests issued together a request waits behind its siblings, so per-request time can rise
# while the whole loads sooner (docs/methodology.md, "Which metric the gate judges").
PER_REQUEST_GATE_METRICS = ("total_ms", "ttfb_ms")
GATE_METRICS: dict[str, tuple[str, ...]] = {
    "series": ("series_ms", *PER_REQUEST_GATE_METRICS),
    "requests": ("page_load_ms", *PER_REQUEST_GATE_METRICS),
    "api": PER_REQUEST_GATE_METRICS,
    "mixed": PER_REQUEST_GATE_METRICS,
    "delay_sweep": PER_REQUEST_GATE_METRICS,
    "payload_sweep": PER_REQUEST_GATE_METRICS,
}
ALL_GATE_METRICS = ("total_ms", "ttfb_ms", "series_ms", "page_load_ms")
# Stored before the gate's metric depended on the workload: a spec without one was judged on this.
LEGACY_GATE_METRIC = "total_ms"


def gate_metric_of(spec: dict[str, Any]) -> str:
    """The metric a comparison's gate judges: its spec's (normalized specs always name one;
    a spec stored without a gate was judged per request)."""
    return str((spec.get("gate") or {}).get("metric") or LEGACY_GATE_METRIC)


def analysis_metrics(spec: dict[str, Any]) -> tuple[str, ...]:
    """The metrics a comparison's analysis compares the arms on: per request always, and the
    workload's group metric (series time, page load) when it has one; the gate's among them."""
    kind = str((spec.get("workload") or {}).get("kind"))
    metrics = [*PER_REQUEST_GATE_METRICS, *(m for m in GATE_METRICS.get(kind, ()) if m not in
                                             PER_REQUEST_GATE_METRICS)]
    gate = gate_metric_of(spec)
    return tuple(metrics if gate in metrics else [*metrics, gate])


# `workload.concurrency` (issue 10): how an app issues a series', an API round's or a request
# list's requests. HTTP/1.1 opens up to N connections per host (6: browsers and URLSession on
# macOS; iOS's NSURLSession uses 4); HTTP/2, HTTP/3 and gRPC multiplex every concurrent request on one.
CONCURRENCY_KINDS = ("series", "api", "requests")
MAX_PARALLEL, DEFAULT_PARALLEL = 16, 6
CONCURRENCY_HELP = (f'"sequential" (default), "parallel" (= {{"parallel": {DEFAULT_PARALLEL}}}), '
                    f'{{"parallel": N}} with N {1}–{MAX_PARALLEL}, or "all".')


class ConcurrencyField(serializers.Field):
    """`sequential`, `parallel` / `{parallel: N}` (1 ≤ N ≤ 16) or `all`. Normalized to
    "sequential", {"parallel": N} or "all"; validate_workload then drops "sequential" (the
    default), so a spec that does not use concurrency keeps its fingerprint."""

    def to_internal_value(self, data: Any) -> str | dict[str, int]:
        if data in ("sequential", "all"):
            return str(data)
        if data == "parallel":
            return {"parallel": DEFAULT_PARALLEL}
        if not isinstance(data, dict):
            raise serializers.ValidationError(f"Must be {CONCURRENCY_HELP}")
        errors: dict[str, list[str]] = {key: ['Unknown field; concurrency takes {"parallel": N}.']
                                        for key in sorted(set(data) - {"parallel"})}
        n = data.get("parallel")
        if isinstance(n, bool) or not isinstance(n, int):
            errors["parallel"] = [f"A whole number 1–{MAX_PARALLEL}: HTTP/1.1 connections per host."]
        elif not 1 <= n <= MAX_PARALLEL:
            errors["parallel"] = [f"Must be 1–{MAX_PARALLEL} (HTTP/1.1 connections per host); got {n}."]
        if errors:
            raise serializers.ValidationError(errors)
        return {"parallel": cast(int, n)}  # an int by now: the checks above raised otherwise

    def to_representation(self, value: Any) -> Any:
        return value

    @staticmethod
    def json_schema() -> dict[str, Any]:
        return {"oneOf": [
            {"enum": ["sequential", "parallel", "all"]},
            {"type": "object", "properties": {"parallel": {"type": "integer", "minimum": 1, "maximum": MAX_PARALLEL}},
             "required": ["parallel"], "additionalProperties": False},
        ]}


def concurrency_of(workload: dict[str, Any]) -> str | dict[str, int]:
    """A normalized workload's concurrency: "sequential" when absent."""
    return workload.get("concurrency") or "sequential"


def concurrency_label(concurrency: str | dict[str, int]) -> str:
    """How charts and reports name it: "sequential", "parallel 4", "all"."""
    return f"parallel {concurrency['parallel']}" if isinstance(concurrency, dict) else str(concurrency)


def validate_object_list(paths: list[str] | None) -> list[str] | None:
    """A customer's objects: each a path (appended to each arm's endpoint) or an http(s) URL."""
    for index, path in enumerate(paths or []):
        problem = check_request_url(path) if not path.startswith("/") else (
            "Must contain no spaces, CR or LF." if PATH_ONLY.match(path) is None else None)
        if problem:
            raise serializers.ValidationError({str(index): [f"A path (/…) or an http(s) URL: {problem}"]})
    return paths


class SeriesWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["series"])
    objects = serializers.ChoiceField(choices=sorted(SERIES_OBJECTS), default="seed-mid-24")
    periods = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=240), min_length=1, max_length=40,
        default=[3, 6, 9, 12, 15, 18, 21, 24, 27, 30],
    )
    repetitions = serializers.IntegerField(min_value=1, max_value=100, default=12)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)
    gap_ms = serializers.IntegerField(min_value=0, max_value=1000, default=0)
    concurrency = ConcurrencyField(required=False)
    # A customer's own objects instead of `objects`: paths (appended to each arm's endpoint)
    # or absolute URLs, fetched in order and wrapping around like seed-mid-24.
    object_paths = serializers.ListField(
        child=serializers.CharField(max_length=2048), min_length=1, max_length=100, required=False)

    def validate_object_paths(self, paths: list[str] | None) -> list[str] | None:
        return validate_object_list(paths)


class ApiWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["api"])
    rounds = serializers.IntegerField(min_value=1, max_value=200, default=5)
    calls = serializers.IntegerField(min_value=1, max_value=200, default=5)
    request_bytes = serializers.IntegerField(min_value=0, max_value=1_000_000, default=64)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=0)
    concurrency = ConcurrencyField(required=False)
    # The API call: a POST of request_bytes to the reference target's /echo, or to a
    # customer's own path (query allowed). Absent unless given, like the sweeps' templates.
    path = serializers.RegexField(
        r"^/[^\s{}]*$", max_length=2048, required=False,
        error_messages={"invalid": "A path starting with / (query allowed; no spaces, CR, LF or {…})."})


class MixedWorkloadSpec(ApiWorkloadSpec):
    kind = serializers.ChoiceField(choices=["mixed"])
    concurrency = None  # type: ignore[assignment]  # in order on one connection (seeds/003)
    files = serializers.ChoiceField(choices=sorted(FILE_SETS), default="seed-unity-5")
    # A customer's own downloads instead of `files`: paths (each arm's endpoint) or URLs.
    file_paths = serializers.ListField(
        child=serializers.CharField(max_length=2048), min_length=1, max_length=100, required=False)

    def validate_file_paths(self, paths: list[str] | None) -> list[str] | None:
        return validate_object_list(paths)


def path_template(placeholder: str) -> serializers.RegexField:
    """A customer's path (query allowed) for a sweep, with the swept value as `{placeholder}`.
    Absent unless given (no default), so the normalized spec of a sweep against the
    reference target — and its fingerprint, which finds CI baselines — stays as it was."""
    return serializers.RegexField(
        rf"^/[^\s{{}}]*\{{{placeholder}\}}[^\s{{}}]*$", max_length=2048, required=False,
        error_messages={"invalid": f"A path starting with / that contains {{{placeholder}}} exactly once (query "
                                   f"allowed; no spaces, CR, LF or other {{…}})."})


class DelaySweepWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["delay_sweep"])
    # The delay endpoint: the reference target's by default, a customer's own otherwise.
    path = path_template("delay_ms")
    start_ms = serializers.IntegerField(min_value=0, max_value=60_000, default=0)
    stop_ms = serializers.IntegerField(min_value=0, max_value=60_000, default=1000)
    step_ms = serializers.IntegerField(min_value=1, max_value=60_000, default=25)
    trials = serializers.IntegerField(min_value=1, max_value=100, default=10)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["stop_ms"] < attrs["start_ms"]:
            raise serializers.ValidationError({"stop_ms": ["Must be ≥ start_ms."]})
        return attrs


class PayloadSweepWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["payload_sweep"])
    # The sized-response endpoint: the reference target's by default, a customer's own otherwise.
    path = path_template("size")
    # POST sends `request_bytes` (seeds/004); GET sends no body. Default POST.
    method = serializers.ChoiceField(choices=["POST", "GET"], required=False)
    request_bytes = serializers.IntegerField(min_value=0, max_value=1_000_000, default=800)
    sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_RESPONSE_BYTES), min_length=1, max_length=100
    )
    repetitions = serializers.IntegerField(min_value=1, max_value=200, default=10)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)


def check_request_url(url: str) -> str | None:
    """Why a customer's absolute URL is refused, or None: no credentials (url_credentials.py),
    HTTP(S) only, a host, no CR/LF."""
    if problem := url_credentials_problem(url):
        return problem
    if any(c in url for c in "\r\n\x00 "):
        return "Must not contain spaces, CR, LF or NUL."
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port out of range
    except ValueError as e:
        return f"Not a valid URL ({e})."
    if parts.scheme.lower() not in ("http", "https"):
        return f"Only http:// and https:// URLs; got {parts.scheme or 'no'} scheme."
    if not parts.hostname:
        return "Must name a host."
    return None


class RequestItemSpec(serializers.Serializer):
    """One request of a `requests` workload: `url` (absolute, the same for every arm) or
    `path` (appended to each arm's endpoint, so one list runs against build A and build B)."""

    name = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9 ._:/()-]{0,63}$", max_length=64, required=False,
                                  allow_null=True, default=None)
    method = serializers.ChoiceField(choices=HTTP_METHODS, default="GET")
    url = serializers.CharField(max_length=2048, required=False, allow_null=True, default=None)
    path = serializers.RegexField(r"^/[^\s]*$", max_length=2048, required=False, allow_null=True, default=None,
                                  error_messages={"invalid": "Must start with / and contain no spaces, CR or LF."})
    headers = serializers.DictField(
        child=serializers.RegexField(NO_CR_LF, max_length=8192, allow_blank=True,
                                     error_messages={"invalid": "Header values must not contain CR, LF or NUL."}),
        default=dict)
    body = serializers.CharField(max_length=MAX_INLINE_BODY_BYTES, required=False, allow_null=True,
                                 allow_blank=True, trim_whitespace=False, default=None)
    body_b64 = serializers.RegexField(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
                                      max_length=MAX_INLINE_BODY_BYTES * 4 // 3 + 4, required=False,
                                      allow_null=True, allow_blank=True, default=None,
                                      error_messages={"invalid": "Not valid base64 (RFC 4648, padded)."})
    body_bytes = serializers.IntegerField(min_value=0, max_value=MAX_GENERATED_BODY_BYTES, required=False,
                                          allow_null=True, default=None)
    expect_status = serializers.IntegerField(min_value=100, max_value=599, required=False, allow_null=True,
                                             default=None)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and (unknown := sorted(set(data) - set(self.fields))):
            raise serializers.ValidationError({name: ["Unknown field for a request."] for name in unknown})
        return super().to_internal_value(data)

    def validate_url(self, url: str | None) -> str | None:
        if url is not None and (problem := check_request_url(url)):
            raise serializers.ValidationError(problem)
        return url

    def validate_headers(self, headers: dict[str, str]) -> dict[str, str]:
        if len(headers) > MAX_HEADERS:
            raise serializers.ValidationError(f"At most {MAX_HEADERS} headers; got {len(headers)}.")
        normalized: dict[str, str] = {}
        for name, value in headers.items():
            if not HEADER_NAME.match(name):
                raise serializers.ValidationError(
                    {name: ["Header names are 1–128 token characters (RFC 9110): no spaces, colons, CR or LF."]})
            if name.lower() in RESERVED_HEADERS:
                raise serializers.ValidationError(
                    {name: [f"Set by the client itself; not allowed: {sorted(RESERVED_HEADERS)}."]})
            if name.lower() in normalized:
                raise serializers.ValidationError({name: ["Repeated (header names are case-insensitive)."]})
            if problem := reference_problem(value):
                # Sent literally it would put the placeholder on the wire; whether the names
                # exist is the organization's question (comparison_create).
                raise serializers.ValidationError({name: [problem]})
            normalized[name.lower()] = value
        return normalized

    def validate_body_b64(self, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise serializers.ValidationError("Not valid base64.") from None
        if len(decoded) > MAX_INLINE_BODY_BYTES:
            raise serializers.ValidationError(f"At most {MAX_INLINE_BODY_BYTES} bytes once decoded.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("url") is None) == (attrs.get("path") is None):
            raise serializers.ValidationError({"url": ["Give exactly one of url (absolute) or path (per arm)."]})
        bodies = [key for key in ("body", "body_b64", "body_bytes") if attrs.get(key) is not None]
        if len(bodies) > 1:
            raise serializers.ValidationError({bodies[1]: [f"Give at most one of body, body_b64, body_bytes; "
                                                           f"got {bodies}."]})
        if bodies and attrs["method"] in ("GET", "HEAD", "OPTIONS") and attrs.get("body_bytes") != 0:
            raise serializers.ValidationError({bodies[0]: [f"A {attrs['method']} request carries no body."]})
        if attrs.get("body") is not None and len(attrs["body"].encode()) > MAX_INLINE_BODY_BYTES:
            raise serializers.ValidationError({"body": [f"At most {MAX_INLINE_BODY_BYTES} bytes (UTF-8)."]})
        return attrs


class RequestsWorkloadSpec(serializers.Serializer):
    """The customer's own ordered requests, replayed `repetitions` times per arm."""

    kind = serializers.ChoiceField(choices=["requests"])
    requests = RequestItemSpec(many=True, min_length=1, max_length=MAX_LISTED_REQUESTS)  # type: ignore[call-arg]
    repetitions = serializers.IntegerField(min_value=1, max_value=500, default=10)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)
    think_ms = serializers.IntegerField(min_value=0, max_value=60_000, default=0)
    concurrency = ConcurrencyField(required=False)


WORKLOAD_SERIALIZERS: dict[str, type[serializers.Serializer]] = {
    "series": SeriesWorkloadSpec,
    "api": ApiWorkloadSpec,
    "mixed": MixedWorkloadSpec,
    "delay_sweep": DelaySweepWorkloadSpec,
    "payload_sweep": PayloadSweepWorkloadSpec,
    "requests": RequestsWorkloadSpec,
}


class ArmSpec(serializers.Serializer):
    # DRF's serializer metaclass moves declared fields into _declared_fields, so this does not shadow Field.label at
    # runtime; the stubs see a plain class attribute.
    label = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", max_length=64)  # type: ignore[assignment]
    protocol = serializers.ChoiceField(choices=PROTOCOLS)
    connection = serializers.ChoiceField(choices=CONNECTION_POLICIES, default="warm")
    endpoint = serializers.URLField(max_length=500, required=False, allow_null=True, default=None)
    ca_bundle = serializers.CharField(max_length=65536, required=False, allow_null=True, default=None)

    def validate_endpoint(self, endpoint: str | None) -> str | None:
        if endpoint and (problem := url_credentials_problem(endpoint)):
            raise serializers.ValidationError(problem)
        return endpoint

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        endpoint = attrs.get("endpoint")
        if endpoint:
            scheme = endpoint.split(":", 1)[0].lower()
            wanted = "http" if attrs["protocol"] == "h1c" else "https"
            if scheme != wanted:
                raise serializers.ValidationError(
                    {"endpoint": [f"A {attrs['protocol']} arm needs an {wanted}:// endpoint."]}
                )
        ca = attrs.get("ca_bundle")
        if ca and "-----BEGIN CERTIFICATE-----" not in ca:
            raise serializers.ValidationError({"ca_bundle": ["Must be PEM (-----BEGIN CERTIFICATE-----)."]})
        return attrs


class BlocksField(serializers.Field):
    """`blocks`: an int (that many blocks per run), `{min, max}` or `auto` (run until decided:
    min blocks per run first, more at each look that does not decide, max at most;
    apps.results.analysis.sequential). Normalized to the int or to {"min": m, "max": M}."""

    default_error_messages = {"invalid": "A whole number 1–50, an object with min and max, or auto."}

    def to_internal_value(self, data: Any) -> int | dict[str, int]:
        if data == "auto":
            return dict(AUTO_BLOCKS)
        if isinstance(data, dict):
            return _sequential_blocks(data)
        if isinstance(data, bool) or not isinstance(data, int | str):
            self.fail("invalid")
        try:
            value = int(data)
        except ValueError:
            self.fail("invalid")
        if not 1 <= value <= FIXED_BLOCKS_MAX:
            raise serializers.ValidationError(
                f"Ensure this value is greater than or equal to 1 and less than or equal to {FIXED_BLOCKS_MAX}; for "
                "more blocks, run until decided with {min, max}.")
        return value

    def to_representation(self, value: Any) -> Any:
        return value

    @staticmethod
    def json_schema() -> dict[str, Any]:
        bound = {"type": "integer", "minimum": SEQUENTIAL_BLOCKS_MIN, "maximum": SEQUENTIAL_BLOCKS_MAX}
        return {"oneOf": [
            {"type": "integer", "minimum": 1, "maximum": FIXED_BLOCKS_MAX},
            {"type": "object", "properties": {"min": bound, "max": bound}, "required": ["min", "max"],
             "additionalProperties": False},
            {"const": "auto"},
        ]}


def _sequential_blocks(data: dict[str, Any]) -> dict[str, int]:
    errors: dict[str, list[str]] = {key: ["Unknown field; blocks takes min and max."]
                                    for key in sorted(set(data) - {"min", "max"})}
    bounds: dict[str, int] = {}
    for key in ("min", "max"):
        value = data.get(key)
        if value is None:
            errors[key] = ["This field is required."]
        elif isinstance(value, bool) or not isinstance(value, int):
            errors[key] = ["A whole number."]
        elif not SEQUENTIAL_BLOCKS_MIN <= value <= SEQUENTIAL_BLOCKS_MAX:
            errors[key] = [f"{SEQUENTIAL_BLOCKS_MIN}–{SEQUENTIAL_BLOCKS_MAX} (a look needs 2 blocks for its t-test)."]
        else:
            bounds[key] = value
    if not errors and bounds["min"] > bounds["max"]:
        errors["max"] = [f"Must be at least min ({bounds['min']})."]
    if errors:
        raise serializers.ValidationError(errors)
    return bounds


def blocks_range(spec: dict[str, Any]) -> tuple[int, int] | None:
    """(min, max) blocks per run of a run-until-decided spec; None for fixed blocks."""
    blocks = spec.get("blocks")
    return (int(blocks["min"]), int(blocks["max"])) if isinstance(blocks, dict) else None


def wire_spec(spec: dict[str, Any], *, blocks: int) -> dict[str, Any]:
    """The spec a runner gets for a run of `blocks` blocks: fixed specs unchanged; a
    run-until-decided spec with `blocks` as an int and its workload's repetitions scaled so
    each block holds what one of its min blocks holds (ceil(repetitions / min)) however far
    the run is extended: runners split the repetitions over the blocks (r mod blocks)."""
    bounds = blocks_range(spec)
    if bounds is None:
        return spec
    workload = dict(spec["workload"])
    field = REPEAT_FIELDS[workload["kind"]]
    workload[field] = -(-int(workload[field]) // bounds[0]) * blocks
    return {**spec, "blocks": blocks, "workload": workload}


class DevicesSpec(serializers.Serializer):
    pool = serializers.SlugField(max_length=64, default="local")
    platforms = serializers.ListField(
        child=serializers.ChoiceField(choices=["host", "android", "ios"]), min_length=1, max_length=3,
        default=["host"],
    )
    count = serializers.IntegerField(min_value=1, max_value=50, default=1)


class GateSpec(serializers.Serializer):
    # Which metrics a workload kind allows, and its default, is ComparisonSpec.validate's.
    metric = serializers.ChoiceField(
        choices=list(ALL_GATE_METRICS), required=False,
        error_messages={"invalid_choice": '"{input}" is not a metric; allowed: total_ms and ttfb_ms (every '
                        'workload), series_ms (series, the default), page_load_ms (requests, the default).'})
    statistic = serializers.ChoiceField(choices=["median"], default="median")
    margin_pct = serializers.FloatField(min_value=0.1, max_value=50, default=5.0)
    alpha = serializers.FloatField(min_value=0.0001, max_value=0.2, default=0.01)


TAG_NAME_LENGTH = (1, 64)


def tag_name_problem(key: str) -> str | None:
    """What is wrong with a tag's name, None when nothing: the one rule for tag names, read by
    the spec's `tags` and by the comparison list's `tag.<key>` filter."""
    low, high = TAG_NAME_LENGTH
    if not low <= len(key) <= high:
        return f"Tag names must be {low}–{high} characters: {key!r}."
    return None


class ComparisonSpec(serializers.Serializer):
    name = serializers.CharField(max_length=200, min_length=1)
    # "aa": one arm measured twice under two labels; any verdict but equivalent/inconclusive
    # is a false positive by construction (the trust check, apps.results.readers.aa).
    mode = serializers.ChoiceField(choices=MODES, default="ab")
    preset = serializers.ChoiceField(choices=sorted(PRESETS), required=False, allow_null=True, default=None)
    workload = serializers.DictField()
    arms = ArmSpec(many=True, min_length=1, max_length=8)  # type: ignore[call-arg]
    baseline_arm = serializers.CharField(max_length=64, required=False, allow_null=True, default=None)
    devices = DevicesSpec(required=False)
    # Names are checked against the organization's profiles by the service (built-ins + custom).
    network_profiles = serializers.ListField(
        child=serializers.SlugField(max_length=64), min_length=1, max_length=20, default=["none"]
    )
    blocks = BlocksField(default=DEFAULT_BLOCKS)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True, default=None)
    # A tag value may be a URL (CI tags the repository's); credentials never sit in one.
    tags = serializers.DictField(child=serializers.CharField(max_length=200, allow_blank=True,
                                                             validators=[refuse_url_credentials]), default=dict)
    gate = GateSpec(required=False)
    timeout_s = serializers.IntegerField(min_value=1, max_value=300, default=30)

    def validate_tags(self, tags: dict[str, str]) -> dict[str, str]:
        if len(tags) > 20:
            raise serializers.ValidationError("At most 20 tags.")
        for key in tags:
            if problem := tag_name_problem(key):
                raise serializers.ValidationError(problem)
        return tags

    def validate_workload(self, workload: dict[str, Any]) -> dict[str, Any]:
        kind = workload.get("kind")
        if kind not in WORKLOAD_SERIALIZERS:
            raise serializers.ValidationError({"kind": [f"Must be one of {WORKLOAD_KINDS}."]})
        if "concurrency" in workload and kind not in CONCURRENCY_KINDS:
            raise serializers.ValidationError({"concurrency": [
                f"Only {', '.join(CONCURRENCY_KINDS)} workloads take concurrency: a {kind} measures its requests "
                f"one at a time, in order."]})
        inner = WORKLOAD_SERIALIZERS[kind](data=workload)
        inner.is_valid(raise_exception=True)
        unknown = sorted(set(workload) - set(inner.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field for this workload kind."] for name in unknown})
        validated = dict(inner.validated_data)
        if validated.get("concurrency") == "sequential":
            del validated["concurrency"]  # the default: absent, so the spec's fingerprint is unchanged
        return validated

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["mode"] == "aa":
            attrs = _duplicate_aa_arm(attrs)
        labels = [arm["label"] for arm in attrs["arms"]]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise serializers.ValidationError({"arms": [f"Arm labels must be unique; repeated: {duplicates}."]})
        if attrs.get("baseline_arm") is None:
            attrs["baseline_arm"] = labels[0]
        elif attrs["baseline_arm"] not in labels:
            raise serializers.ValidationError({"baseline_arm": [f"Must be one of the arm labels {labels}."]})
        profiles = attrs["network_profiles"]
        if len(set(profiles)) != len(profiles):
            raise serializers.ValidationError({"network_profiles": ["Profiles must not repeat."]})
        _check_requests_fit_arms(attrs["workload"], attrs["arms"])
        attrs["gate"] = _gate_with_metric(attrs.get("gate"), attrs["workload"]["kind"])
        attrs["blocks"] = self._blocks_that_fit(attrs)
        bounds = blocks_range(attrs)
        workload = attrs["workload"] if bounds is None else wire_spec(attrs, blocks=bounds[1])["workload"]
        per_run = requests_per_run(workload, arms=len(labels))
        if per_run > MAX_REQUESTS_PER_RUN:
            raise serializers.ValidationError(
                {"workload": [f"This workload makes {per_run} requests per run"
                              + (f" at {bounds[1]} blocks" if bounds else "")
                              + f"; the limit is {MAX_REQUESTS_PER_RUN}."]}
            )
        return attrs

    def _blocks_that_fit(self, attrs: dict[str, Any]) -> int | dict[str, int]:
        """Runners split a workload's repetitions over the fixed blocks (r mod blocks), so
        with more blocks than repetitions the extra blocks measure nothing. Left to its
        default (or a preset's), `blocks` shrinks to the repetitions: an `api` workload's 5
        rounds run as 5 blocks, not 8 of which 3 would be empty and refused by the runner.
        Asked for explicitly, extra blocks holding only warm-up requests are allowed (quick
        smoke runs use them); extra blocks holding nothing at all are a 400 naming both fields.
        Run-until-decided blocks scale the repetitions instead (wire_spec)."""
        blocks = attrs["blocks"]
        if isinstance(blocks, dict):
            return blocks
        workload = attrs["workload"]
        field = REPEAT_FIELDS[workload["kind"]]
        repeats = int(workload[field])
        if blocks <= repeats:
            return blocks
        if not self.context.get("blocks_given", "blocks" in self.initial_data):
            return repeats
        if workload.get("warmup"):
            return blocks
        raise serializers.ValidationError({"blocks": [
            f"Ensure this value is less than or equal to {repeats} (workload.{field}): with no warm-up, a block "
            f"holds at least one of the workload's {repeats} {field}. Use blocks 1–{repeats}, raise "
            f"workload.{field}, or run until decided with blocks: auto."]})


def _gate_with_metric(gate: dict[str, Any] | None, kind: str) -> dict[str, Any]:
    """The gate with its metric: the workload kind's default, or the one given if the kind
    allows it (a 400 naming gate.metric and the allowed values otherwise)."""
    if gate is None:
        defaults = GateSpec(data={})
        defaults.is_valid(raise_exception=True)
        gate = dict(defaults.validated_data)
    allowed = GATE_METRICS[kind]
    metric = gate.get("metric")
    if metric is None:
        return {**gate, "metric": allowed[0]}
    if metric not in allowed:
        raise serializers.ValidationError({"gate": {"metric": [
            f"{metric!r} is not a metric of a {kind} workload; allowed: {', '.join(allowed)} "
            f"(default {allowed[0]})."]}})
    return dict(gate)


def _check_requests_fit_arms(workload: dict[str, Any], arms: list[dict[str, Any]]) -> None:
    """A request list is HTTP: no gRPC arm. An absolute `url` is sent by every arm: its
    scheme must be the one each arm's protocol speaks (http:// for h1c, https:// otherwise)."""
    custom_paths = (workload["kind"] == "series" and workload.get("object_paths")) or (
        workload["kind"] in ("delay_sweep", "payload_sweep", "api", "mixed") and "path" in workload) or (
        workload["kind"] == "mixed" and workload.get("file_paths"))
    if custom_paths:
        for index, arm in enumerate(arms):
            if arm["protocol"] == "grpc":
                raise serializers.ValidationError({"arms": {str(index): {"protocol": [
                    "Custom paths are HTTP: a gRPC arm runs the reference target's calls only."]}}})
    for field in ("object_paths", "file_paths"):
        for index, path in enumerate(workload.get(field) or []):
            if not path.startswith("/"):
                _check_url_fits_arms(path, arms, ("workload", field, str(index)))
    if workload["kind"] != "requests":
        return
    for index, arm in enumerate(arms):
        if arm["protocol"] == "grpc":
            raise serializers.ValidationError({"arms": {str(index): {"protocol": [
                "A requests workload sends HTTP requests: h1c, h1, h2 or h3 (gRPC calls need the service's "
                "schema; use the api workload)."]}}})
    for index, request in enumerate(workload["requests"]):
        if request.get("url") is not None:
            _check_url_fits_arms(request["url"], arms, ("workload", "requests", str(index), "url"))


def _check_url_fits_arms(url: str, arms: list[dict[str, Any]], where: tuple[str, ...]) -> None:
    """An absolute URL is sent by every arm: its scheme must be the one each arm's protocol
    speaks. The error sits at `where` (the field path)."""
    scheme = url.split(":", 1)[0].lower()
    for arm in arms:
        wanted = "http" if arm["protocol"] == "h1c" else "https"
        if scheme != wanted:
            error: Any = [f"Arm {arm['label']!r} ({arm['protocol']}) sends {wanted}:// only; use a path to reach "
                          f"each arm's own endpoint."]
            for key in reversed(where):
                error = {key: error}
            raise serializers.ValidationError(error)


def _duplicate_aa_arm(attrs: dict[str, Any]) -> dict[str, Any]:
    """A/A: the one arm given becomes `<label>` (baseline) and `<label>-again`, identical."""
    if len(attrs["arms"]) != 1:
        raise serializers.ValidationError(
            {"arms": [f"mode aa takes exactly one arm (it is measured twice); got {len(attrs['arms'])}."]})
    arm = dict(attrs["arms"][0])
    again = f"{arm['label']}{AA_SUFFIX}"
    if len(again) > 64:
        raise serializers.ValidationError(
            {"arms": {"0": {"label": [f"mode aa appends {AA_SUFFIX!r}; the label must be at most "
                                      f"{64 - len(AA_SUFFIX)} characters."]}}})
    if attrs.get("baseline_arm") not in (None, arm["label"]):
        raise serializers.ValidationError({"baseline_arm": [f"mode aa: the baseline is the arm {arm['label']!r}."]})
    return {**attrs, "arms": [arm, {**arm, "label": again}], "baseline_arm": arm["label"]}


# Measured requests per arm of one run, by workload kind (warm-ups excluded). One entry per
# kind, imports included, and no fallback: a kind reads only the fields it has.
_REQUESTS_PER_ARM: dict[str, Callable[[dict[str, Any]], int]] = {
    "series": lambda w: sum(w["periods"]) * w["repetitions"],
    "api": lambda w: w["rounds"] * w["calls"],
    "mixed": lambda w: w["rounds"] * w["calls"] + w["rounds"] * (
        (len(w.get("file_paths") or ()) or FILE_SETS[w["files"]]) + w["calls"]),
    "delay_sweep": lambda w: ((w["stop_ms"] - w["start_ms"]) // w["step_ms"] + 1) * w["trials"],
    "payload_sweep": lambda w: len(w["sizes"]) * w["repetitions"],
    "requests": lambda w: len(w["requests"]) * w["repetitions"],
    # Measured elsewhere and brought in whole: no device makes a request for it.
    IMPORTED_KIND: lambda w: 0,
}


def requests_per_run(workload: dict[str, Any], *, arms: int) -> int:
    """How many measured requests one run makes on a device (warm-ups excluded): the size
    guard, the plan's count and the estimate's pace. 0 for an import."""
    return _REQUESTS_PER_ARM[workload["kind"]](workload) * arms


def merge_preset(submitted: dict[str, Any]) -> dict[str, Any]:
    """Fields the user gave override the preset's; `workload` merges key by key."""
    preset_name = submitted.get("preset")
    if not isinstance(preset_name, str) or preset_name not in PRESETS:
        return dict(submitted)  # no preset, or a bad one: the serializer names it
    merged: dict[str, Any] = json.loads(json.dumps(PRESETS[preset_name]["spec"]))
    for key, value in submitted.items():
        if key == "workload" and isinstance(value, dict) and value.get("kind", merged["workload"]["kind"]) == merged[
            "workload"
        ]["kind"]:
            merged["workload"] = {**merged["workload"], **value}
        else:
            merged[key] = value
    if "arms" in submitted and "baseline_arm" not in submitted:
        # The preset's baseline names one of the preset's arms, which the user replaced.
        merged.pop("baseline_arm", None)
    return merged


def normalize_spec(submitted: Any) -> dict[str, Any]:
    """Returns the normalized spec, or raises serializers.ValidationError (a field map)."""
    if not isinstance(submitted, dict):
        raise serializers.ValidationError({"non_field_errors": ["A spec must be a JSON/YAML object."]})
    # Whether blocks are the user's own choice or a default (the serializer's or a preset's).
    blocks_given = isinstance(submitted, dict) and "blocks" in submitted
    serializer = ComparisonSpec(data=merge_preset(submitted), context={"blocks_given": blocks_given})
    serializer.is_valid(raise_exception=True)
    spec = json.loads(json.dumps(serializer.validated_data))
    if not spec.get("devices"):
        defaults = DevicesSpec(data={})
        defaults.is_valid(raise_exception=True)
        spec["devices"] = dict(defaults.validated_data)
    if spec.get("seed") is None:
        spec["seed"] = random.SystemRandom().randrange(2**31)
    return spec


def spec_fingerprint(spec: dict[str, Any]) -> str:
    """Same workload, arms, devices and profiles → same hash; name, seed and tags excluded,
    so "the latest run of this spec on main" can be found for a CI baseline."""
    relevant = {k: spec[k] for k in ("workload", "arms", "devices", "network_profiles", "blocks") if k in spec}
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()
