"""How a block on a phone ended, from evidence rather than exit codes.

`am instrument` exits 0 when the test failed or the harness crashed, and a phone can vanish
with the lane still printing: so the end is judged from `am instrument -w -r`'s raw
output (the bench lane writes it to a file beside the result: Instrument.java's raw
TextStatusReporter, AndroidJUnitRunner's InstrumentationResultPrinter, ActivityManager's
crash reports), xcodebuild's test lines, whether the tool still lists the device, and the
result document itself — in that order — into the contract's error kinds."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from latencylab_contract import error_kinds
from latencylab_contract.validation import ContractError, validate

from ..workloads.job import result_problems
from .readiness import readiness_refusal

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
    """What `am instrument -w -r` printed, read as ddmlib's InstrumentationResultParser reads
    it: a line without a known prefix continues the previous key's value; a status bundle
    ends at its INSTRUMENTATION_STATUS_CODE, the run at INSTRUMENTATION_CODE."""

    started: int = 0  # tests started (status code 1)
    passed: int = 0  # status code 0
    failed: list[str] = field(default_factory=list)  # -2 (failure) and -1 (error): each stack's first line
    skipped: list[str] = field(default_factory=list)  # -3 (ignored) and -4 (assumption failure)
    finished: bool = False  # INSTRUMENTATION_CODE seen
    code: int | None = None  # its value: -1 RESULT_OK, 0 RESULT_CANCELED (the process died)
    result: dict[str, str] = field(default_factory=dict)  # the INSTRUMENTATION_RESULT bundle
    start_error: str | None = None  # ActivityManagerService's `Error=` bundle: the instrumentation never started
    command_error: str | None = None  # `onError: commandError=true message=…` (am refused or failed the command)
    aborted: str | None = None  # `onError: commandError=false message=…` / INSTRUMENTATION_ABORTED
    instrumentation_failed: str | None = None  # a bare `INSTRUMENTATION_FAILED: <component>` line
    summary_ok: int | None = None  # `OK (n tests)`
    summary_failures: bool = False  # `FAILURES!!!`

    @property
    def seen(self) -> bool:
        return bool(self.started or self.finished or self.command_error or self.aborted or self.start_error
                    or self.instrumentation_failed)

    @property
    def crash(self) -> str | None:
        """AMS's report of the instrumented process dying (`shortMsg`, and `longMsg` for an exception)."""
        short = self.result.get("shortMsg")
        if short is None:
            return None
        long = self.result.get("longMsg")
        return f"{short.strip()} ({long.strip()})" if long and long.strip() != short.strip() else short.strip()


_LOG_PREFIX = re.compile(r"^(?:\[\d\d:\d\d:\d\d\]: )?(?:▸ )?")
_STATUS, _STATUS_CODE = "INSTRUMENTATION_STATUS: ", "INSTRUMENTATION_STATUS_CODE: "
_RESULT, _CODE = "INSTRUMENTATION_RESULT: ", "INSTRUMENTATION_CODE: "


def _strip(line: str) -> str:
    """A fastlane log line without its `[HH:MM:SS]: ▸ ` decoration."""
    return _LOG_PREFIX.sub("", line, count=1)


def _code(value: str) -> int | None:
    """A status code; ddmlib's data has one glued to a stack line (`-1at com.android…`)."""
    match = re.match(r"\s*(-?\d+)", value)
    return int(match.group(1)) if match else None


def _first_line(text: str | None, fallback: str) -> str:
    lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
    return lines[0] if lines else fallback


def parse_instrumentation(text: str) -> Instrumentation:
    result = Instrumentation()
    bundle: dict[str, str] = {}
    target: dict[str, str] | None = None  # the bundle the current key belongs to
    key: str | None = None
    for raw in text.splitlines():
        line = _strip(raw).rstrip("\r")
        if line.startswith(_STATUS):
            key, _, value = line[len(_STATUS):].partition("=")
            bundle[key], target = value, bundle
        elif line.startswith(_STATUS_CODE):
            _status(result, _code(line[len(_STATUS_CODE):]), bundle)
            bundle, target, key = {}, None, None
        elif line.startswith(_RESULT):
            key, _, value = line[len(_RESULT):].partition("=")
            result.result[key], target = value, result.result
        elif line.startswith(_CODE):
            result.finished, result.code = True, _code(line[len(_CODE):])
            target, key = None, None
        elif line.startswith("onError: "):
            message = line.partition(" message=")[2] or line
            if "commandError=true" in line:
                result.command_error = message
            else:
                result.aborted = message
            target, key = None, None
        elif line.startswith("INSTRUMENTATION_ABORTED: "):
            result.aborted = result.aborted or line
            target, key = None, None
        elif line.startswith("INSTRUMENTATION_FAILED: "):
            result.instrumentation_failed = line
            target, key = None, None
        else:
            if target is not None and key is not None:
                target[key] = target[key] + "\n" + line
            match = re.match(r"^OK \((\d+) tests?\)$", line.strip())
            if match:
                result.summary_ok = int(match.group(1))
            elif line.strip() == "FAILURES!!!":
                result.summary_failures = True
    return result


