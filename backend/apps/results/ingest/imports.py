"""Bringing external measurements in (POST /api/v1/imports): one row per request, as CSV
or JSON. Every row is checked before anything is written; errors name the line and the
column, and a bad file imports nothing. An import becomes a comparison like any other:
analysed, charted, usable as a CI baseline."""

import csv
import io
import re
from typing import Any

from django.db import transaction
from rest_framework import serializers

from apps.accounts.models import Organization
from apps.comparisons.models import Arm, Comparison, Run, RunBlock
from apps.comparisons.spec import IMPORTED_KIND, spec_fingerprint
from apps.core.events import publish
from apps.devices.services import pool_get_or_create

from ..events import MEASUREMENTS_IMPORTED
from .store import samples_insert

MAX_ROWS = 200_000
LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$")
REQUIRED = ("arm", "device", "round", "sequence", "ms", "bytes")
PHASES_MS = ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms")
OPTIONAL = (*PHASES_MS, "new_connection", "network_profile", "error")
# (column, minimum, maximum)
NUMBER_BOUNDS = {"round": (0, 1000), "sequence": (0, 100_000), "ms": (0, 3_600_000), "bytes": (0, 10**10),
                 **{p: (0, 3_600_000) for p in PHASES_MS}}
TRUE, FALSE = {"1", "true", "yes", "y"}, {"0", "false", "no", "n", ""}


