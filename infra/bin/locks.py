#!/usr/bin/env python3
"""The Python lock files: backend/requirements.lock (what ships: the backend's runtime and the
device-runner's packages') and backend/requirements-dev.lock (that plus the test and lint tools and
the device-runner packages' `dev` extras). Every package pinned to one version with its hashes.

    locks.py compile [--upgrade | --upgrade-package NAME ...]   → rewrites both locks (needs the registry)
    locks.py check                                                → exit 1 if a lock is stale (offline)
    locks.py prune                                                → uninstall what the dev lock does not list

compile keeps every existing pin that still satisfies the inputs (pip-compile's rule), so a lock
changes only where an input changed or an upgrade was asked for. Each lock records the hash of
its inputs (the two .in files and the dependency lists of device-runner/*/pyproject.toml, with
those of the extras one of these packages asks of another); check recomputes it, and checks
that every input requirement is met by a pin and that the dev lock agrees with the runtime
lock, without the network.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement  # run with the venv's python (pip and pip-tools bring it)

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_IN = Path("backend/requirements.in")
DEV_IN = Path("backend/requirements-dev.in")
RUNTIME_LOCK = Path("backend/requirements.lock")
DEV_LOCK = Path("backend/requirements-dev.lock")
# The device-runner's packages, each with its own dependencies (the runner's include the tools and the contract).
RUNNER_PYPROJECTS = [Path(f"device-runner/{name}/pyproject.toml") for name in ("contract", "tools", "runner", "cli")]
# Our own packages: installed editable from the tree, never from a lock.
OWN = {"latencylab-backend", "latencylab-runner", "latencylab-tools", "latencylab-contract", "latencylab-cli"}

# --strip-extras: a constraints file (the dev input constrains on the runtime lock) may not carry extras.
# --allow-unsafe: setuptools builds our packages and pip-tools needs pip, so both are pinned too.
# No index or find-links lines: the lock names packages and hashes, not this machine's sources.
COMPILE_OPTIONS = ["--quiet", "--generate-hashes", "--allow-unsafe", "--strip-extras", "--no-emit-index-url",
                   "--no-emit-trusted-host", "--no-emit-find-links"]
HASH_LINE = "# inputs-sha256: {}  (infra/bin/locks.py check compares it with the inputs)\n"
HASH_RE = re.compile(r"^# inputs-sha256: ([0-9a-f]{64})\b")
PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def canonical(name: str) -> str:
    """PEP 503 name normalisation: Django, django and DJANGO are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


def runner_dependencies(root: Path) -> dict:
    """The device-runner packages' dependencies on others' packages, all four together, with
    those of every extra one of them asks of another (the runner's latencylab-contract[validation]
    brings jsonschema and referencing: they ship, so the runtime lock pins them)."""
    projects = [tomllib.loads((root / path).read_text())["project"] for path in RUNNER_PYPROJECTS]
    asked: dict[str, set[str]] = {}
    for project in projects:
        for requirement in map(Requirement, project.get("dependencies", [])):
            if canonical(requirement.name) in OWN:
                asked.setdefault(canonical(requirement.name), set()).update(requirement.extras)
    dependencies: list[str] = []
    dev: list[str] = []
    for project in projects:
        extras = project.get("optional-dependencies", {})
        dependencies += [d for d in project.get("dependencies", []) if canonical(Requirement(d).name) not in OWN]
        for extra in sorted(asked.get(canonical(project["name"]), set())):
            dependencies += [d for d in extras[extra] if canonical(Requirement(d).name) not in OWN]
        dev += extras.get("dev", [])
    return {"dependencies": dependencies, "optional-dependencies": {"dev": dev}}


