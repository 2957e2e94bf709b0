"""Every consumer of the wire contract reads this package's files, and no copy of them lives
anywhere else in the repository: the backend's tests (through `contract_dir()`), the runner
(it imports the validator), the Kotlin harness core's Maven build and tests and the Android
app's Gradle build (they point at this folder). A copy would drift; a consumer pointing
elsewhere would test against nothing.

The same for the rule of how a verdict's numbers are written: its one Python implementation is
this package's verdict_numbers.py, which the backend's summary lines and the CLI's tables both
import; no second Python copy exists (the dashboard's TypeScript is the one other, held to the
same vectors by frontend/src/utils/verdict-numbers.test.ts)."""

import ast
import json
import os
import re
from pathlib import Path

import pytest
from latencylab_contract import SCHEMAS, contract_dir, load_schema

CONTRACT = contract_dir()
REPO = CONTRACT.parents[2]
CONTRACT_FILES = {f"{name}.schema.json" for name in SCHEMAS} | {"target-policy-vectors.json"}
# Folders of generated or installed files, never committed sources.
NOT_SOURCES = {".git", "node_modules", ".venv", "var", "target", "build", "dist", "__pycache__", ".gradle"}

# Where each consumer says the contract is (file, the text that points here).
POINTERS = [
    ("device-runner/harness/android/core/pom.xml",
     "<contract.dir>${project.basedir}/../../../contract/latencylab_contract</contract.dir>"),
    ("device-runner/harness/android/app/build.gradle.kts", 'rootProject.file("../../contract/latencylab_contract")'),
    ("device-runner/harness/android/core/src/test/kotlin/dev/latencylab/harness/TestSupport.kt",
     '"device-runner/contract/latencylab_contract"'),
    ("backend/apps/core/tests/test_addresses.py", 'contract_dir() / "target-policy-vectors.json"'),
    ("backend/apps/results/tests/test_ingest_contract.py", 'contract.contract_dir() / "examples"'),
    ("device-runner/runner/tests/test_target_policy.py", 'contract_dir() / "target-policy-vectors.json"'),
]

# The verdict-number rule's one Python home, and the modules that write a verdict's numbers by it.
VERDICT_NUMBERS = CONTRACT / "verdict_numbers.py"
RULE_MODULE = "latencylab_contract.verdict_numbers"
RULE_IMPORTERS = [
    "backend/apps/results/analysis/verdict.py",  # the summary lines and verdict reasons
    "device-runner/cli/latencylab_cli/render.py",  # the CLI's text, JUnit, Markdown and PR comment
]
# What a copy of the rule would define (names no other Python code has reason to use).
RULE_DEFINITION = re.compile(r"^\s*def (effect_pct|effect_with_ci|margin_pct|_percent_magnitude)\(", re.MULTILINE)


def _sources(root: Path):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_SOURCES]
        for name in files:
            yield Path(folder) / name


def test_the_contract_files_are_here():
    assert {p.name for p in CONTRACT.iterdir()} >= CONTRACT_FILES
    assert any((CONTRACT / "examples").glob("invalid-*.json"))


def test_no_copy_of_a_contract_file_lives_elsewhere_in_the_repository():
    copies = [str(p.relative_to(REPO)) for p in _sources(REPO)
              if p.name in CONTRACT_FILES and p.parent != CONTRACT]
    assert copies == [], "the contract has one home, device-runner/contract/latencylab_contract"


def test_no_schema_elsewhere_claims_the_contract_id():
    prefix = load_schema("sample")["$id"].rsplit("/", 1)[0]
    claims = []
    for path in _sources(REPO):
        if path.suffix == ".json" and path.parent != CONTRACT and ".schema" in path.name:
            if prefix in path.read_text(encoding="utf-8", errors="replace"):
                claims.append(str(path.relative_to(REPO)))
    assert claims == []


@pytest.mark.parametrize("consumer, pointer", POINTERS, ids=[c for c, _ in POINTERS])
def test_each_consumer_reads_the_contract_from_here(consumer, pointer):
    assert pointer in (REPO / consumer).read_text(), f"{consumer} no longer points at {CONTRACT.relative_to(REPO)}"


def test_the_address_policy_vectors_are_the_ones_both_checks_read():
    vectors = json.loads((CONTRACT / "target-policy-vectors.json").read_text())
    assert len(vectors["cases"]) > 10


@pytest.mark.parametrize("importer", RULE_IMPORTERS)
def test_the_backend_and_the_cli_write_verdict_numbers_by_the_contracts_rule(importer):
    tree = ast.parse((REPO / importer).read_text(encoding="utf-8"), importer)
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert RULE_MODULE in imported, f"{importer} no longer imports {RULE_MODULE}"


def test_no_second_python_copy_of_the_verdict_number_rule():
    assert RULE_DEFINITION.search(VERDICT_NUMBERS.read_text(encoding="utf-8"))
    copies = [str(p.relative_to(REPO)) for p in _sources(REPO) if p.suffix == ".py" and p != VERDICT_NUMBERS
              and (p.name == VERDICT_NUMBERS.name
                   or RULE_DEFINITION.search(p.read_text(encoding="utf-8", errors="replace")))]
    assert copies == [], f"the rule has one Python home, {VERDICT_NUMBERS.relative_to(REPO)}"
