"""Validating and storing uploaded samples. Validation is hand-rolled against the wire
contract (device-runner/contract/sample.schema.json) because a generic JSON Schema
validator costs ~50 µs per sample and ingestion must reach 100k samples/s; a test
checks that both accept and reject the same example documents."""

from typing import Any

from django.db import connection
from rest_framework import serializers

from apps.comparisons.models import Run

from .derive import total_us, ttfb_us

TIMESTAMPS = (
    "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready", "req_start", "req_end",
    "resp_first_byte", "resp_headers_end", "resp_end", "app_done",
)
OPTIONAL_INTS = ("period", "repetition", "step", "req_bytes", "resp_bytes", "status", "server_time_us", "srtt_us",
                 "retrans")
OPTIONAL_BOOLS = ("conn_reused", "tls_resumed", "early_data")
OPTIONAL_STRS = {"part": 16, "conn_id": 64, "alpn": 16, "tls_version": 16, "error_detail": 1000, "path": 512}
PHASES = {"warmup", "measure"}
OPS = {"get", "echo", "delay", "bytes", "file", "grpc_unary", "grpc_stream"}
ERROR_CLASSES = {None, "dns", "connect", "tls", "timeout", "protocol_mismatch", "http", "reset", "other"}
KNOWN = set(TIMESTAMPS) | set(OPTIONAL_INTS) | set(OPTIONAL_BOOLS) | set(OPTIONAL_STRS) | {
    "arm", "block", "seq", "phase", "op", "wall_time", "t0", "server_delay_ms", "error_class",
}

COLUMNS = (
    "comparison_id", "run_id", "arm_id", "block", "period", "repetition", "step", "seq", "part", "phase", "op", "path",
    "wall_time", *TIMESTAMPS, "conn_id", "conn_reused", "alpn", "tls_version", "tls_resumed", "early_data",
    "req_bytes", "resp_bytes", "status", "server_delay_ms", "server_time_us", "srtt_us", "retrans",
    "error_class", "error_detail", "total_us", "ttfb_us",
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sample_errors(sample: Any, *, arms: set[str], block: int) -> dict[str, str]:
    """Field → message for everything wrong with one sample; empty when valid."""
    if not isinstance(sample, dict):
        return {"": "must be an object"}
    errors: dict[str, str] = {}
    for name in sorted(set(sample) - KNOWN):
        errors[name] = "unknown field"
    if sample.get("arm") not in arms:
        errors["arm"] = f"must be one of the comparison's arm labels {sorted(arms)}"
    if sample.get("block") != block:
        errors["block"] = f"must equal the batch's block ({block})"
    for name in ("seq", "wall_time"):
        if not _is_int(sample.get(name)) or sample[name] < 0:
            errors[name] = "required non-negative integer"
    if sample.get("t0") != 0:
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
    if sample.get("error_class") not in ERROR_CLASSES:
        errors["error_class"] = f"must be null or one of {sorted(c for c in ERROR_CLASSES if c)}"
    return errors


def samples_validate(samples: list[Any], *, arms: set[str], block: int) -> None:
    """Raise a 400 naming `samples[i].field` for the first 50 problems; nothing is stored."""
    problems: dict[str, list[str]] = {}
    for index, sample in enumerate(samples):
        for field, message in sample_errors(sample, arms=arms, block=block).items():
            problems[f"samples[{index}].{field}".rstrip(".")] = [message]
            if len(problems) >= 50:
                raise serializers.ValidationError(problems)
    if problems:
        raise serializers.ValidationError(problems)


def samples_insert(*, run: Run, samples: list[dict[str, Any]]) -> int:
    """COPY the samples into PostgreSQL inside the caller's transaction."""
    arm_ids = dict(run.comparison.arms.values_list("label", "id"))
    rows = []
    for s in samples:
        rows.append(
            (
                run.comparison_id, run.id, arm_ids[s["arm"]], s["block"], s.get("period"), s.get("repetition"),
                s.get("step"), s["seq"], s.get("part"), s["phase"], s.get("op") or "", s.get("path") or "", s["wall_time"],
                *(s.get(name) for name in TIMESTAMPS),
                s.get("conn_id"), s.get("conn_reused"), s.get("alpn"), s.get("tls_version"), s.get("tls_resumed"),
                s.get("early_data"), s.get("req_bytes"), s.get("resp_bytes"), s.get("status"),
                s.get("server_delay_ms"), s.get("server_time_us"), s.get("srtt_us"), s.get("retrans"),
                s.get("error_class"), s.get("error_detail"), total_us(s), ttfb_us(s),
            )
        )
    text = "".join("\t".join(map(_copy_value, row)) + "\n" for row in rows)
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY results_sample ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            copy.write(text)
    return len(rows)


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_value(value: Any) -> str:
    """One field in PostgreSQL's COPY text format. Formatting the whole batch as one
    string is ~4× faster than write_row per row, which dominated ingestion."""
    if value is None:
        return "\\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, str):
        return value.translate(_COPY_ESCAPES)
    return str(value)