def _status(result: Instrumentation, code: int | None, bundle: dict[str, str]) -> None:
    if code == 1:
        result.started += 1
    elif code == 0:
        result.passed += 1
    elif code in (-1, -2) and "test" not in bundle and ("Error" in bundle or
                                                      bundle.get("id") == "ActivityManagerService"):
        # ActivityManagerService.reportStartInstrumentationFailureLocked: no test, the run never began.
        result.start_error = _first_line(bundle.get("Error"), "the instrumentation could not start")
    elif code in (-1, -2):
        result.failed.append(_first_line(bundle.get("stack") or bundle.get("stream"), f"status code {code}"))
    elif code in (-3, -4):
        what = "ignored" if code == -3 else "assumption failure"
        result.skipped.append(f"{what}: {_first_line(bundle.get('stack'), bundle.get('test') or 'the test')}")
    # 2 and other codes are the harness's own progress bundles (latencylab_progress, latencylab_result).


@dataclass
class XcTest:
    started: int = 0
    passed: int = 0
    failed: list[str] = field(default_factory=list)  # the assertion lines
    succeeded: bool = False  # ** TEST [EXECUTE ]SUCCEEDED **
    test_failed: bool = False  # ** TEST [EXECUTE ]FAILED **
    build_failed: bool = False  # ** [TEST ]BUILD FAILED ** / signing and provisioning errors
    no_destination: bool = False  # the UDID is not an available destination
    lost_connection: bool = False  # the test host died on the phone
    testing_failed: str | None = None  # the first reason under xcodebuild's `Testing failed:`


_BUILD_ERRORS = ("** BUILD FAILED **", "Code Signing Error", "requires a provisioning profile",
                 "No profiles for", "requires a development team", "** TEST BUILD FAILED **")
# xcodebuild's words for a test host that died on the phone (transcripts xcodebuild-lost-connection.txt,
# xcodebuild-early-exit.txt): "Lost connection to test manager service." / "…to testmanagerd" /
# "…to the test runner", and IDETestOperationsObserverErrorDomain's early exit.
_LOST_CONNECTION = ("Lost connection to test", "Lost connection to the test runner", "Early unexpected exit",
                    "Test runner exited before starting")
_LOCKED = "the phone is locked: unlock it (lab iPhones: Auto-Lock Never, no passcode; docs/device-lab.md §1)"
# What the iPhone itself lacks, as xcodebuild prints it or the harness reports it through XCTest
# (each form a golden transcript in phone_simulator/transcripts/), first match wins: a
# device_not_ready, so the run is retried and the phone, not the lab, is counted; the reason says
# what a person does on the phone. The harness's own markers come first (BenchTests.swift): a job
# fetch blocked by the Local Network permission is the phone's state, never a failed test.
IOS_NOT_READY = (
    ("LatencyLab: Local Network access denied",
     "iOS denies the harness the lab network (Local Network permission): on the phone, Settings → Privacy & "
     "Security → Local Network → LatencyLabHarness on"),
    ("LatencyLab: the runner's job exchange did not answer",
     "the phone cannot reach the runner's job exchange: is it on the lab Wi-Fi (not cellular, Wi-Fi Assist off), "
     "and is ios.exchange_host:exchange_port open to the lab network?"),
    ("error:Developer Mode disabled",
     "Developer Mode is off: on the phone, Settings → Privacy & Security → Developer Mode on (it restarts)"),
    ("could not be, unlocked", _LOCKED),
    ("The device is locked", _LOCKED),
    ("The device is passcode protected", _LOCKED),
    ("Development cannot be enabled while your device is locked", _LOCKED),
)
# The ios preflight lane's own verdicts (Fastfile: UI.user_error!("LatencyLab preflight: not ready: …")).
PREFLIGHT_NOT_READY = "LatencyLab preflight: not ready: "


def parse_xctest(text: str) -> XcTest:
    """xcodebuild's raw test output (scan with `xcodebuild_formatter: ""`)."""
    result = XcTest()
    lines = [_strip(raw).strip() for raw in text.splitlines()]
    for i, line in enumerate(lines):
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
        elif line == "Testing failed:" and result.testing_failed is None:
            result.testing_failed = next((reason for reason in lines[i + 1:] if reason), "")
        elif "Unable to find a destination matching the provided destination specifier" in line:
            result.no_destination = True
        if any(marker in line for marker in _LOST_CONNECTION):
            result.lost_connection = True
        if any(marker in line for marker in _BUILD_ERRORS):
            result.build_failed = True
    return result


