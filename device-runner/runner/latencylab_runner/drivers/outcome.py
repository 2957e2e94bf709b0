"""How a block on a phone ended, from evidence rather than exit codes.

`am instrument` exits 0 when the test failed, fastlane exits 1 when a harmless post-step
failed, and a phone can vanish with the lane still printing: so the end is judged from
the instrumentation status lines (AndroidJUnitRunner's InstrumentationResultPrinter),
xcodebuild's test lines, whether the tool still lists the device, and the result
document itself — in that order — into the contract's error kinds."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from latencylab_contract import error_kinds
from latencylab_contract.validation import ContractError, validate

from ..workloads.job import result_problems

# error_kind → the run status the runner reports, from the contract's one table of kinds
# and who each blames (error-kinds.json; the service reads the same).
ERROR_KINDS = {kind: row["status"] for kind, row in error_kinds().items() if row["runner_reports"]}


class BlockFailure(Exception):
    """A block that stores nothing, and why."""

    def __init__(self, error_kind: str, message: str):
        if error_kind not in ERROR_KINDS:
            raise ValueError(f"error_kind must be one of {', '.join(ERROR_KINDS)}, got {error_kind!r}")
        super().__init__(message)
        self.error_kind = error_kind
        self.message = message[:4000]

    @property
    def status(self) -> str:
        return ERROR_KINDS[self.error_kind]


@dataclass
class Instrumentation:
    """What `am instrument -r` printed (ddmlib's InstrumentationResultParser rules: a line
    without a known prefix continues the previous value)."""

    started: int = 0  # tests started (status code 1)
    passed: int = 0  # status code 0
    failed: list[str] = field(default_factory=list)  # the first line of each failure's stack
    finished: bool = False  # INSTRUMENTATION_CODE seen
    command_error: str | None = None  # `onError: commandError=true message=…`
    aborted: str | None = None  # INSTRUMENTATION_ABORTED / INSTRUMENTATION_FAILED text
    summary_ok: int | None = None  # `OK (n tests)`
    summary_failures: bool = False  # `FAILURES!!!`

    @property
    def seen(self) -> bool:
        return bool(self.started or self.finished or self.command_error or self.aborted)


_LOG_PREFIX = re.compile(r"^(?:\[\d\d:\d\d:\d\d\]: )?(?:▸ )?")


def _strip(line: str) -> str:
    """A fastlane log line without its `[HH:MM:SS]: ▸ ` decoration."""
    return _LOG_PREFIX.sub("", line, count=1)


def parse_instrumentation(text: str) -> Instrumentation:
    result = Instrumentation()
    bundle: dict[str, str] = {}
    key: str | None = None
    for raw in text.splitlines():
        line = _strip(raw)
        if line.startswith("INSTRUMENTATION_STATUS: "):
            key, _, value = line[len("INSTRUMENTATION_STATUS: "):].partition("=")
            bundle[key] = value
        elif line.startswith("INSTRUMENTATION_STATUS_CODE: "):
            code = int(line.split(":", 1)[1].strip() or 0)
            if code == 1:
                result.started += 1
            elif code == 0:
                result.passed += 1
            elif code in (-1, -2):  # error, failure (-3 ignored, -4 assumption failure: not a failure)
                stack = bundle.get("stack") or bundle.get("stream") or f"status code {code}"
                result.failed.append(stack.strip().splitlines()[0] if stack.strip() else f"status code {code}")
            bundle, key = {}, None
        elif line.startswith("INSTRUMENTATION_RESULT: "):
            key, _, value = line[len("INSTRUMENTATION_RESULT: "):].partition("=")
            bundle = {key: value}
        elif line.startswith("INSTRUMENTATION_CODE: "):
            result.finished = True
            key = None
        elif line.startswith("INSTRUMENTATION_ABORTED: ") or line.startswith("INSTRUMENTATION_FAILED: "):
            result.aborted = line
        elif line.startswith("onError: commandError=true"):
            result.command_error = line.partition("message=")[2] or line
        else:
            if key is not None:
                bundle[key] = bundle.get(key, "") + "\n" + line
            match = re.match(r"^OK \((\d+) tests?\)$", line.strip())
            if match:
                result.summary_ok = int(match.group(1))
            elif line.strip() == "FAILURES!!!":
                result.summary_failures = True
    return result


@dataclass
class XcTest:
    started: int = 0
    passed: int = 0
    failed: list[str] = field(default_factory=list)  # the assertion lines
    succeeded: bool = False  # ** TEST [EXECUTE ]SUCCEEDED **
    test_failed: bool = False  # ** TEST [EXECUTE ]FAILED **
    build_failed: bool = False  # ** BUILD FAILED ** / signing and provisioning errors
    no_destination: bool = False  # the UDID is not an available destination
    lost_connection: bool = False


_BUILD_ERRORS = ("** BUILD FAILED **", "Code Signing Error", "requires a provisioning profile",
                 "No profiles for", "Signing for", "** TEST BUILD FAILED **")


def parse_xctest(text: str) -> XcTest:
    """xcodebuild's raw test output (scan with `xcodebuild_formatter: ""`)."""
    result = XcTest()
    for raw in text.splitlines():
        line = _strip(raw).strip()
        if re.match(r"^Test Case '.*' started\.$", line):
            result.started += 1
        elif re.match(r"^Test Case '.*' passed \(", line):
            result.passed += 1
        elif re.match(r"^Test Case '.*' failed \(", line):
            if not result.failed:
                result.failed.append(line)
        elif ": error: -[" in line or (": error: " in line and "XCT" in line):
            result.failed.insert(0, line)
        elif line in ("** TEST SUCCEEDED **", "** TEST EXECUTE SUCCEEDED **"):
            result.succeeded = True
        elif line in ("** TEST FAILED **", "** TEST EXECUTE FAILED **"):
            result.test_failed = True
        elif "Unable to find a destination matching the provided destination specifier" in line:
            result.no_destination = True
        elif "Lost connection to the test runner" in line or "Test runner exited before starting" in line:
            result.lost_connection = True
        if any(marker in line for marker in _BUILD_ERRORS):
            result.build_failed = True
    return result


