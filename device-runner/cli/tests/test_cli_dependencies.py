"""The CLI customers install in CI carries only what it imports: its pyproject's dependencies are
exactly the packages outside the standard library that latencylab_cli imports (read with `ast`,
also inside functions), and none of the lab's or the measurement tools' (the import contract of
device-runner/.importlinter says the same of our own packages, in `make lint`)."""

import ast
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

CLI = Path(__file__).resolve().parents[1]
# Import name → distribution name, where they differ.
DISTRIBUTION = {"yaml": "pyyaml"}
# What the runner and the tools need and a CI job must not download for the CLI.
NOT_FOR_THE_CLI = {"h2", "hpack", "h11", "aioquic", "cryptography", "jsonschema", "referencing",
                   "latencylab-runner", "latencylab-tools", "latencylab-contract"}


def imported_top_levels() -> set[str]:
    names: set[str] = set()
    for path in (CLI / "latencylab_cli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def declared() -> set[str]:
    project = tomllib.loads((CLI / "pyproject.toml").read_text())["project"]
    return {Requirement(text).name.lower() for text in project["dependencies"]}


def test_the_dependencies_are_what_the_cli_imports():
    third_party = {name for name in imported_top_levels()
                   if name not in sys.stdlib_module_names and name != "latencylab_cli"}
    assert {DISTRIBUTION.get(name, name) for name in third_party} == declared()


def test_none_of_the_labs_or_the_tools_dependencies():
    assert declared() & NOT_FOR_THE_CLI == set()
    assert declared() == {"httpx", "pyyaml"}
