"""One whole stack for the fault tests (faultstack.py), started once: each test breaks it,
lets it heal, and leaves it whole for the next."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from faultstack import REPO, FaultStack


@pytest.fixture(scope="session")
def stack() -> Iterator[FaultStack]:
    # Not pytest's tmp_path: a pytest session starting beside this one resets its parent to
    # mode 0700, and PostgreSQL runs as its own user, which must reach its data directory.
    parent = Path(os.environ.get("LATENCYLAB_FAULTS_DIR") or REPO / "var")
    parent.mkdir(parents=True, exist_ok=True)
    faulty = FaultStack(Path(tempfile.mkdtemp(prefix="faults-", dir=parent)))
    try:
        faulty.up()
        yield faulty
    finally:
        faulty.down()
        # The logs stay to be read after a failure (`make test` removes its whole run
        # directory); the database files go.
        for heavy in ("pg", "redis", "journal"):
            shutil.rmtree(faulty.base / heavy, ignore_errors=True)


@pytest.fixture(autouse=True)
def whole_again(stack: FaultStack) -> Iterator[None]:
    """After each test, the stack whole again even if the test stopped half-way."""
    yield
    stack.heal()