_GRADLE_BUILD_ERRORS = ("FAILURE: Build failed with an exception", "Couldn't find gradlew", "INSTALL_FAILED",
                        "Installation failed", "Compilation error", "Could not find lane")


# The app under instrumentation crashed: `am instrument -r` ends with this result bundle,
# Gradle's connectedAndroidTest reports it as the run's failure.
_HARNESS_CRASHED = ("INSTRUMENTATION_RESULT: shortMsg=Process crashed", "failed due to 'Process crashed.'")


def android_end(text: str) -> BlockFailure | None:
    """A failure the lane's log proves, or None (then the result document decides)."""
    inst = parse_instrumentation(text)
    if inst.command_error:
        return BlockFailure("build_failure", f"the harness test app is not installed: {inst.command_error}")
    if not inst.started and any(marker in text for marker in _GRADLE_BUILD_ERRORS):
        line = next(_strip(line) for line in text.splitlines() if any(m in line for m in _GRADLE_BUILD_ERRORS))
        return BlockFailure("build_failure", f"the harness did not build or install: {line.strip()}")
    if inst.failed or inst.summary_failures:
        detail = inst.failed[0] if inst.failed else "FAILURES!!!"
        return BlockFailure("test_failure", f"the harness test failed on the device: {detail}")
    # Who is blamed (error-kinds.json): the phone only for what is the phone's own (its
    # system server died); a harness that crashed or died ran and failed (test_failure),
    # which is neither the phone's nor the lab's fault to count.
    if inst.aborted and "System has crashed" in inst.aborted:
        return BlockFailure("device_lost", f"the phone's system crashed mid-block: {inst.aborted}")
    if inst.aborted:
        return BlockFailure("test_failure", f"the instrumentation was aborted: {inst.aborted}")
    if any(marker in text for marker in _HARNESS_CRASHED):
        return BlockFailure("test_failure", "the harness process crashed on the device (Process crashed.)")
    if inst.started and not inst.finished:
        return BlockFailure("test_failure", "the instrumentation ended without its result (INSTRUMENTATION_CODE "
                                            "missing): the harness process died mid-block")
    return None


def ios_end(text: str) -> BlockFailure | None:
    xc = parse_xctest(text)
    if xc.no_destination:
        return BlockFailure("device_lost", "xcodebuild cannot find the phone as a destination")
    if xc.build_failed and not xc.started:
        line = next((_strip(line).strip() for line in text.splitlines() if any(m in line for m in _BUILD_ERRORS)),
                    "** BUILD FAILED **")
        return BlockFailure("build_failure", f"the harness did not build, sign or install: {line}")
    if xc.failed:
        return BlockFailure("test_failure", f"the harness test failed on the device: {xc.failed[0]}")
    if xc.lost_connection:  # the phone is still listed (judge checked): the harness died on it
        return BlockFailure("test_failure", "xcodebuild lost the test runner mid-block: the harness died on the phone")
    return None


def parse_result(raw: bytes | None, job: dict[str, Any], *, lane_exit: int | None) -> dict[str, Any]:
    """The harness's result document, checked against the contract and the job; raises
    BlockFailure(malformed_result or test_failure)."""
    if raw is None:
        raise BlockFailure("malformed_result", f"no result document after the lane (exit {lane_exit})")
    try:
        result = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BlockFailure("malformed_result", f"the result document is not JSON ({len(raw)} bytes): {exc}") from exc
    try:
        validate(result, "result")
    except ContractError as exc:
        raise BlockFailure("malformed_result", f"the result document violates the contract: {exc}") from exc
    problems = result_problems(job, result)
    if problems:
        raise BlockFailure("malformed_result", "the result does not answer the job: " + "; ".join(problems))
    if result["status"] != "ok":
        raise BlockFailure("test_failure", f"the harness reported the block failed: {result.get('error')}")
    return result
