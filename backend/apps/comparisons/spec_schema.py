"""The JSON Schema of a submitted comparison spec (docs/api.md, "The spec"), generated from the
validator's own serializers (apps.comparisons.spec), so the two cannot drift.

`comparison_spec_schema()` walks the serializers: every field's type, bounds, choices,
default and nullability come from them. The few rules that join fields are added here
by hand: without a preset, `name`, `workload` (with its `kind`) and `arms` are required
(a preset gives them otherwise); an arm's endpoint scheme follows its protocol; no URL
carries credentials (url_credentials.py); `mode: aa` takes one arm. What a JSON Schema
cannot say stays with the validator alone (unique arm labels, `baseline_arm` naming an
arm, `stop_ms ≥ start_ms`, a payload sweep's `sizes` unless the preset gives them, the
200,000-requests-per-run limit, network profile names the organization knows);
tests/test_spec_schema.py lists them.

One difference on purpose: the schema rejects unknown fields, which the server ignores,
so an editor flags a typo such as `timout_s` instead of it being silently dropped.

The committed copy is spec.schema.json (served at GET /api/v1/schemas/comparison-spec);
`openapi_components()` gives the same schema in OpenAPI 3.0's dialect, the request body
of POST /api/v1/comparisons.
"""

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any, cast

from rest_framework import fields as drf
from rest_framework import serializers

from .spec import (
    AA_SUFFIX,
    AUTO_BLOCKS,
    GATE_METRICS,
    HEADER_NAME,
    MAX_HEADERS,
    SEQUENTIAL_BLOCKS_MAX,
    SEQUENTIAL_BLOCKS_MIN,
    WORKLOAD_SERIALIZERS,
    ArmSpec,
    BlocksField,
    ComparisonSpec,
    ConcurrencyField,
    DevicesSpec,
    GateSpec,
    RequestItemSpec,
)
from .url_credentials import SCHEMA_PATTERN as NO_CREDENTIALS_PATTERN

SCHEMA_FILE = Path(__file__).with_name("spec.schema.json")
DIALECT = "https://json-schema.org/draft/2020-12/schema"
ROOT = "ComparisonSpec"
# Choice fields of several values become named definitions (the frontend lists their
# values); a single value is a `const`.
NAMED_CHOICES = {("ArmSpec", "protocol"): "Protocol", ("ArmSpec", "connection"): "ConnectionPolicy",
                 ("GateSpec", "metric"): "GateMetric", ("DevicesSpec", "platforms"): "Platform",
                 (ROOT, "mode"): "ComparisonMode", (ROOT, "preset"): "PresetName",
                 ("RequestItemSpec", "method"): "HttpMethod", ("PayloadSweepWorkloadSpec", "method"): "SweepMethod"}
