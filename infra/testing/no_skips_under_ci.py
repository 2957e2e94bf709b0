"""A pytest plugin for every Python suite (backend, device-runner, infra/tests): under CI
(CI=true) a skipped test fails.

A skip reads as a pass in `make test`'s totals: an end-to-end test skipped because a part it
needs is missing (the device-runner package, nginx, adb, the harness jar, root) would let a
broken build through unseen. Outside CI a skip stays a skip, so a developer's machine without
those parts can still run the rest. Skips raised while collecting (a module-level
`pytest.importorskip`) fail too, and so do expected failures (xfail): under CI every test
runs and passes.

The only skips allowed under CI are those that say something about the machine rather
than about a missing part: ALLOWED_UNDER_CI, by exact reason, each with why. The suites load
this plugin from their root conftest (`pytest_plugins`); the directory is on their
`pythonpath` (backend/pyproject.toml, device-runner/pytest.ini, infra/tests/pytest.ini)."""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

# The value CI=… takes when it means "not CI" (as the CLI reads it: latencylab_cli/progress.py).
_NOT_CI = {"", "0", "false", "no"}

ALLOWED_UNDER_CI = {
    # test_netlab_link.py and test_netlab_wifi.py check how the link emulator refuses netem on
    # a kernel without sch_netem; on a kernel that has it, that refusal cannot happen, and the
    # netem tests run instead. Which of the two a machine runs is its kernel's choice.
    "this kernel has sch_netem",
}


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in _NOT_CI


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """Why a skipped report was skipped: the skip's message, or the expected failure's reason."""
    if hasattr(report, "wasxfail"):
        return f"expected to fail (xfail): {report.wasxfail}"
    if isinstance(report.longrepr, tuple):  # (path, line, "Skipped: <reason>")
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def fail_skip_under_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not report.skipped or not under_ci():
        return
    reason = skip_reason(report)
    if reason in ALLOWED_UNDER_CI:
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI: {reason}\nUnder CI=true every test must run: install what it "
        "needs (infra/bin/bootstrap.sh), or, if the skip depends only on the machine, add its exact reason to "
        "ALLOWED_UNDER_CI in infra/testing/no_skips_under_ci.py, saying why."
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    fail_skip_under_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
        collector: pytest.Collector) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    fail_skip_under_ci(report)
    return report