def inputs_hash(root: Path) -> str:
    """Changes when any input of either lock does (only the pyproject's dependency lists count,
    so editing its tool settings does not stale the locks), or when the compile options do."""
    digest = hashlib.sha256()
    for part in (RUNTIME_IN.as_posix(), (root / RUNTIME_IN).read_bytes(), DEV_IN.as_posix(),
                 (root / DEV_IN).read_bytes(), json.dumps(runner_dependencies(root), sort_keys=True).encode(),
                 " ".join(COMPILE_OPTIONS).encode()):
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------- compile

def pip_compile(root: Path) -> str:
    for candidate in (root / ".venv/bin/pip-compile", shutil.which("pip-compile")):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    sys.exit("locks.py: pip-compile not found: run infra/bin/bootstrap.sh (the dev lock installs pip-tools)")


# pip-compile cannot read the device-runner's pyprojects directly: the runner's names the tools and the
# contract, which no index has. compile hands it their dependencies on others' packages instead, in a
# file of its own under var/ that the locks then name by where those dependencies are written.
GENERATED_IN = Path("var/locks/device-runner-packages.in")
GENERATED_NAME = "device-runner/*/pyproject.toml"


def compile_locks(root: Path, upgrade: list[str]) -> int:
    tool = pip_compile(root)
    runner = runner_dependencies(root)
    runs = [(RUNTIME_LOCK, RUNTIME_IN, runner["dependencies"]),  # second: constrained by the first
            (DEV_LOCK, DEV_IN, runner["dependencies"] + runner["optional-dependencies"]["dev"])]
    (root / GENERATED_IN).parent.mkdir(parents=True, exist_ok=True)
    for lock, source, runner_requirements in runs:
        print(f"locks.py: compiling {lock}", file=sys.stderr)
        (root / GENERATED_IN).write_text("".join(f"{r}\n" for r in runner_requirements))
        subprocess.run([tool, *COMPILE_OPTIONS, *upgrade, "--output-file", str(lock), str(source),
                        str(GENERATED_IN)], cwd=root, check=True,
                       env={**os.environ, "CUSTOM_COMPILE_COMMAND": "infra/bin/locks.py compile"})
        text = (root / lock).read_text()
        (root / lock).write_text(text.replace(f"-r {GENERATED_IN}", GENERATED_NAME))
    (root / GENERATED_IN).unlink()
    digest = inputs_hash(root)
    for lock in (RUNTIME_LOCK, DEV_LOCK):
        text = (root / lock).read_text()
        (root / lock).write_text(HASH_LINE.format(digest) + "".join(
            line for line in text.splitlines(keepends=True) if not HASH_RE.match(line)))
    return check_locks(root)


# ------------------------------------------------------------------------------------------ check

def read_pins(root: Path, lock: Path) -> tuple[str | None, dict[str, str], list[str]]:
    """(recorded inputs hash, {canonical name: version}, names pinned without a hash)."""
    recorded, pins, unhashed, current = None, {}, [], None
    for line in (root / lock).read_text().splitlines():
        if match := HASH_RE.match(line):
            recorded = match.group(1)
        elif match := PIN_RE.match(line):
            current = canonical(match.group(1))
            pins[current] = match.group(2)
            if "--hash=" not in line:
                unhashed.append(current)
        elif current and line.strip().startswith("--hash=") and current in unhashed:
            unhashed.remove(current)
    return recorded, pins, unhashed


def in_requirements(root: Path, path: Path) -> list[str]:
    """The requirement lines of an .in file, following -r includes (constraints are not requirements)."""
    lines = []
    for raw in (root / path).read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#") or line.startswith(("-c", "--constraint")):
            continue
        if line.startswith(("-r", "--requirement")):
            lines += in_requirements(root, path.parent / line.split(maxsplit=1)[1])
            continue
        lines.append(line)
    return lines


def unmet(requirements: list[str], pins: dict[str, str], lock: Path) -> list[str]:
    problems = []
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        version = pins.get(canonical(requirement.name))
        if version is None:
            problems.append(f"{lock}: {requirement.name} is required ({text!r}) but not pinned")
        elif not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{lock}: {requirement.name}=={version} does not satisfy {text!r}")
    return problems


