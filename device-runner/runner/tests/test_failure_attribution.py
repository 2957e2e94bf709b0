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

# Each golden transcript of xcodebuild (test_lane_outcome.py maps each to its kind) → who is
# blamed: the phone for what only a person at the phone can fix (locked, Developer Mode off, the
# Local Network permission, not on the lab Wi-Fi) and for being gone; the lab for signing; the
# run for a harness that failed or died.
IOS = [
    ("xcodebuild-local-network-denied.txt", "device"),
    ("xcodebuild-exchange-unreachable.txt", "device"),
    ("xcodebuild-device-locked.txt", "device"),
    ("xcodebuild-developer-mode-disabled.txt", "device"),
    ("xcodebuild-no-destination.txt", "device"),
    ("xcodebuild-signing-no-team.txt", "lab"),
    ("xcodebuild-no-profiles.txt", "lab"),
    ("xcodebuild-test-failure.txt", "run"),
    ("xcodebuild-lost-connection.txt", "run"),
    ("xcodebuild-early-exit.txt", "run"),
]


@pytest.mark.parametrize("name, blame", ANDROID, ids=[row[0] for row in ANDROID])
def test_android_failure_strings(name, blame):
    log = transcript(name)
    for text in (log, as_fastlane(log)):  # raw, and as fastlane's sh action relays it
        failure = android_end(text)
        assert failure is not None, name
        assert blame_of(failure.error_kind) == blame, (name, failure.error_kind, failure.message)


@pytest.mark.parametrize("name, blame", IOS, ids=[row[0] for row in IOS])
def test_ios_failure_strings(name, blame):
    log = transcript(name, test="testRunJob", udid="00008130-001A2C3E0E38001C", device_name="Lab iPhone",
                     bundle_id="org.examplelab.latencylab.LatencyLabHarness", exchange="192.168.10.1:8470",
                     failure="XCTAssertTrue failed", derived_data="/tmp/dd")
    for text in (log, as_fastlane(log)):
        failure = ios_end(text)
        assert failure is not None, name
        assert blame_of(failure.error_kind) == blame, (name, failure.error_kind, failure.message)
