"""The lock check (`infra/bin/locks.py check`, in the lint suite) passes on the committed locks
and fails, naming the problem, when an input changed after the locks were compiled, a pin was
edited by hand or the two locks disagree. It reads files only: no registry needed."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
LOCKS = REPO / "infra" / "bin" / "locks.py"
INPUTS_AND_LOCKS = ["backend/requirements.in", "backend/requirements-dev.in", "backend/requirements.lock",
                    "backend/requirements-dev.lock", *(f"device-runner/{package}/pyproject.toml"
                                                       for package in ("contract", "tools", "runner", "cli"))]


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(LOCKS), "--root", str(root), "check"], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the lock inputs and the locks, to spoil."""
    for name in INPUTS_AND_LOCKS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    return tmp_path


def test_the_committed_locks_match_their_inputs():
    result = check(REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Python locks up to date")


def test_the_copy_passes_until_an_input_changes(repo):
    assert check(repo).returncode == 0
    with (repo / "backend/requirements.in").open("a") as runtime_in:
        runtime_in.write("requests>=2\n")
    result = check(repo)
    assert result.returncode == 1
    assert "backend/requirements.lock was compiled from other inputs" in result.stderr
    assert "backend/requirements.lock: requests is required ('requests>=2') but not pinned" in result.stderr
    assert "infra/bin/locks.py compile" in result.stderr  # says how to fix it


def test_a_hand_edited_pin_is_caught(repo):
    lock = repo / "backend/requirements.lock"
    locked = re.search(r"^django==(\S+) ", lock.read_text(), re.MULTILINE).group(1)
    lock.write_text(re.sub(r"^django==\S+ ", "django==5.1.0 ", lock.read_text(), flags=re.MULTILINE))
    result = check(repo)
    assert result.returncode == 1
    assert "backend/requirements.lock: Django==5.1.0 does not satisfy 'Django>=5.2,<5.3'" in result.stderr
    assert f"backend/requirements-dev.lock: django=={locked} but backend/requirements.lock pins 5.1.0" in result.stderr


def test_only_the_runner_dependency_lists_count(repo):
    pyproject = repo / "device-runner/runner/pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.example]\nsetting = 1\n")
    assert check(repo).returncode == 0  # a tool setting does not stale the locks
    pyproject.write_text(pyproject.read_text().replace('"httpx>=0.27"', '"httpx>=0.27", "rich>=13"'))
    result = check(repo)
    assert result.returncode == 1
    assert "was compiled from other inputs" in result.stderr
