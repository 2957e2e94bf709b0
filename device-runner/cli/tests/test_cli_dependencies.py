"""The CLI customers install in CI carries only what it imports: its pyproject's dependencies are
exactly the packages outside the standard library that latencylab_cli imports (read with `ast`,
also inside functions), and none of the lab's or the measurement tools' (the import contract of
device-runner/.importlinter says the same of our own packages, in `make lint`). Its closure is
httpx, PyYAML and the contract's core (the verdict-number rule), which depends on nothing: the
contract's validator and its jsonschema are an extra the CLI does not ask for."""

import ast
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

CLI = Path(__file__).resolve().parents[1]
CONTRACT = CLI.parent / "contract"
# Import name → distribution name, where they differ.
DISTRIBUTION = {"yaml": "pyyaml", "latencylab_contract": "latencylab-contract"}
# What the runner and the tools need and a CI job must not download for the CLI.
NOT_FOR_THE_CLI = {"h2", "hpack", "h11", "aioquic", "cryptography", "jsonschema", "referencing",
                   "latencylab-runner", "latencylab-tools"}


def imported_modules() -> set[str]:
    names: set[str] = set()
    for path in (CLI / "latencylab_cli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return names


def requirements(pyproject: Path) -> list[Requirement]:
    project = tomllib.loads(pyproject.read_text())["project"]
    return [Requirement(text) for text in project["dependencies"]]


def declared() -> set[str]:
    return {requirement.name.lower() for requirement in requirements(CLI / "pyproject.toml")}


def test_the_dependencies_are_what_the_cli_imports():
    top_levels = {name.split(".")[0] for name in imported_modules()}
    third_party = top_levels - set(sys.stdlib_module_names) - {"latencylab_cli"}
    assert {DISTRIBUTION.get(name, name) for name in third_party} == declared()


def test_none_of_the_labs_or_the_tools_dependencies():
    assert declared() & NOT_FOR_THE_CLI == set()
    assert declared() == {"httpx", "pyyaml", "latencylab-contract"}


def test_of_the_contract_only_its_dependency_free_core():
    contract, = (r for r in requirements(CLI / "pyproject.toml") if r.name == "latencylab-contract")
    assert contract.extras == set(), "the validation extra brings jsonschema and referencing"
    assert requirements(CONTRACT / "pyproject.toml") == []
    assert {name for name in imported_modules() if name.startswith("latencylab_contract")} == {
        "latencylab_contract.verdict_numbers"}
