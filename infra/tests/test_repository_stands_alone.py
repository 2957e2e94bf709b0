"""The repository stands on its own: no tracked file points at a document that is not in it.
Whatever code or a doc relies on is written down in docs/ (or the contract's README), and a
comment points there. The patterns are built from pieces so that this file does not match
them itself."""

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Pointers at a document kept outside the repository, and at a directory beside it.
OUTSIDE_POINTERS = ("DES" "IGN §", "DES" "IGN.md", ".." "/shared")


def tracked_files() -> list[str]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60)
    return [name for name in listing.stdout.decode().split("\0") if name]


def pointers_outside(text: str) -> list[tuple[int, str]]:
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1)
            if any(pattern in line for pattern in OUTSIDE_POINTERS)]


def test_the_patterns_find_what_they_are_for():
    assert pointers_outside("see the " "DES" "IGN" " §5.3\nfine\nread " ".." "/shared/notes") == [
        (1, "see the " "DES" "IGN" " §5.3"), (3, "read " ".." "/shared/notes")]


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_files()
    assert {"README.md", "docs/architecture.md"} <= set(files)  # the listing is the repository's
    found = []
    for name in files:
        path = REPO / name
        if not path.is_file():  # a tracked file deleted in the working tree
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{name}:{number}: {line}" for number, line in pointers_outside(text)]
    assert found == [], ("these lines point at documents outside the repository; put what they rely on in "
                         "docs/ and point there:\n" + "\n".join(found))
