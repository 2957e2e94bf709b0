"""Every consumer of the wire contract reads this package's files, and no copy of them lives
anywhere else in the repository: the backend's tests (through `contract_dir()`), the runner
(it imports the validator), the Kotlin harness core's Maven build and tests and the Android
app's Gradle build (they point at this folder). A copy would drift; a consumer pointing
elsewhere would test against nothing."""

import json
import os
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