WORKLOAD_NAMES = {kind: f"{''.join(p.title() for p in kind.split('_'))}Workload" for kind in WORKLOAD_SERIALIZERS}
DEFINITIONS = {ArmSpec: "SpecArm", DevicesSpec: "SpecDevices", GateSpec: "SpecGate", RequestItemSpec: "SpecRequest"}
DESCRIPTIONS = {
    ROOT: "A comparison spec as submitted to POST /api/v1/comparisons (JSON or YAML). Fields given override "
          "the preset's; `workload` merges key by key when its kind is the preset's.",
    "name": "Shown in lists and reports.",
    "mode": "ab: compare arms; aa: the one arm measured twice (`<label>` and `<label>-again`) to measure "
            "the false-positive rate.",
    "preset": "A built-in preset (GET /api/v1/presets) the other fields override.",
    "workload": "What each arm requests; `kind` picks the fields.",
    "arms": "1–8 arms with unique labels, interleaved in randomized blocks.",
    "baseline_arm": "The label of the arm the others are judged against; default: the first arm.",
    "network_profiles": "Built-in or the organization's own profiles (GET /api/v1/network-profiles).",
    "blocks": "Randomized interleaved blocks (ABBA) per run: a number, or run until decided with {min, max} "
              f"({SEQUENTIAL_BLOCKS_MIN}–{SEQUENTIAL_BLOCKS_MAX}; looks at min, 2·min, 4·min … max) or auto "
              f"({{min: {AUTO_BLOCKS['min']}, max: {AUTO_BLOCKS['max']}}}).",
    "seed": "Seeds the block order; default: random, recorded.",
    "tags": "Up to 20, names 1–64 characters; baselines are found by them (branch:NAME, tag:KEY=VALUE). A value "
            "that is a URL carries no user:password@.",
    "devices": "Which devices: the pool, their platforms and how many.",
    "gate": "The CI gate's metric, margin and α. The metric depends on the workload kind: "
            + "; ".join(f"{kind}: {', '.join(metrics)}" for kind, metrics in GATE_METRICS.items())
            + " (the first is the default).",
    "timeout_s": "Per request.",
    "endpoint": "Default: the runner's reference target. https:// (http:// for h1c); no user:password@ (send "
                "credentials as a {{secret.NAME}} header).",
    "ca_bundle": "PEM certificates to trust for this endpoint (TLS verification is never turned off).",
    "concurrency": "How the app issues the requests of one series, API round or pass over the list: sequential "
                   "(default), parallel (6) or {parallel: N} (1–16 HTTP/1.1 connections per host) or all; HTTP/2 "
                   "and HTTP/3 multiplex them on one connection. Series time is then first request issued → last "
                   "response completed.",
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    return {**schema, "type": [schema["type"], "null"]}


def _default(field: drf.Field) -> Any:
    default = field.default
    if default is drf.empty or callable(default):
        return drf.empty
    return copy.deepcopy(default)


def _field(field: drf.Field, owner: str, defs: dict[str, Any]) -> dict[str, Any]:  # noqa: C901  one branch per DRF field type, read top to bottom as a table
    """The JSON Schema of one serializer field (validators from its arguments)."""
    schema: dict[str, Any]
    if isinstance(field, serializers.ListSerializer):
        schema = {"type": "array", "items": _serializer_ref(type(cast(serializers.Serializer, field.child)), defs)}
        for key, attr in (("minItems", "min_length"), ("maxItems", "max_length")):
            if getattr(field, attr, None) is not None:
                schema[key] = getattr(field, attr)
    elif isinstance(field, serializers.Serializer):
        schema = _serializer_ref(type(field), defs)
    elif isinstance(field, serializers.ListField):
        schema = {"type": "array", "items": _field(field.child, owner, defs)}
        for key, attr in (("minItems", "min_length"), ("maxItems", "max_length")):
            if getattr(field, attr) is not None:
                schema[key] = getattr(field, attr)
    elif isinstance(field, serializers.DictField):
        schema = {"type": "object"}
        if not isinstance(field.child, drf._UnvalidatedField):
            schema["additionalProperties"] = _field(field.child, owner, defs)
    elif isinstance(field, serializers.ChoiceField):
        choices = list(field.choices)
        if len(choices) == 1:
            schema = {"const": choices[0]}
        else:
            name = NAMED_CHOICES[owner, field.field_name or field.parent.field_name or ""]
            defs[name] = {"type": "string", "enum": choices}
            schema = {"$ref": f"#/$defs/{name}"}
    elif isinstance(field, serializers.IntegerField | serializers.FloatField):
        schema = {"type": "integer" if isinstance(field, serializers.IntegerField) else "number"}
        for key, attr in (("minimum", "min_value"), ("maximum", "max_value")):
            if getattr(field, attr) is not None:
                schema[key] = getattr(field, attr)
    elif isinstance(field, BlocksField):
        schema = field.json_schema()
    elif isinstance(field, ConcurrencyField):
        schema = field.json_schema()
    elif isinstance(field, serializers.CharField):  # RegexField, SlugField and URLField too
        schema = {"type": "string"}
        min_length = field.min_length if field.min_length is not None else (0 if field.allow_blank else 1)
        if min_length:
            schema["minLength"] = min_length
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
        if isinstance(field, serializers.RegexField | serializers.SlugField):
            [regex] = [v.regex.pattern for v in field.validators if hasattr(v, "regex")]
            schema["pattern"] = regex
        if isinstance(field, serializers.URLField):
            schema["format"] = "uri"
    else:
        raise TypeError(f"no JSON Schema mapping for {type(field).__name__} ({owner}.{field.field_name})")
    if field.allow_null:
        schema = _nullable(schema)
    if field.field_name in DESCRIPTIONS and owner in (ROOT, "ArmSpec"):
        schema = {**schema, "description": DESCRIPTIONS[field.field_name]}
    if (default := _default(field)) is not drf.empty:
        schema = {**schema, "default": default}
    return schema


def _object(serializer: type[serializers.Serializer], defs: dict[str, Any], *, required: bool = True) -> dict:
    fields = serializer().fields
    owner = ROOT if serializer is ComparisonSpec else serializer.__name__
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: _field(field, owner, defs) for name, field in fields.items()},
        "additionalProperties": False,
    }
    names = [name for name, field in fields.items() if field.required]
    if required and names:
        schema["required"] = names
    return schema


def _serializer_ref(serializer: type[serializers.Serializer], defs: dict[str, Any]) -> dict[str, Any]:
    name = DEFINITIONS[serializer]
    if name not in defs:
        defs[name] = {}  # reserve the name first: fields may refer back
        defs[name] = _object(serializer, defs)
    return {"$ref": f"#/$defs/{name}"}