def check_locks(root: Path) -> int:
    problems = []
    digest = inputs_hash(root)
    locks = {}
    for lock in (RUNTIME_LOCK, DEV_LOCK):
        if not (root / lock).exists():
            problems.append(f"{lock} is missing")
            continue
        recorded, pins, unhashed = read_pins(root, lock)
        locks[lock] = pins
        if recorded != digest:
            problems.append(f"{lock} was compiled from other inputs than {RUNTIME_IN}, {DEV_IN} and the "
                            f"dependencies in device-runner/*/pyproject.toml say now")
        problems += [f"{lock}: {name} is pinned without a hash" for name in unhashed]
        problems += [f"{lock}: {name} is our own package; it is installed editable, not locked"
                     for name in OWN & pins.keys()]
    if len(locks) == 2:
        runner = runner_dependencies(root)
        runtime, dev = locks[RUNTIME_LOCK], locks[DEV_LOCK]
        problems += unmet(in_requirements(root, RUNTIME_IN) + runner["dependencies"], runtime, RUNTIME_LOCK)
        problems += unmet(in_requirements(root, DEV_IN) + runner["dependencies"]
                          + runner["optional-dependencies"].get("dev", []), dev, DEV_LOCK)
        problems += [f"{DEV_LOCK}: {name}=={dev.get(name)} but {RUNTIME_LOCK} pins {version}"
                     for name, version in sorted(runtime.items()) if dev.get(name) != version]
    if problems:
        print("\n".join(["Python locks are out of date:", *(f"  {p}" for p in problems),
                         "Update them with: .venv/bin/python infra/bin/locks.py compile "
                         "(see docs/architecture.md, Tooling)"]), file=sys.stderr)
        return 1
    print(f"Python locks up to date ({len(locks[RUNTIME_LOCK])} runtime, {len(locks[DEV_LOCK])} dev packages)")
    return 0


# ------------------------------------------------------------------------------------------ prune

def prune(root: Path, python: str) -> None:
    """Uninstall from the environment of `python` every distribution the dev lock does not pin
    (our editable packages excepted): what is installed is exactly what the lock says."""
    _, pins, _ = read_pins(root, DEV_LOCK)
    listed = subprocess.run([python, "-m", "pip", "list", "--format=json", "--exclude-editable"],
                            check=True, capture_output=True, text=True).stdout
    keep = pins.keys() | OWN
    extra = sorted(p["name"] for p in json.loads(listed) if canonical(p["name"]) not in keep)
    if extra:
        print(f"locks.py: uninstalling what the lock no longer lists: {' '.join(extra)}", file=sys.stderr)
        subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", *extra], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this script's)")
    commands = parser.add_subparsers(dest="command", required=True)
    compile_parser = commands.add_parser("compile", help="rewrite both locks from their inputs (needs the registry)")
    compile_parser.add_argument("--upgrade", action="store_true", help="newest versions of everything")
    compile_parser.add_argument("--upgrade-package", action="append", default=[], metavar="NAME",
                                help="newest version of NAME only (repeatable)")
    commands.add_parser("check", help="exit 1 if a lock does not match its inputs (offline)")
    prune_parser = commands.add_parser("prune", help="uninstall what the dev lock does not list")
    prune_parser.add_argument("--python", help="the environment's python (default: the repository's .venv)")
    args = parser.parse_args()
    if args.command == "compile":
        upgrade = ["--upgrade"] if args.upgrade else []
        upgrade += [arg for name in args.upgrade_package for arg in ("--upgrade-package", name)]
        return compile_locks(args.root, upgrade)
    if args.command == "prune":
        prune(args.root, args.python or str(args.root / ".venv/bin/python"))
        return 0
    return check_locks(args.root)


if __name__ == "__main__":
    sys.exit(main())
