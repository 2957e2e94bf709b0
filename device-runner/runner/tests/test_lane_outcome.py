"""The lane runner and the end classification: a bounded log tail, a time limit that
kills the lane's whole process group, `am instrument -w -r`'s raw output and xcodebuild's
test lines parsed as the real tools print them, and artifacts bounded to the backend's
limits. Every form of `am instrument`'s output is a golden transcript
(phone_simulator/transcripts/, sources in its README.md) with a tested outcome."""

import sys
import threading
from pathlib import Path

import pytest

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.drivers.artifacts import MAX_PER_RUN, RunArtifacts
from latencylab_runner.drivers.fastlane import ARTIFACT_LIMIT, BoundedTail, run_lane
from latencylab_runner.drivers.outcome import android_end, ios_end, lane_failure, parse_instrumentation, parse_xctest
from latencylab_runner.phone_simulator.golden import TRANSCRIPTS, source, transcript

STACK = ("java.lang.AssertionError: p50 missing\n\tat dev.latencylab.harness.android.BenchRun.run(BenchRun.kt:42)")

# transcript → (error kind, words the runner's message must carry); None: the result document decides.
OUTCOMES = {
    "am-instrument-pass.txt": None,
    "am-instrument-failure.txt": ("test_failure", "java.lang.AssertionError: p50 missing"),
    "am-instrument-error.txt": ("test_failure", "NullPointerException: job document has no arms"),
    "am-instrument-ignored.txt": ("test_failure", "did not run (ignored"),
    "am-instrument-assumption-failure.txt": ("test_failure",
                                             "assumption failure: org.junit.AssumptionViolatedException"),
    "am-instrument-process-crashed.txt": ("test_failure", "crashed on the device: Process crashed."),
    "am-instrument-crashed-before-the-test.txt": ("test_failure", "Process crashed."),
    "am-instrument-crashed-with-exception.txt": ("test_failure", "java.lang.OutOfMemoryError "
                                                                 "(java.lang.OutOfMemoryError: Failed to allocate"),
    "am-instrument-unable-to-instantiate.txt": ("test_failure", "Unable to instantiate instrumentation"),
    "am-instrument-not-installed.txt": ("build_failure", "Unable to find instrumentation info for: ComponentInfo{"
                                                         "dev.latencylab.harness.test/"),
    "am-instrument-failed-legacy.txt": ("build_failure", "Unable to find instrumentation target package"),
    "am-instrument-system-crashed.txt": ("device_lost", "INSTRUMENTATION_ABORTED: System has crashed."),
    "am-instrument-cut-short.txt": ("runner_fault", "INSTRUMENTATION_CODE missing"),
    "am-instrument-bad-component.txt": ("runner_fault", "Bad component name: dev.latencylab.harness.test"),
    "am-instrument-no-tests.txt": ("test_failure", "ran no test"),
}
KINDS = {"test_failure": "failed", "build_failure": "infra_error", "device_lost": "infra_error",
         "runner_fault": "infra_error", "device_not_ready": "infra_error"}
# Each xcodebuild transcript → (error kind, words the runner's message must carry); None: the result decides.
XCODEBUILD_OUTCOMES = {
    "xcodebuild-test-pass.txt": None,
    "xcodebuild-test-failure.txt": ("test_failure", "XCTAssertEqual failed"),
    "xcodebuild-local-network-denied.txt": ("device_not_ready", "Local Network → LatencyLabHarness on"),
    "xcodebuild-exchange-unreachable.txt": ("device_not_ready", "is it on the lab Wi-Fi"),
    "xcodebuild-device-locked.txt": ("device_not_ready", "the phone is locked"),
    "xcodebuild-developer-mode-disabled.txt": ("device_not_ready", "Developer Mode is off"),
    "xcodebuild-no-destination.txt": ("device_lost", "cannot find the phone as a destination"),
    "xcodebuild-signing-no-team.txt": ("build_failure", 'Signing for "LatencyLabHarness" requires a development team'),
    "xcodebuild-no-profiles.txt": ("build_failure", "No profiles for 'org.examplelab.latencylab.LatencyLabHarness'"),
    "xcodebuild-lost-connection.txt": ("test_failure", "Lost connection to test manager service."),
    "xcodebuild-early-exit.txt": ("test_failure", "Early unexpected exit"),
}
XCODEBUILD_VALUES = {"test": "testRunJob", "udid": "00008130-001A2C3E0E38001C", "device_name": "Lab iPhone 15 Pro",
                     "bundle_id": "org.examplelab.latencylab.LatencyLabHarness", "exchange": "192.168.10.1:8470",
                     "failure": 'XCTAssertEqual failed: ("404") is not equal to ("200") - GET … answered 404',
                     "date": "2026-11-29 12:00:00.000 +0000", "seconds": "1.234", "derived_data": "/tmp/dd"}


def as_fastlane(text):
    return "".join(f"[12:00:01]: ▸ {line}\n" for line in text.splitlines())


