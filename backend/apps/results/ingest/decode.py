"""Upload bodies of the runner protocol: decoding and the contract checks
(device-runner/contract/latencylab_contract/sample.schema.json).

The hot path decodes and validates a whole upload in C with msgspec (`batch_decode`;
`SampleIn` mirrors sample.schema.json with its constraints). Only a batch the fast path
rejects goes through the per-sample Python checks in `sample_errors`, which name every
problem as `samples[i].field`. tests/test_ingest_contract.py checks that both validators
give the JSON Schema's verdict on every example document, so neither can drift from the
contract.
"""

import re
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Annotated, Any, Literal

import msgspec
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

TIMESTAMPS = (
    "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready", "req_start", "req_end",
    "resp_first_byte", "resp_headers_end", "resp_end", "app_done",
)
OPTIONAL_INTS = ("period", "repetition", "step", "issued_mono_us", "in_flight", "req_bytes", "resp_bytes", "status",
                 "server_time_us", "srtt_us", "retrans")
MAX_IN_FLIGHT = 20_000  # a group holds at most a job's requests
OPTIONAL_BOOLS = ("conn_reused", "tls_resumed", "early_data")
OPTIONAL_STRS = {"part": 16, "conn_id": 64, "alpn": 16, "tls_version": 16, "error_detail": 1000, "path": 512}
PHASES = {"warmup", "measure"}
OPS = {"get", "echo", "delay", "bytes", "file", "grpc_unary", "grpc_stream"}
ERROR_CLASSES = {None, "dns", "connect", "tls", "timeout", "protocol_mismatch", "http", "reset", "other"}
NON_NEGATIVE_INTS = ("period", "repetition", "issued_mono_us", "req_bytes", "resp_bytes", "server_time_us", "srtt_us",
                     "retrans")
KNOWN = set(TIMESTAMPS) | set(OPTIONAL_INTS) | set(OPTIONAL_BOOLS) | set(OPTIONAL_STRS) | {
    "arm", "block", "seq", "phase", "op", "wall_time", "t0", "server_delay_ms", "error_class",
}

# ---------------------------------------------------------------------------------------
# The fast validator: sample.schema.json as a msgspec Struct, checked in C while decoding.

NonNegInt = Annotated[int, msgspec.Meta(ge=0)]
Micros = Annotated[int, msgspec.Meta(ge=0)] | None


Text16 = Annotated[str, msgspec.Meta(max_length=16)] | None
Text64 = Annotated[str, msgspec.Meta(max_length=64)] | None
Text512 = Annotated[str, msgspec.Meta(max_length=512)] | None
Text1000 = Annotated[str, msgspec.Meta(max_length=1000)] | None


class SampleIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One sample as uploaded. Field order = the COPY column order (after the run's ids,
    apps.results.ingest.store.COLUMNS).
    gc=False: scalars only, so never part of a cycle; 5,000 of them per upload stay out
    of the cyclic garbage collector's way."""

    arm: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    block: NonNegInt
    period: NonNegInt | None = None
    repetition: NonNegInt | None = None
    step: int | None = None
    seq: NonNegInt
    part: Text16 = None
    phase: Literal["warmup", "measure"]
    # The schema has no null op/path; null is accepted and stored as "" (as before).
    op: Literal["get", "echo", "delay", "bytes", "file", "grpc_unary", "grpc_stream"] | None = None
    path: Text512 = None
    wall_time: NonNegInt
    # When the request was issued, µs since its block began on the harness's monotonic clock;
    # absent from older harnesses (a concurrent series' span then falls back to wall_time).
    issued_mono_us: NonNegInt | None = None
    dns_start: Micros = None
    dns_end: Micros = None
    conn_start: Micros = None
    tls_start: Micros = None
    conn_ready: Micros = None
    req_start: Micros = None
    req_end: Micros = None
    resp_first_byte: Micros = None
    resp_headers_end: Micros = None
    resp_end: Micros = None
    app_done: Micros  # required; null only on error samples (checked after decoding)
    conn_id: Text64 = None
    conn_reused: bool | None = None
    in_flight: Annotated[int, msgspec.Meta(ge=1, le=MAX_IN_FLIGHT)] | None = None
    alpn: Text16 = None
    tls_version: Text16 = None
    tls_resumed: bool | None = None
    early_data: bool | None = None
    req_bytes: NonNegInt | None = None
    resp_bytes: NonNegInt | None = None
    status: int | None = None
    server_delay_ms: Annotated[float, msgspec.Meta(ge=0)] | None = None
    server_time_us: NonNegInt | None = None
    srtt_us: NonNegInt | None = None
    retrans: NonNegInt | None = None
    error_class: Literal["dns", "connect", "tls", "timeout", "protocol_mismatch", "http", "reset", "other"] | None
    error_detail: Text1000 = None
    t0: Literal[0]