def _workloads(defs: dict[str, Any]) -> dict[str, Any]:
    """One definition per kind. `kind` and fields without a default are not required here:
    with a preset a workload may give only what it changes (the root requires `kind`
    when there is no preset)."""
    for kind, serializer in WORKLOAD_SERIALIZERS.items():
        defs[WORKLOAD_NAMES[kind]] = _object(serializer, defs, required=False)
    defs["Workload"] = {"anyOf": [{"$ref": f"#/$defs/{name}"} for name in WORKLOAD_NAMES.values()],
                        "description": DESCRIPTIONS["workload"]}
    return {"$ref": "#/$defs/Workload"}


def _endpoint_follows_protocol(arm: dict[str, Any]) -> None:
    """ArmSpec.validate: an h1c arm's endpoint is http://, any other arm's https://."""
    protocols = arm["properties"]["protocol"]
    if protocols != {"$ref": "#/$defs/Protocol"}:
        raise RuntimeError(f"ArmSpec.protocol is no longer the Protocol enum: {protocols!r}")
    arm["anyOf"] = [
        {"properties": {"protocol": {"const": "h1c"}, "endpoint": {"pattern": "^[Hh][Tt][Tt][Pp]://"}}},
        {"properties": {"protocol": {"not": {"const": "h1c"}},
                        "endpoint": {"pattern": "^[Hh][Tt][Tt][Pp][Ss]://"}}},
    ]
    arm["properties"]["ca_bundle"]["pattern"] = "-----BEGIN CERTIFICATE-----"


def _no_url_credentials(root: dict[str, Any], defs: dict[str, Any]) -> None:
    """url_credentials.py: the spec's URL fields (and tag values, which may be URLs) carry no
    user:password@. A request's `url` says it in its own pattern (_request_rules)."""
    fields = [defs["SpecArm"]["properties"]["endpoint"], defs[WORKLOAD_NAMES["series"]]["properties"]["object_paths"]
              ["items"], defs[WORKLOAD_NAMES["mixed"]]["properties"]["file_paths"]["items"],
              root["properties"]["tags"]["additionalProperties"]]
    for field in fields:
        if "pattern" in field:
            raise RuntimeError(f"a URL field has a pattern of its own now: {field!r}")
        field["pattern"] = NO_CREDENTIALS_PATTERN


def _request_rules(request: dict[str, Any]) -> None:
    """RequestItemSpec.validate_*: an http(s) URL without credentials, header names that
    are RFC 9110 tokens, exactly one of url/path, at most one body."""
    request["properties"]["url"]["pattern"] = "^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#\\s]+(?:[/?#][^\\s]*)?$"
    request["properties"]["headers"]["propertyNames"] = {"pattern": HEADER_NAME.pattern}
    request["properties"]["headers"]["maxProperties"] = MAX_HEADERS
    given = {"not": {"type": "null"}}
    request["oneOf"] = [{"required": ["url"], "properties": {"url": given}},
                        {"required": ["path"], "properties": {"path": given}}]
    request["not"] = {"anyOf": [{"required": [a, b], "properties": {a: given, b: given}}
                                for a, b in (("body", "body_b64"), ("body", "body_bytes"),
                                             ("body_b64", "body_bytes"))]}


def _gate_metric_follows_kind(defs: dict[str, Any]) -> dict[str, Any]:
    """ComparisonSpec.validate: gate.metric is one the workload kind allows (when the spec gives
    the kind; with a preset only the validator knows it). Each kind's metrics are a named enum,
    the default first, so clients (the dashboard's builder) read them from the schema."""
    branches: list[dict[str, Any]] = [
        {"not": {"required": ["gate"], "properties": {"gate": {"required": ["metric"]}}}},
        {"not": {"required": ["workload"], "properties": {"workload": {"required": ["kind"]}}}},
    ]
    for kind, allowed in GATE_METRICS.items():
        name = gate_metric_definition(kind)
        defs[name] = {"type": "string", "enum": list(allowed),
                      "description": f"gate.metric of the workload kind {kind}; the first, {allowed[0]}, "
                                     "is the default."}
        branches.append({"properties": {"workload": {"properties": {"kind": {"const": kind}}},
                                        "gate": {"properties": {"metric": {"$ref": f"#/$defs/{name}"}}}}})
    return {"description": "gate.metric is one the workload kind allows: "
                           + "; ".join(f"{kind}: {', '.join(allowed)}" for kind, allowed in GATE_METRICS.items())
                           + " (the first is the default).",
            "anyOf": branches}


def gate_metric_definition(kind: str) -> str:
    """`SeriesGateMetric`, `DelaySweepGateMetric`, …: the named enum of a kind's gate metrics."""
    return WORKLOAD_NAMES[kind].removesuffix("Workload") + "GateMetric"


