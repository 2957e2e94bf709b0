"""The wire contract's files and the rules written from them, with nothing outside the standard
library: the JSON Schemas of samples, job and result documents, the example documents
(examples/), the shared test vectors, the table of error kinds and whom each blames
(`error_kinds`, `blame_of`), and how a verdict's numbers are written
(`verdict_numbers`).

The files live in this package's own folder, the one source of truth (README.md beside the
package says who obeys them); an installed wheel ships them as package data, so
`contract_dir()` is the same place in a checkout and in an installation.

Validating documents against the schemas needs jsonschema: it lives in
`latencylab_contract.validation`, installed with the `validation` extra
(`latencylab-contract[validation]`, which the runner asks for). The core stays free of it so
the CLI, which needs only the verdict-number rule, installs nothing more than its own two
dependencies.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

CONTRACT_DIR = Path(__file__).resolve().parent
SCHEMAS = ("sample", "job", "result")


def contract_dir() -> Path:
    """The folder of the schemas, examples/ and the test vectors."""
    return CONTRACT_DIR


@cache
def load_schema(name: str) -> dict[str, Any]:
    """name: 'sample', 'job' or 'result' (file <name>.schema.json)."""
    if name not in SCHEMAS:
        raise ValueError(f"schema must be one of {SCHEMAS}, got {name!r}")
    with open(contract_dir() / f"{name}.schema.json", encoding="utf-8") as f:
        return json.load(f)


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