def test_every_am_instrument_transcript_has_an_outcome_and_a_source():
    names = {path.name for path in TRANSCRIPTS.glob("am-instrument-*.txt")}
    assert names == set(OUTCOMES)
    assert {path.name for path in TRANSCRIPTS.glob("xcodebuild-*.txt")} == set(XCODEBUILD_OUTCOMES)
    sources = (TRANSCRIPTS / "README.md").read_text()
    for name in {path.name for path in TRANSCRIPTS.glob("*.txt")}:
        assert f"`{name}`" in sources, f"{name} has no source in transcripts/README.md"


@pytest.mark.parametrize("name", sorted(OUTCOMES))
@pytest.mark.parametrize("framing", ["raw", "crlf", "fastlane"])
def test_am_instrument_outcome(name, framing):
    text = transcript(name, stack=STACK, out="/sdcard/Android/media/dev.latencylab.harness/latencylab/r.json",
                      samples=12)
    text = {"raw": text, "crlf": text.replace("\n", "\r\n"), "fastlane": as_fastlane(text)}[framing]
    failure = android_end(text)
    expected = OUTCOMES[name]
    if expected is None:
        assert failure is None, failure and failure.message
        return
    kind, says = expected
    assert failure is not None
    assert (failure.error_kind, failure.status) == (kind, KINDS[kind]), failure.message
    assert says in failure.message, failure.message


def test_every_xcodebuild_transcript_names_its_source_and_replays_without_it():
    for name in XCODEBUILD_OUTCOMES:
        assert len(source(name)) > 80, f"{name} names no source in its #: lines"
        text = transcript(name, **XCODEBUILD_VALUES)
        assert "#: " not in text, name
        assert "${" not in text, name


@pytest.mark.parametrize("name", sorted(XCODEBUILD_OUTCOMES))
@pytest.mark.parametrize("framing", ["raw", "fastlane"])
def test_xcodebuild_outcome(name, framing):
    text = transcript(name, **XCODEBUILD_VALUES)
    failure = ios_end(as_fastlane(text) if framing == "fastlane" else text)
    expected = XCODEBUILD_OUTCOMES[name]
    if expected is None:
        assert failure is None, failure and failure.message
        return
    kind, says = expected
    assert failure is not None, name
    assert (failure.error_kind, failure.status) == (kind, KINDS[kind]), failure.message
    assert says in failure.message, failure.message


def test_a_job_fetch_blocked_by_local_network_is_retried_not_a_failed_run():
    """The harness could not even fetch its job: the phone's permission, not a measurement."""
    failure = ios_end(transcript("xcodebuild-local-network-denied.txt", **XCODEBUILD_VALUES))
    assert (failure.error_kind, failure.status) == ("device_not_ready", "infra_error")
    assert "the iPhone is not ready" in failure.message


def test_the_preflight_lanes_own_verdict_is_the_reason():
    log = ("[12:00:01]: fastlane finished with errors\n\n[!] LatencyLab preflight: not ready: 312 MB free on the "
           "phone, under 1024 MB: delete apps or media on it\n")
    failure = ios_end(log)
    assert failure.error_kind == "device_not_ready"
    assert failure.message == ("the iPhone is not ready: 312 MB free on the phone, under 1024 MB: delete apps or "
                               "media on it")


def test_the_pass_counts_its_test_and_ignores_the_harness_progress_bundle():
    parsed = parse_instrumentation(transcript("am-instrument-pass.txt", out="/x/r.json", samples=12))
    assert (parsed.started, parsed.passed, parsed.failed, parsed.finished, parsed.code, parsed.summary_ok) == (
        1, 1, [], True, -1, 1)


def test_a_status_code_glued_to_a_stack_line_still_parses():
    # ddmlib's testParse_invalidCode: stderr's stack interleaved with the status lines.
    parsed = parse_instrumentation(
        "android.util.AndroidException: INSTRUMENTATION_FAILED: foo/foo\n"
        "INSTRUMENTATION_STATUS: id=ActivityManagerService\n"
        "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation target package: foo\n"
        "INSTRUMENTATION_STATUS_CODE: -1at com.android.commands.am.Am.runInstrument(Am.java:532)\n")
    assert parsed.start_error == "Unable to find instrumentation target package: foo"


def test_a_failure_keeps_the_first_line_of_its_stack():
    text = transcript("am-instrument-failure.txt", stack=STACK)
    parsed = parse_instrumentation(text)
    assert parsed.failed == ["java.lang.AssertionError: p50 missing"]
    assert parsed.summary_failures