def ios_not_ready(text: str) -> str | None:
    """Why the iPhone is not ready, from the lane's log (the harness's markers, xcodebuild's
    words, the preflight lane's verdict), or None."""
    lines = [_strip(raw).strip() for raw in text.splitlines()]
    for line in lines:
        if PREFLIGHT_NOT_READY in line:
            return line.split(PREFLIGHT_NOT_READY, 1)[1]
    for marker, reason in IOS_NOT_READY:
        evidence = next((line for line in lines if marker in line), None)
        if evidence is not None:
            return f"{reason} (xcodebuild: {evidence[:300]})"
    return None


def android_end(text: str) -> BlockFailure | None:
    """What `am instrument -w -r` proves about the block, or None (then the result document
    decides). Every form of its output maps to one error kind (the table in
    docs/device-lab.md §8; the forms are in phone_simulator/transcripts/)."""
    inst = parse_instrumentation(text)
    if inst.command_error and "INSTRUMENTATION_FAILED" not in inst.command_error and not inst.start_error:
        return BlockFailure("runner_fault", f"am instrument refused the lane's command: {inst.command_error}")
    not_started = inst.start_error or inst.instrumentation_failed or inst.command_error
    if not_started and not inst.started:
        detail = inst.start_error or inst.command_error or inst.instrumentation_failed
        return BlockFailure("build_failure", f"the harness instrumentation is not installed on the phone: {detail}")
    if inst.failed:
        return BlockFailure("test_failure", f"the harness test failed on the device: {inst.failed[0]}")
    if inst.crash is not None:
        return BlockFailure("test_failure", f"the harness process crashed on the device: {inst.crash}")
    if inst.aborted:
        return BlockFailure("device_lost", f"the phone's system server died mid-block: {inst.aborted}")
    if inst.skipped:
        return BlockFailure("test_failure", f"the harness test did not run ({inst.skipped[0]})")
    if inst.summary_failures:
        return BlockFailure("test_failure", "the harness test failed on the device: FAILURES!!!")
    if inst.started and not inst.finished:
        return BlockFailure("runner_fault", "the instrumentation ended without its result (INSTRUMENTATION_CODE "
                                            "missing): the connection to the phone broke mid-block")
    if inst.finished and not inst.started:
        return BlockFailure("test_failure",
                            "the instrumentation ran no test: the test APK has no BenchInstrumentation.runJob")
    if inst.finished and inst.code != -1:
        return BlockFailure("test_failure", f"the instrumentation finished with code {inst.code} (not RESULT_OK)")
    return None


def lane_failure(text: str) -> str:
    """The line that says why a lane failed: Gradle's `* What went wrong:` answer, adb's
    `Failure [INSTALL_FAILED_…]`, else fastlane's `[!]` message."""
    lines = [_strip(line).strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if line == "* What went wrong:" and i + 1 < len(lines):
            return lines[i + 1]
    for line in lines:
        if "Failure [" in line or "INSTALL_FAILED" in line:
            return line
    bang = [line[len("[!] "):] for line in lines if line.startswith("[!] ")]
    return bang[-1] if bang else (next((line for line in reversed(lines) if line), "no output"))


def ios_end(text: str) -> BlockFailure | None:
    """What xcodebuild's output (through the bench, build or preflight lane) proves about the
    block, or None (then the result document decides). Every form is a golden transcript in
    phone_simulator/transcripts/ with a tested kind (docs/device-lab.md §8)."""
    not_ready = ios_not_ready(text)
    if not_ready is not None:
        return BlockFailure("device_not_ready", f"the iPhone is not ready: {not_ready}")
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
        return BlockFailure("test_failure", f"xcodebuild lost the test runner: the harness died on the phone "
                                            f"({xc.testing_failed or 'lost connection'})")
    if xc.test_failed and not xc.started:
        return BlockFailure("runner_fault", f"xcodebuild ran no test: {xc.testing_failed or '** TEST FAILED **'}")
    return None


def parse_result(raw: bytes | None, job: dict[str, Any], *, lane_exit: int | None) -> dict[str, Any]:
    """The harness's result document, checked against the contract and the job; raises
    BlockFailure(malformed_result or test_failure), or what the phone's readiness report
    says (drivers/readiness.py: device_not_ready off the lab network, lab_fault when it is
    on it and still cannot reach the target)."""
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
    refusal = readiness_refusal(job, result)
    if refusal is not None:
        raise BlockFailure(*refusal)
    if result["status"] == "not_ready":  # a refusal without a readiness check in the job: the harness's own reason
        raise BlockFailure("device_not_ready", f"the harness refused the block: {result.get('error')}")
    if result["status"] != "ok":
        raise BlockFailure("test_failure", f"the harness reported the block failed: {result.get('error')}")
    return result
