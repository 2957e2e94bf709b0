"""Fixtures for the deployment files' tests: the validators, built or installed once per run."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# Under CI=true a skipped test fails (infra/testing/no_skips_under_ci.py; on the path: pytest.ini).
pytest_plugins = ["no_skips_under_ci"]

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "infra" / "tools"


def go_binary() -> str:
    """The Go that bootstrap chose: a toolchain it fetched into var/go, else the machine's."""
    fetched = sorted((REPO / "var" / "go").glob("go*/bin/go"))
    if fetched:
        return str(fetched[-1])
    found = shutil.which("go")
    if found is None:
        pytest.fail("Go is needed to build infra/tools/composecheck (make bootstrap provides it)")
    return found


@pytest.fixture(scope="session")
def composecheck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """infra/tools/composecheck: compose-spec's own loader (what `docker compose config` runs)."""
    out = tmp_path_factory.mktemp("tools") / "composecheck"
    subprocess.run([go_binary(), "build", "-trimpath", "-o", str(out), "."], cwd=TOOLS / "composecheck",
                   check=True, timeout=600, env={**os.environ, "CGO_ENABLED": "0"})
    return out


@pytest.fixture(scope="session")
def kustomize(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """kustomize, the version pinned by infra/tools/kustomize/go.mod (a Go `tool` dependency)."""
    out = tmp_path_factory.mktemp("tools") / "kustomize"
    subprocess.run([go_binary(), "build", "-trimpath", "-o", str(out), "sigs.k8s.io/kustomize/kustomize/v5"],
                   cwd=TOOLS / "kustomize", check=True, timeout=900, env={**os.environ, "CGO_ENABLED": "0"})
    return out
