"""Test helper: validate a response against a component of the committed OpenAPI schema
(backend/openapi.yaml), strictly: every documented required field present, no field the
schema does not document, nulls only where it says nullable."""

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

OPENAPI = Path(__file__).resolve().parents[3] / "openapi.yaml"


def _strict(node: Any) -> Any:
    """OpenAPI 3.0 schema object → JSON Schema: `nullable` becomes a null type, component
    references point into $defs, objects with properties admit no others."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value) for key, value in node.items() if key != "nullable"}
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace("#/components/schemas/", "#/$defs/")
    if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def _components() -> dict[str, Any]:
    # libyaml's loader: the pure-Python one takes seconds over the 300 kB schema.
    return _strict(yaml.load(OPENAPI.read_text(), Loader=yaml.CSafeLoader)["components"]["schemas"])


@cache
def _validator(component: str) -> jsonschema.Draft202012Validator:
    # One per component and process: building one resolves the whole $defs registry again.
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{component}", "$defs": _components()})


def schema_errors(component: str, document: Any) -> list[str]:
    """What is wrong with `document` as the component (empty when it conforms)."""
    validator = _validator(component)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
