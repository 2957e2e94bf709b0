"""Every list endpoint takes the query parameters it documents and nothing else, over the whole
API as its OpenAPI schema describes it now (so a list added later is walked too): a parameter it
does not take, and a value outside what a documented parameter takes, are 400s naming the
parameter (and, for a choice, every allowed value), in the API's error shape; its own
parameters, its pagination and `format` still answer 200."""

from typing import Any

import pytest

from apps.core.error_responses import is_list_operation
from testing.openapi_walk import Operation, api_schema, call, example_request, fill_path, operations
from testing.org_world import OWNER, OWNER_PASSWORD, acme_world, id_kind, signed_in

# GETs whose answer is one object rather than an array or a page, whose parameters still say
# which rows it is made of or how much of them: they refuse unknown parameters like the lists.
COMPUTED_LISTS = {"/api/v1/trends", "/api/v1/trends.csv", "/api/v1/trends/options", "/api/v1/usage"}
# Parameters that are the pagination's (DRF's own behaviour: a page that is not there is a 404).
SHARED = {"page", "page_size", "format"}
# A value of each format no parameter of that format takes.
MALFORMED = {"date-time": "yesterday", "uuid": "not-a-uuid", "integer": "many"}


def strict_operations(schema: dict[str, Any]) -> list[Operation]:
    return [op for op in operations(schema)
            if op.method == "GET" and (is_list_operation("get", op.spec) or op.path in COMPUTED_LISTS)]


def query_parameters(operation: Operation) -> list[dict[str, Any]]:
    return [p for p in operation.spec.get("parameters", []) if p["in"] == "query" and p["name"] not in SHARED
            and "." not in p["name"]]  # tag.KEY: the comparison list's tests


def bad_value(parameter: dict[str, Any]) -> str | None:
    schema = parameter.get("schema", {})
    if schema.get("enum"):
        return "bogus"
    return MALFORMED.get(schema.get("format") or schema.get("type", ""))


@pytest.fixture
def owner_and_paths(db) -> tuple[Any, dict[str, str]]:
    world, _ = acme_world()
    return signed_in(OWNER, OWNER_PASSWORD), world.ids


def path_of(operation: Operation, ids: dict[str, str]) -> str:
    return fill_path(operation, {name: ids[id_kind(operation.path, name) or ""] for name in operation.path_parameters})


def test_every_list_refuses_parameters_and_values_it_does_not_take(owner_and_paths):
    owner, ids = owner_and_paths
    schema = api_schema()
    components = schema.get("components", {}).get("schemas", {})
    walked = strict_operations(schema)
    failures = []
    for operation in walked:
        request = example_request(operation, components)
        path = path_of(operation, ids)
        plain = call(owner, operation, path, {**request, "query": {**request["query"], "format": "json"}})
        if plain.status_code != 200:
            failures.append(f"{operation}: {plain.status_code} with its own parameters only")
            continue
        unknown = call(owner, operation, path, {**request, "query": {**request["query"], "no_such_filter": "1"}})
        body = unknown.json() if unknown.status_code == 400 else {}
        if not str(body.get("no_such_filter", [""])[0]).startswith("no_such_filter: not a parameter"):
            failures.append(f"{operation}: ?no_such_filter=1 answered {unknown.status_code} {unknown.content[:200]!r}")
        for parameter in query_parameters(operation):
            value = bad_value(parameter)
            if value is None:
                continue
            name = parameter["name"]
            refused = call(owner, operation, path, {**request, "query": {**request["query"], name: value}})
            messages = refused.json().get(name, []) if refused.status_code == 400 else []
            allowed = parameter["schema"].get("enum", [])
            if not messages or not messages[0].startswith(f"{name}:") or not all(
                    str(choice) in messages[0] for choice in allowed):
                failures.append(f"{operation}: ?{name}={value} answered {refused.status_code} "
                                f"{refused.content[:200]!r}")
    assert not failures, "\n".join(failures)
    assert len(walked) >= 20  # the schema really was walked
