"""Who is blamed for each real failure string (docs/device-lab.md §8): the lane's log as
am instrument, xcodebuild and fastlane print it → an error kind (drivers/outcome.py)
→ its blame in the contract's one table (error-kinds.json). Only the phone's own faults
blame the device; a crashed harness is a failed run; a bad harness build is the lab's."""

import pytest
from latencylab_contract import blame_of
from test_lane_outcome import as_fastlane

from latencylab_runner.drivers.outcome import android_end, ios_end
from latencylab_runner.phone_simulator.golden import transcript

# Each golden transcript of `am instrument -w -r` (phone_simulator/transcripts/, test_lane_outcome.py
# maps each to its kind) → who is blamed: the phone only for its own system server dying; a
# crashed or failing harness is the run's; an instrumentation that is not installed is the
# lab's build; a command am refused or a connection that broke, the runner's.
ANDROID = [
    ("am-instrument-failure.txt", "run"),
    ("am-instrument-error.txt", "run"),
    ("am-instrument-ignored.txt", "run"),
    ("am-instrument-assumption-failure.txt", "run"),
    ("am-instrument-process-crashed.txt", "run"),
    ("am-instrument-crashed-before-the-test.txt", "run"),
    ("am-instrument-crashed-with-exception.txt", "run"),
    ("am-instrument-unable-to-instantiate.txt", "run"),
    ("am-instrument-no-tests.txt", "run"),
    ("am-instrument-not-installed.txt", "lab"),
    ("am-instrument-failed-legacy.txt", "lab"),
    ("am-instrument-system-crashed.txt", "device"),
    ("am-instrument-cut-short.txt", "runner"),
    ("am-instrument-bad-component.txt", "runner"),
]

IOS = [
    ("no destination (xcodebuild)", "xcodebuild: error: Unable to find a destination matching the provided "
                                    "destination specifier:\n\t\t{ id:00008130-001A2C3E0E38001C }\n",
     "device_lost", "device"),
    ("signing (xcodebuild)", "error: Signing for \"LatencyLabBench\" requires a development team. Select a "
                             "development team in the Signing & Capabilities editor.\n** BUILD FAILED **\n",
     "build_failure", "lab"),
    ("no provisioning profile", "error: No profiles for 'dev.latencylab.harness' were found: Xcode couldn't find "
                                "any iOS App Development provisioning profiles\n** TEST BUILD FAILED **\n",
     "build_failure", "lab"),
    ("test runner lost (harness died)", "Test Case '-[BenchTests.BenchTests testRunJob]' started.\nTesting failed:"
                                        "\n\tLost connection to the test runner (LatencyLabBench)\n",
     "test_failure", "run"),
    ("assertion failed", "Test Case '-[BenchTests.BenchTests testRunJob]' started.\n/x/BenchTests.swift:41: error: "
                         "-[BenchTests.BenchTests testRunJob] : XCTAssertTrue failed\n** TEST EXECUTE FAILED **\n",
     "test_failure", "run"),
]


@pytest.mark.parametrize("name, blame", ANDROID, ids=[row[0] for row in ANDROID])
def test_android_failure_strings(name, blame):
    log = transcript(name)
    for text in (log, as_fastlane(log)):  # raw, and as fastlane's sh action relays it
        failure = android_end(text)
        assert failure is not None, name
        assert blame_of(failure.error_kind) == blame, (name, failure.error_kind, failure.message)


@pytest.mark.parametrize("what, log, kind, blame", IOS, ids=[row[0] for row in IOS])
def test_ios_failure_strings(what, log, kind, blame):
    for text in (log, as_fastlane(log)):
        failure = ios_end(text)
        assert failure is not None, what
        assert (failure.error_kind, blame_of(failure.error_kind)) == (kind, blame), (what, failure.message)