def parse_csv(text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise serializers.ValidationError({"line 1": [f"missing columns {missing}; required: {list(REQUIRED)}"]})
    unknown = sorted(set(reader.fieldnames or []) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise serializers.ValidationError({"line 1": [f"unknown columns {unknown}; optional: {list(OPTIONAL)}"]})
    return [dict(row) for row in reader]


def _number(value: Any, column: str, integer: bool) -> float | int:
    low, high = NUMBER_BOUNDS[column]
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{column}: must be a number from {low} to {high}") from None
    if integer and not number.is_integer():
        raise ValueError(f"{column}: must be a whole number from {low} to {high}")
    if not low <= number <= high:
        raise ValueError(f"{column}: must be from {low} to {high}, got {value}")
    return int(number) if integer else number


def _row_to_sample(row: dict[str, Any]) -> dict[str, Any]:
    """One import row → the fields of a sample; raises ValueError('column: …')."""
    for column in REQUIRED:
        if row.get(column) in (None, ""):
            raise ValueError(f"{column}: required")
    for column in ("arm", "device"):
        if not LABEL.match(str(row[column])):
            raise ValueError(f"{column}: 1–64 letters, digits, spaces or ._@- (got {str(row[column])[:70]!r})")
    rnd, sequence = _number(row["round"], "round", True), _number(row["sequence"], "sequence", True)
    total_us = round(_number(row["ms"], "ms", False) * 1000)
    phases = {p: round(_number(row[p], p, False) * 1000) for p in PHASES_MS if row.get(p) not in (None, "")}
    new_connection = row.get("new_connection")
    if new_connection in (None, ""):
        first = sequence == 0  # by default each round starts on a fresh connection (seeds/003)
    elif str(new_connection).lower() in TRUE | FALSE:
        first = str(new_connection).lower() in TRUE
    else:
        raise ValueError("new_connection: must be true or false")
    error = row.get("error") or None
    sample: dict[str, Any] = {
        "arm": str(row["arm"]), "block": rnd, "repetition": rnd, "step": sequence, "seq": sequence,
        "phase": "measure", "op": "get", "wall_time": 0, "t0": 0, "app_done": total_us,
        "resp_bytes": _number(row["bytes"], "bytes", True), "conn_reused": not first,
        "error_class": "other" if error else None, "error_detail": str(error)[:1000] if error else None,
    }
    # Rebuild phase timestamps as consecutive intervals from t0, where given.
    cursor = 0
    if "dns_ms" in phases:
        sample["dns_start"], cursor = 0, phases["dns_ms"]
        sample["dns_end"] = cursor
    if "connect_ms" in phases:
        sample["conn_start"] = cursor
        cursor += phases["connect_ms"]
        sample["tls_start" if "tls_ms" in phases else "conn_ready"] = cursor
    if "tls_ms" in phases:
        sample.setdefault("tls_start", cursor)
        cursor += phases["tls_ms"]
        sample["conn_ready"] = cursor
    if "ttfb_ms" in phases:
        sample["req_start"] = cursor
        sample["resp_first_byte"] = cursor + phases["ttfb_ms"]
    return sample


ImportedSample = tuple[str, str, dict[str, Any]]  # (device, network profile, sample)


def rows_to_samples(rows: list[Any], *, first_line: int, where: str = "line {}") -> list[ImportedSample]:
    """(device, network profile, sample) per row, or a 400 listing up to 50 bad lines.
    `where` names a row in errors: "line {}" for CSV, "rows[{}]" for JSON."""
    if not rows:
        raise serializers.ValidationError({"rows": ["no rows to import"]})
    if len(rows) > MAX_ROWS:
        raise serializers.ValidationError({"rows": [f"at most {MAX_ROWS} rows per import, got {len(rows)}"]})
    out, errors = [], {}
    for i, row in enumerate(rows):
        line = where.format(first_line + i)
        if not isinstance(row, dict):
            errors[line] = ["must be an object with the columns " + ", ".join(REQUIRED)]
            continue
        try:
            sample = _row_to_sample(row)
        except ValueError as exc:
            errors[line] = [f"column {exc}"]
        else:
            out.append((str(row["device"]), str(row.get("network_profile") or "none"), sample))
        if len(errors) >= 50:
            break
    if errors:
        raise serializers.ValidationError(errors)
    return out


@transaction.atomic
def comparison_import(*, organization: Organization, name: str, baseline_arm: str | None, tags: dict[str, str],
                      rows: list[tuple[str, str, dict[str, Any]]]) -> Comparison:
    arms = list(dict.fromkeys(sample["arm"] for _, _, sample in rows))
    baseline = baseline_arm or arms[0]
    if baseline not in arms:
        raise serializers.ValidationError({"baseline_arm": [f"must be one of the imported arms {arms}"]})
    groups = list(dict.fromkeys((device, profile) for device, profile, _ in rows))
    blocks = max(sample["block"] for _, _, sample in rows) + 1
    spec = {"name": name, "workload": {"kind": IMPORTED_KIND},
            "arms": [{"label": a, "protocol": "import"} for a in arms],
            "baseline_arm": baseline, "blocks": blocks, "network_profiles": sorted({p for _, p in groups}),
            "devices": {"pool": "imported", "platforms": [], "count": len({d for d, _ in groups})}, "tags": tags,
            "gate": {"metric": "total_ms", "statistic": "median", "margin_pct": 5.0, "alpha": 0.01}}
    comparison = Comparison.objects.create(
        organization=organization, name=name, preset="", submitted_spec={"import": True, "rows": len(rows)},
        spec=spec, spec_hash=spec_fingerprint(spec), tags=tags, baseline_arm=baseline,
        status=Comparison.Status.ANALYSING,
    )
    Arm.objects.bulk_create([Arm(comparison=comparison, position=i, label=a, protocol="import", connection="")
                             for i, a in enumerate(arms)])
    pool = pool_get_or_create(organization=organization, slug="imported", name="Imported measurements")
    for slot, (device, profile) in enumerate(groups):
        run = Run.objects.create(comparison=comparison, slot=slot, pool=pool, network_profile=profile,
                                 device_label=device, blocks_total=blocks, next_block=blocks, status=Run.Status.DONE)
        samples = [s for d, p, s in rows if (d, p) == (device, profile)]
        samples_insert(run=run, samples=samples)
        RunBlock.objects.bulk_create([RunBlock(run=run, block=b, attempt=0, batch_seq=b, sample_count=0)
                                      for b in sorted({s["block"] for s in samples})])
    publish(MEASUREMENTS_IMPORTED, comparison_id=str(comparison.id))
    return comparison