SAMPLE_FIELDS = SampleIn.__struct_fields__
if set(SAMPLE_FIELDS) != KNOWN:  # checked at import: the Struct must mirror the contract's fields
    raise RuntimeError(f"SampleIn's fields differ from the contract's: {set(SAMPLE_FIELDS) ^ KNOWN}")
FIELD_GETTERS = {name: attrgetter(name) for name in SAMPLE_FIELDS}


class _BatchIn(msgspec.Struct):
    """An upload whose samples all satisfy the contract; the other fields are checked by
    the endpoint's serializer."""

    samples: list[SampleIn]
    lease_token: Any = msgspec.UNSET
    attempt: Any = msgspec.UNSET
    batch_seq: Any = msgspec.UNSET
    block: Any = msgspec.UNSET
    baseline: Any = msgspec.UNSET


class Batch(dict):
    """A decoded upload. `typed`: samples are SampleIn (they passed the contract check in
    C); otherwise they are plain JSON values and `contract_error` is msgspec's verdict."""

    typed: bool = False
    contract_error: dict[str, list[str]] | None = None


_HEADER = ("lease_token", "attempt", "batch_seq", "block", "baseline")
_any_decoder = msgspec.json.Decoder()
_batch_decoder = msgspec.json.Decoder(_BatchIn)
_MSGSPEC_PATH = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_FIELD_IN_MESSAGE = re.compile(r"^Object (?:missing required field|contains unknown field) `(?P<field>[^`]+)`")


def batch_decode(body: bytes) -> Any:
    """Decode an upload body. The common case (every sample valid) is decoded and
    validated in one C pass; otherwise the body is decoded as plain JSON and the
    contract violation kept for the 400."""
    try:
        typed = _batch_decoder.decode(body)
    except msgspec.ValidationError as exc:
        try:
            data = _any_decoder.decode(body)
        except msgspec.DecodeError as decode_exc:
            raise ParseError(f"JSON parse error - {decode_exc}") from decode_exc
        if not isinstance(data, dict):
            return data
        batch = Batch(data)
        batch.contract_error = _msgspec_error(exc)
        return batch
    except msgspec.DecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from exc
    batch = Batch({name: getattr(typed, name) for name in _HEADER if getattr(typed, name) is not msgspec.UNSET})
    batch["samples"] = typed.samples
    batch.typed = True
    return batch


def _msgspec_error(exc: msgspec.ValidationError) -> dict[str, list[str]]:
    """msgspec's "Expected `int` >= 0, got `-1` - at `$.samples[3].app_done`" as the
    400 field map {"samples[3].app_done": ["Expected `int` >= 0, got `-1`"]}."""
    match = _MSGSPEC_PATH.match(str(exc))
    message, path = (match["message"], match["path"] or "") if match else (str(exc), "")
    field = _FIELD_IN_MESSAGE.match(message)
    if field:
        path = f"{path}.{field['field']}"
    return {path.lstrip(".") or "non_field_errors": [message]}