@cache
def _generated() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    root = _object(ComparisonSpec, defs, required=False)
    root["properties"]["workload"] = _workloads(defs)
    _endpoint_follows_protocol(defs["SpecArm"])
    _request_rules(defs["SpecRequest"])
    _no_url_credentials(root, defs)
    label = defs["SpecArm"]["properties"]["label"]
    root["allOf"] = [
        {"description": "Without a preset, name, workload (with its kind) and arms are required.",
         "anyOf": [{"required": ["preset"], "properties": {"preset": {"type": "string"}}},
                   {"required": ["name", "workload", "arms"], "properties": {"workload": {"required": ["kind"]}}}]},
        {"description": f"mode aa takes exactly one arm, whose label leaves room for {AA_SUFFIX!r}.",
         "anyOf": [{"not": {"required": ["mode"]}}, {"properties": {"mode": {"const": "ab"}}},
                   {"properties": {"arms": {"maxItems": 1, "items": {"properties": {
                       "label": {"maxLength": label["maxLength"] - len(AA_SUFFIX)}}}}}}]},
    ]
    root["allOf"].append(_gate_metric_follows_kind(defs))
    root["properties"]["tags"].update(maxProperties=20, propertyNames={"minLength": 1, "maxLength": 64})
    root["properties"]["network_profiles"]["uniqueItems"] = True
    return {"$schema": DIALECT, "title": "LatencyLab comparison spec", "description": DESCRIPTIONS[ROOT], **root,
            "$defs": dict(sorted(defs.items()))}


def comparison_spec_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a submitted spec."""
    return copy.deepcopy(_generated())


def schema_file_text() -> str:
    """spec.schema.json as committed."""
    return json.dumps(comparison_spec_schema(), indent=2, ensure_ascii=False) + "\n"


# --- OpenAPI 3.0 ------------------------------------------------------------------------------


def _to_openapi(node: Any) -> Any:
    """JSON Schema 2020-12 → OpenAPI 3.0's schema object: `type: [T, "null"]` becomes
    `nullable`, `$defs` references become component references, `const` a one-value enum
    (wrapped in allOf, so drf-spectacular's enum hook leaves it alone instead of naming it
    after the property), and `propertyNames` (which 3.0 lacks) is dropped: the JSON
    Schema keeps that rule."""
    if isinstance(node, list):
        return [_to_openapi(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _to_openapi(value) for key, value in node.items()
           if key not in ("propertyNames", "$schema", "$defs", "const")}
    if "const" in node:
        out["allOf"] = [{"type": "string", "enum": [node["const"]]}]
    if isinstance(out.get("type"), list):
        [out["type"]] = [t for t in out["type"] if t != "null"]
        out["nullable"] = True
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace("#/$defs/", "#/components/schemas/")
        if len(out) > 1:  # 3.0 ignores a $ref's siblings (description, default): wrap it
            out = {"allOf": [{"$ref": out.pop("$ref")}], **out}
    if "anyOf" in out and {"type": "null"} in out["anyOf"]:
        others = [s for s in out.pop("anyOf") if s != {"type": "null"}]
        out = {**out, "allOf": others, "nullable": True}
    return out


def _for_clients(schema: dict[str, Any]) -> dict[str, Any]:
    """What OpenAPI's type generators read well: the rules that join fields become words
    in the description (they turn into loose unions otherwise: an arm type that accepts
    any object), and defaults become words too (a generator reads a property with a
    default as always present, which holds for responses, not for a request body)."""
    notes = [rule["description"] for rule in schema.pop("allOf", [])]
    if schema.pop("anyOf", None) is not None and "endpoint" in schema.get("properties", {}):
        notes.append("An h1c arm's endpoint is http://, any other arm's https://.")
    if schema.pop("oneOf", None) is not None and schema.pop("not", None) is not None:
        notes.append("Give exactly one of url (absolute) or path (appended to each arm's endpoint), and at most "
                     "one of body, body_b64, body_bytes.")
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is not None:
            prop["description"] = f"{prop.get('description', '').rstrip('.')}. Default: {json.dumps(prop['default'])}."
            prop["description"] = prop["description"].lstrip(". ")
        prop.pop("default", None)
    if notes:
        schema["description"] = " ".join([schema.get("description", ""), *notes]).strip()
    return schema


def openapi_components() -> dict[str, dict[str, Any]]:
    """Component name → schema, the root under `ComparisonSpec`: the JSON Schema in
    OpenAPI 3.0's dialect, its cross-field rules said in the descriptions (the JSON Schema
    served at /api/v1/schemas/comparison-spec checks them)."""
    schema = comparison_spec_schema()
    definitions = schema.pop("$defs")
    components = {name: _to_openapi(_for_clients(definition)) for name, definition in definitions.items()}
    components[ROOT] = _to_openapi(_for_clients(schema))
    components[ROOT]["description"] += (" The full rules, cross-field ones included, are the JSON Schema at "
                                        "GET /api/v1/schemas/comparison-spec.")
    return components