def test_lane_failure_names_gradles_answer_adbs_failure_or_fastlanes_message():
    assert lane_failure(as_fastlane(transcript("gradle-compile-failure.txt"))) == (
        "Execution failed for task ':app:compileDebugKotlin'.")
    assert lane_failure("[12:00:01]: ▸ Performing Streamed Install\n[12:00:01]: ▸ adb: failed to install /a/app.apk: "
                        "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n") == (
        "adb: failed to install /a/app.apk: Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]")
    assert lane_failure("[12:00:01]: fastlane finished with errors\n\n[!] dev.latencylab.harness is not installed on "
                        "R5CT1234\n") == "dev.latencylab.harness is not installed on R5CT1234"


def test_xcodebuild_lines():
    passed = ("Test Suite 'All tests' started at 2026-01-01 10:00:00.000.\n"
              "Test Case '-[BenchTests.BenchTests testRunJob]' started.\n"
              "Test Case '-[BenchTests.BenchTests testRunJob]' passed (12.345 seconds).\n"
              "** TEST EXECUTE SUCCEEDED **\n")
    xc = parse_xctest(as_fastlane(passed))
    assert (xc.started, xc.passed, xc.succeeded, xc.failed) == (1, 1, True, [])
    assert ios_end(as_fastlane(passed)) is None
    failed = passed.replace("passed (12.345 seconds).", "failed (1.000 seconds).").replace(
        "** TEST EXECUTE SUCCEEDED **", "/x/BenchTests.swift:41: error: -[BenchTests.BenchTests testRunJob] : "
                                        "XCTAssertTrue failed\n** TEST EXECUTE FAILED **")
    failure = ios_end(as_fastlane(failed))
    assert failure.error_kind == "test_failure"
    assert "XCTAssertTrue failed" in failure.message
    assert ios_end("xcodebuild: error: Unable to find a destination matching the provided destination "
                   "specifier:\n").error_kind == "device_lost"
    assert ios_end("error: Signing for \"LatencyLabBench\" requires a development team.\n** BUILD FAILED **\n"
                   ).error_kind == "build_failure"


def test_bounded_tail_keeps_the_end():
    tail = BoundedTail(limit=100)
    for i in range(50):
        tail.append(f"line {i:03d}\n".encode())
    value = tail.value()
    assert len(value) <= 100
    assert value.endswith(b"line 049\n")
    assert value.startswith(b"[")
    assert tail.dropped == 50 * 9 - 100


def test_lane_time_limit_kills_the_process_group(tmp_path):
    script = tmp_path / "lane.py"
    pid_file = tmp_path / "child.pid"
    script.write_text("import subprocess, sys\nprint('starting', flush=True)\n"
                      "child = subprocess.Popen(['sleep', '3600'])\n"
                      f"open({str(pid_file)!r}, 'w').write(str(child.pid))\nchild.wait()\n")
    lane = run_lane([sys.executable, str(script)], cwd=tmp_path, env={}, timeout_s=2, label="t")
    assert lane.timed_out
    assert lane.returncode is None
    assert b"starting" in lane.log
    assert b"killed after" in lane.log
    child = int(pid_file.read_text())
    assert not Path(f"/proc/{child}").exists() or Path(f"/proc/{child}/stat").read_text().split(") ")[1][0] == "Z"


def test_lane_cancelled_by_the_server(tmp_path):
    cancelled = threading.Event()
    cancelled.set()
    lane = run_lane([sys.executable, "-c", "import signal; signal.pause()"], cwd=tmp_path, env={}, timeout_s=600,
                    label="t", cancelled=cancelled)
    assert lane.cancelled
    assert not lane.timed_out


def test_lane_that_cannot_start(tmp_path):
    lane = run_lane(["no-such-fastlane"], cwd=tmp_path, env={}, timeout_s=5, label="t")
    assert lane.start_error
    assert "no-such-fastlane" in lane.start_error


def test_artifacts_are_bounded_and_budgeted(backend):
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    artifacts = RunArtifacts(client, run_id="run-1", lease_token="lt", attempt=2)
    big_log = b"x" * (3 * 1024 * 1024) + b"the end\n"
    artifacts.block_evidence(0, lane_log=big_log, raw_result=b"{" * (ARTIFACT_LIMIT + 1), failed=True)
    stored = {a["name"]: a for a in backend.artifacts["run-1"]}
    assert set(stored) == {"a2-block-0-fastlane.log", "a2-block-0-result.json.truncated"}
    log = stored["a2-block-0-fastlane.log"]["data"]
    assert len(log) <= ARTIFACT_LIMIT
    assert log.endswith(b"the end\n")
    assert stored["a2-block-0-fastlane.log"]["content_type"] == "text/plain"
    # Successful blocks leave the last two slots for a failing block's evidence.
    for block in range(1, 40):
        artifacts.block_evidence(block, lane_log=b"ok\n", raw_result=b"{}", failed=False)
    assert len(backend.artifacts["run-1"]) == MAX_PER_RUN - 2
    artifacts.block_evidence(99, lane_log=b"boom\n", raw_result=b"{}", failed=True)
    assert len(backend.artifacts["run-1"]) == MAX_PER_RUN
    assert backend.violations == []
    client.close()
