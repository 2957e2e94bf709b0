"""make test runs the timing tests (device-runner, marked `timing`) as two halves side by side,
each naming its files (infra/bin/test-all.sh: `timing_links`, `timing_rest`): every file with a
timing test must be in exactly one half, or it would never run."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEST_ALL = REPO / "infra" / "bin" / "test-all.sh"


def halves() -> dict[str, list[str]]:
    script = TEST_ALL.read_text()
    found = {name: value.split() for name, value in re.findall(r"^(timing_\w+)=\(([^)]*)\)", script, re.MULTILINE)}
    assert set(found) == {"timing_links", "timing_rest"}, found
    return found


def files_with_timing_tests() -> set[str]:
    device_runner = REPO / "device-runner"
    return {path.relative_to(device_runner).as_posix() for path in device_runner.glob("*/tests/**/test_*.py")
            if "pytest.mark.timing" in path.read_text()}


def test_every_timing_test_file_runs_in_exactly_one_half():
    named = [file for files in halves().values() for file in files]
    assert len(named) == len(set(named)), f"named in both halves: {sorted(f for f in named if named.count(f) > 1)}"
    assert set(named) == files_with_timing_tests(), (
        f"not in a half: {sorted(files_with_timing_tests() - set(named))}; "
        f"named without a timing test: {sorted(set(named) - files_with_timing_tests())}")


def test_both_halves_are_run_with_the_timing_marker():
    script = TEST_ALL.read_text()
    for name in halves():
        assert re.search(rf"-m timing \$\{{{name}\[\*\]\}}", script), name
