"""Direction of imports inside latencylab_tools, read from the source with `ast` (every
import statement, also inside functions): the probe and the target do not import each
other (shared wire code lives in latencylab_tools.grpcwire), the shared wire module
imports neither, and nothing imports Django (the tools, like the runner, speak only the HTTP contract)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "latencylab_tools"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module a source file imports (relative ones resolved);
    `from pkg import name` counts as importing both pkg and pkg.name (name may be a module)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _sources(subpackage: str = "") -> list[Path]:
    root = PACKAGE_DIR / subpackage if subpackage else PACKAGE_DIR
    if root.is_dir():
        return sorted(root.rglob("*.py"))
    module = root.with_suffix(".py")
    return [module] if module.exists() else []


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _violations(sources: list[Path], forbidden: str) -> list[str]:
    return [f"{p.relative_to(PACKAGE_DIR.parent)} imports {name}"
            for p in sources for name in sorted(imports_of(p)) if _within(name, forbidden)]


@pytest.mark.parametrize("importer, forbidden", [
    ("probe", "latencylab_tools.target"),
    ("target", "latencylab_tools.probe"),
    ("grpcwire", "latencylab_tools.probe"),
    ("grpcwire", "latencylab_tools.target"),
])
def test_no_import_across(importer, forbidden):
    sources = _sources(importer)
    assert sources, f"no sources found for {importer}"
    assert _violations(sources, forbidden) == []


def test_no_import_cycles_in_probe_target_and_wire():
    """Module-level or not: a cycle would be hidden by a function-level import otherwise."""
    sources = _sources("probe") + _sources("target") + _sources("grpcwire")
    modules = {_module_name(p): p for p in sources}
    graph = {m: {n for n in imports_of(p) if n in modules and n != m} for m, p in modules.items()}
    for package in [m for m, p in modules.items() if p.name == "__init__.py"]:
        for m in graph:  # importing a package's submodule runs the package's __init__ first
            if m != package and _within(m, package):
                graph[m].discard(package)
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            assert state.get(n) != 1, "import cycle: " + " -> ".join([*path, m, n])
            if n not in state:
                visit(n, [*path, m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_nothing_imports_django():
    assert _violations(_sources(), "django") == []


def test_the_reader_sees_the_shared_wire_imports():
    """The rules above would pass vacuously if imports were not resolved: the known
    relative imports of the shared wire module must be found."""
    assert "latencylab_tools.grpcwire" in imports_of(PACKAGE_DIR / "probe" / "grpc.py")
    assert "latencylab_tools.grpcwire" in imports_of(PACKAGE_DIR / "target" / "grpc_service.py")
    assert "latencylab_tools.probe.h2core" in imports_of(PACKAGE_DIR / "probe" / "http2.py")
    assert "latencylab_tools.probe.session" in imports_of(PACKAGE_DIR / "probe" / "__init__.py")
    assert "latencylab_tools.tls" in imports_of(PACKAGE_DIR / "target" / "server.py")


def test_a_backwards_import_is_caught(tmp_path, monkeypatch):
    fake = tmp_path / "latencylab_tools"
    (fake / "probe").mkdir(parents=True)
    (fake / "probe" / "bad.py").write_text("def f():\n    from ..target import grpc_service\n    import django.conf\n")
    monkeypatch.setitem(globals(), "PACKAGE_DIR", fake)
    assert _violations(_sources("probe"), "latencylab_tools.target") == [
        "latencylab_tools/probe/bad.py imports latencylab_tools.target",
        "latencylab_tools/probe/bad.py imports latencylab_tools.target.grpc_service"]
    assert _violations(_sources(), "django") == [
        "latencylab_tools/probe/bad.py imports django.conf"]
