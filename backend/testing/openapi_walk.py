"""Walking the API as its OpenAPI schema describes it, generated at test time (drf-spectacular),
so an endpoint added later is walked without anyone listing it: every operation, its path
parameters, and a minimal body its request schema accepts."""

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")


def api_schema() -> dict[str, Any]:
    """The OpenAPI document the running code describes (what `manage.py spectacular` writes)."""
    return SchemaGenerator().get_schema(request=None, public=True)


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    path: str  # templated: /api/v1/comparisons/{comparison_id}
    spec: dict[str, Any] = field(hash=False, compare=False)

    @property
    def path_parameters(self) -> list[str]:
        return [p["name"] for p in self.spec.get("parameters", []) if p["in"] == "path"]

    @property
    def safe(self) -> bool:
        return self.method == "GET"

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def operations(schema: dict[str, Any]) -> Iterator[Operation]:
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield Operation(method.upper(), path, item[method])


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def example_value(schema: dict[str, Any], components: dict[str, Any],  # noqa: C901  (one branch per JSON type)
                  *, every_property: bool = False) -> Any:
    """The smallest value `schema` accepts, as far as a schema says: required properties only
    (every property of the top object when `every_property`: a PATCH body, where none is
    required but an empty one says nothing), enums' first member, minimums, formats."""
    schema = _resolve(schema, components)
    for key in ("example", "default"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if schema.get("enum"):
        return next((v for v in schema["enum"] if v not in (None, "")), schema["enum"][0])
    for key in ("oneOf", "anyOf"):
        if schema.get(key):
            return example_value(schema[key][0], components)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = example_value(part, components)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object":
        properties = schema.get("properties", {})
        names = properties if every_property else schema.get("required", [])
        return {name: example_value(properties.get(name, {}), components) for name in names
                if not properties.get(name, {}).get("readOnly")}
    if kind == "array":
        return [example_value(schema.get("items", {}), components) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return _example_string(schema)


def _example_string(schema: dict[str, Any]) -> str:
    formats = {"uuid": str(uuid.uuid4()), "date-time": "2030-01-01T00:00:00Z", "date": "2030-01-01",
               "email": "someone@example.com", "uri": "https://example.com/", "binary": "x"}
    if schema.get("format") in formats:
        return formats[schema["format"]]
    return "x" * max(schema.get("minLength", 1), 1)


def example_request(operation: Operation, components: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for a Django test client's `generic()`: a body its schema accepts,
    required query and header parameters filled in."""
    kwargs: dict[str, Any] = {}
    content = operation.spec.get("requestBody", {}).get("content", {})
    if content:
        media = "application/json" if "application/json" in content else next(iter(content))
        body = example_value(content[media].get("schema", {}), components, every_property=operation.method == "PATCH")
        kwargs["content_type"] = media
        kwargs["data"] = json.dumps(body) if media == "application/json" else str(body).encode()
    query = {}
    for parameter in operation.spec.get("parameters", []):
        if not parameter.get("required"):
            continue
        value = example_value(parameter.get("schema", {}), components)
        if parameter["in"] == "query":
            query[parameter["name"]] = value
        elif parameter["in"] == "header":
            kwargs["HTTP_" + parameter["name"].upper().replace("-", "_")] = str(value)
    kwargs["query"] = query
    return kwargs


def fill_path(operation: Operation, values: dict[str, str]) -> str:
    path = operation.path
    for name in operation.path_parameters:
        path = path.replace("{" + name + "}", values[name])
    return path


def call(client: Any, operation: Operation, path: str, request: dict[str, Any]) -> Any:
    """One request; `request` from example_request (its query, body and headers)."""
    kwargs = dict(request)
    query = kwargs.pop("query", {})
    if query:
        path = path + "?" + "&".join(f"{k}={v}" for k, v in query.items())
    data = kwargs.pop("data", "")
    return client.generic(operation.method, path, data, **kwargs)


def response_text(response: Any) -> str:
    """The whole body, streamed or not, as text (binary bodies decoded leniently)."""
    raw = b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content
    return raw.decode("utf-8", errors="replace")