class SampleBatchParser(BaseParser):
    """JSON for the runner upload endpoint, decoded and contract-checked by msgspec
    instead of DRF's JSONParser (json.loads, then a Python pass over every sample)."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read() if stream is not None else b""
        if not body:
            raise ParseError("JSON parse error - empty body")
        return batch_decode(body)


# ---------------------------------------------------------------------------------------
# The thorough validator: every problem of every sample, named `samples[i].field`.

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sample_errors(sample: Any, *, arms: set[str], block: int) -> dict[str, str]:  # noqa: C901  one check per contract field, in the contract's order
    """Field → message for everything wrong with one sample; empty when valid."""
    if not isinstance(sample, dict):
        return {"": "must be an object"}
    errors: dict[str, str] = {}
    for name in sorted(set(sample) - KNOWN):
        errors[name] = "unknown field"
    arm = sample.get("arm")
    if not isinstance(arm, str) or not 1 <= len(arm) <= 64 or arm not in arms:
        errors["arm"] = f"must be one of the comparison's arm labels {sorted(arms)}"
    if not _is_int(sample.get("block")) or sample["block"] != block:
        errors["block"] = f"must equal the batch's block ({block})"
    for name in ("seq", "wall_time"):
        if not _is_int(sample.get(name)) or sample[name] < 0:
            errors[name] = "required non-negative integer"
    if not _is_int(sample.get("t0")) or sample["t0"] != 0:
        errors["t0"] = "must be 0 (timestamps are µs from t0)"
    if sample.get("phase") not in PHASES:
        errors["phase"] = f"must be one of {sorted(PHASES)}"
    if sample.get("op") is not None and sample["op"] not in OPS:
        errors["op"] = f"must be one of {sorted(OPS)}"
    for name in TIMESTAMPS:
        value = sample.get(name)
        if value is not None and (not _is_int(value) or value < 0):
            errors[name] = "must be null or integer µs ≥ 0 from t0 (a missing phase is null, never 0 by convention)"
    if "app_done" not in sample:
        errors["app_done"] = "required (null only for failed requests)"
    elif sample["app_done"] is None and sample.get("error_class") is None:
        errors["app_done"] = "null is allowed only on error samples"
    for name in OPTIONAL_INTS:
        value = sample.get(name)
        if value is not None and not _is_int(value):
            errors[name] = "must be null or an integer"
        elif value is not None and name in NON_NEGATIVE_INTS and value < 0:
            errors[name] = "must be null or an integer ≥ 0"
    in_flight = sample.get("in_flight")
    if isinstance(in_flight, int) and _is_int(in_flight) and not 1 <= in_flight <= MAX_IN_FLIGHT:
        errors["in_flight"] = f"must be null or an integer 1–{MAX_IN_FLIGHT} (this request included)"
    for name in OPTIONAL_BOOLS:
        value = sample.get(name)
        if value is not None and not isinstance(value, bool):
            errors[name] = "must be null or a boolean"
    for name, limit in OPTIONAL_STRS.items():
        value = sample.get(name)
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            errors[name] = f"must be null or a string of at most {limit} characters"
    delay = sample.get("server_delay_ms")
    if delay is not None and (not isinstance(delay, (int, float)) or isinstance(delay, bool) or delay < 0):
        errors["server_delay_ms"] = "must be null or a number ≥ 0"
    if "error_class" not in sample:
        errors["error_class"] = "required (null for a successful request)"
    elif sample["error_class"] not in ERROR_CLASSES:
        errors["error_class"] = f"must be null or one of {sorted(c for c in ERROR_CLASSES if c)}"
    return errors


def samples_validate(samples: list[Any], *, arms: set[str], block: int,
                     contract_error: dict[str, list[str]] | None = None) -> None:
    """Raise a 400 naming `samples[i].field` for the first 50 problems; nothing is stored.

    SampleIn samples passed the contract check while decoding; only what needs the run's
    context (arm labels, the batch's block, a null app_done only on error samples) is
    left, checked here over four columns, in C. Plain dicts get the thorough check."""
    if samples and isinstance(samples[0], SampleIn):
        column = FIELD_GETTERS
        app_done = tuple(map(column["app_done"], samples))
        if (set(map(column["arm"], samples)) <= arms and set(map(column["block"], samples)) == {block}
                # a null app_done only on error samples: no null error_class among the rows
                # whose app_done is null (compress picks those rows)
                and (None not in app_done or None not in compress(map(column["error_class"], samples),
                                                                  map(is_, app_done, repeat(None))))):
            return
        samples = [msgspec.structs.asdict(s) for s in samples]
    problems: dict[str, list[str]] = {}
    for index, sample in enumerate(samples):
        for field, message in sample_errors(sample, arms=arms, block=block).items():
            problems[f"samples[{index}].{field}".rstrip(".")] = [message]
            if len(problems) >= 50:
                raise serializers.ValidationError(problems)
    if problems:
        raise serializers.ValidationError(problems)
    if contract_error:
        # msgspec refused what the per-sample checks let through (e.g. a non-integral
        # JSON number where an integer is due): still a 400, in the same shape.
        raise serializers.ValidationError(contract_error)
