"""The lane runner and the end classification: a bounded log tail, a time limit that
kills the lane's whole process group, the instrumentation status lines and xcodebuild's
test lines parsed as the real tools print them, and artifacts bounded to the backend's
limits."""

import sys
import threading
from pathlib import Path

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.drivers.artifacts import MAX_PER_RUN, RunArtifacts
from latencylab_runner.drivers.fastlane import ARTIFACT_LIMIT, BoundedTail, run_lane
from latencylab_runner.drivers.outcome import android_end, ios_end, parse_instrumentation, parse_xctest

# Assembled from Instrument.java / InstrumentationResultPrinter / JUnit TextListener
# (device-lab-formats.md §1.6), as fastlane's gradle action relays them (`[time]: ▸ `).
PASS = """INSTRUMENTATION_STATUS: class=dev.latencylab.bench.BenchTest
INSTRUMENTATION_STATUS: current=1
INSTRUMENTATION_STATUS: id=AndroidJUnitRunner
INSTRUMENTATION_STATUS: numtests=1
INSTRUMENTATION_STATUS: stream=
dev.latencylab.bench.BenchTest:
INSTRUMENTATION_STATUS: test=runBench
INSTRUMENTATION_STATUS_CODE: 1
INSTRUMENTATION_STATUS: class=dev.latencylab.bench.BenchTest
INSTRUMENTATION_STATUS: current=1
INSTRUMENTATION_STATUS: id=AndroidJUnitRunner
INSTRUMENTATION_STATUS: numtests=1
INSTRUMENTATION_STATUS: stream=.
INSTRUMENTATION_STATUS: test=runBench
INSTRUMENTATION_STATUS_CODE: 0
INSTRUMENTATION_RESULT: stream=

Time: 1.234

OK (1 test)


INSTRUMENTATION_CODE: -1
"""
FAILURE_TAIL = """INSTRUMENTATION_STATUS: class=dev.latencylab.bench.BenchTest
INSTRUMENTATION_STATUS: current=1
INSTRUMENTATION_STATUS: id=AndroidJUnitRunner
INSTRUMENTATION_STATUS: numtests=1
INSTRUMENTATION_STATUS: stack=java.lang.AssertionError: p50 missing
\tat dev.latencylab.bench.BenchTest.runBench(BenchTest.kt:42)
INSTRUMENTATION_STATUS: stream=
Error in runBench(dev.latencylab.bench.BenchTest):
java.lang.AssertionError: p50 missing
\tat dev.latencylab.bench.BenchTest.runBench(BenchTest.kt:42)
INSTRUMENTATION_STATUS: test=runBench
INSTRUMENTATION_STATUS_CODE: -2
INSTRUMENTATION_RESULT: stream=

Time: 2.5
There was 1 failure:
1) runBench(dev.latencylab.bench.BenchTest)
java.lang.AssertionError: p50 missing
\tat dev.latencylab.bench.BenchTest.runBench(BenchTest.kt:42)

FAILURES!!!
Tests run: 1,  Failures: 1


INSTRUMENTATION_CODE: -1
"""
START = PASS.split("INSTRUMENTATION_STATUS_CODE: 1\n")[0] + "INSTRUMENTATION_STATUS_CODE: 1\n"


def as_fastlane(text):
    return "".join(f"[12:00:01]: ▸ {line}\n" for line in text.splitlines())


def test_instrumentation_pass():
    parsed = parse_instrumentation(as_fastlane(PASS))
    assert (parsed.started, parsed.passed, parsed.failed, parsed.finished, parsed.summary_ok) == (1, 1, [], True, 1)
    assert android_end(as_fastlane(PASS)) is None


def test_instrumentation_failure_despite_exit_code_0():
    text = as_fastlane(START + FAILURE_TAIL)
    parsed = parse_instrumentation(text)
    assert parsed.failed == ["java.lang.AssertionError: p50 missing"]
    assert parsed.summary_failures
    failure = android_end(text)
    assert (failure.error_kind, failure.status) == ("test_failure", "failed")
    assert "p50 missing" in failure.message


def test_instrumentation_cut_short_and_not_installed():
    cut = android_end(as_fastlane(START))
    assert cut.error_kind == "test_failure"  # the harness died: it ran and failed, no one's fault to count
    assert "INSTRUMENTATION_CODE missing" in cut.message
    missing = android_end("onError: commandError=true message=INSTRUMENTATION_FAILED: dev.x.test/androidx.test."
                          "runner.AndroidJUnitRunner\n")
    assert missing.error_kind == "build_failure"
    assert "INSTRUMENTATION_FAILED" in missing.message
    aborted = android_end(START + "INSTRUMENTATION_ABORTED: System has crashed.\n")
    assert aborted.error_kind == "device_lost"  # the phone's own system server died
    assert "System has crashed" in aborted.message


def test_gradle_build_failure_before_any_test():
    log = as_fastlane("FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task "
                      "':app:compileDebugKotlin'.\n\nBUILD FAILED in 14s")
    failure = android_end(log)
    assert failure.error_kind == "build_failure"
    assert "Build failed" in failure.message


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
    lane = run_lane([sys.executable, "-c", "import time; time.sleep(3600)"], cwd=tmp_path, env={}, timeout_s=600,
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
