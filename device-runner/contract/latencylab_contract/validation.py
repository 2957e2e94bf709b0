"""Validation of samples, job and result documents against the contract's JSON Schemas.

Needs jsonschema and referencing: install `latencylab-contract[validation]` (the runner does).
The result schema refers to the sample schema by relative URI ("sample.schema.json");
every schema is put into one local `referencing` registry under its `$id`, and the
registry refuses anything else, so validation never fetches over the network.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from latencylab_contract import SCHEMAS, load_schema


class ContractError(ValueError):
    """A document violates the wire contract; `errors` lists 'field.path: message'."""

    def __init__(self, schema: str, errors: list[str]):
        self.schema = schema
        self.errors = errors
        shown = "; ".join(errors[:10])
        more = f" (+{len(errors) - 10} more)" if len(errors) > 10 else ""
        super().__init__(f"invalid {schema}: {shown}{more}")


def _no_remote(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


@cache
def _registry() -> Registry[Any]:
    resources = [(load_schema(name)["$id"], Resource.from_contents(load_schema(name))) for name in SCHEMAS]
    return Registry(retrieve=_no_remote).with_resources(resources)  # type: ignore[call-arg]


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())


def _path(error: Any) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "(root)"


def iter_errors(doc: Any, schema: str = "sample") -> Iterator[str]:
    """Yield 'field.path: message' for every violation, in a stable order."""
    errors = sorted(_validator(schema).iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for error in errors:
        yield f"{_path(error)}: {error.message}"


def iter_sample_errors(doc: Any) -> Iterator[str]:
    yield from iter_errors(doc, "sample")


def validate(doc: Any, schema: str = "sample") -> None:
    errors = list(iter_errors(doc, schema))
    if errors:
        raise ContractError(schema, errors)


def validate_sample(doc: Any) -> None:
    """Raise ContractError naming each bad field path."""
    validate(doc, "sample")
