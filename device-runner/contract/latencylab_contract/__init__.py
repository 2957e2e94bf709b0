"""The wire contract's JSON Schemas: loading and validation of samples, job and result documents.

The schemas, the example documents (examples/) and the address-policy vectors live in this
package's own folder, the one source of truth (README.md beside the package says who obeys
them); an installed wheel ships them as package data, so `contract_dir()` is the same place
in a checkout and in an installation.

The result schema refers to the sample schema by relative URI ("sample.schema.json");
every schema is put into one local `referencing` registry under its `$id`, and the
registry refuses anything else, so validation never fetches over the network.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

CONTRACT_DIR = Path(__file__).resolve().parent
SCHEMAS = ("sample", "job", "result")


class ContractError(ValueError):
    """A document violates the wire contract; `errors` lists 'field.path: message'."""

    def __init__(self, schema: str, errors: list[str]):
        self.schema = schema
        self.errors = errors
        shown = "; ".join(errors[:10])
        more = f" (+{len(errors) - 10} more)" if len(errors) > 10 else ""
        super().__init__(f"invalid {schema}: {shown}{more}")


def contract_dir() -> Path:
    """The folder of the schemas, examples/ and target-policy-vectors.json."""
    return CONTRACT_DIR


@cache
def load_schema(name: str) -> dict[str, Any]:
    """name: 'sample', 'job' or 'result' (file <name>.schema.json)."""
    if name not in SCHEMAS:
        raise ValueError(f"schema must be one of {SCHEMAS}, got {name!r}")
    with open(contract_dir() / f"{name}.schema.json", encoding="utf-8") as f:
        return json.load(f)


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


BLAMES = ("customer_target", "lab", "runner", "device", "run")


@cache
def error_kinds() -> dict[str, dict[str, Any]]:
    """error_kind → {status, blame, runner_reports, meaning} (error-kinds.json): who is
    blamed for each way an attempt ends badly, read by the runner and the service alike."""
    with open(contract_dir() / "error-kinds.json", encoding="utf-8") as f:
        kinds: dict[str, dict[str, Any]] = json.load(f)["kinds"]
    for kind, row in kinds.items():
        if row["blame"] not in BLAMES or row["status"] not in ("failed", "infra_error"):
            raise ValueError(f"error-kinds.json: {kind}: unknown blame or status {row}")
    return kinds


def blame_of(error_kind: str) -> str:
    """Who an error kind blames (KeyError for a kind the table does not know)."""
    return error_kinds()[error_kind]["blame"]
