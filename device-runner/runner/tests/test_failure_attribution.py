"""Who is blamed for each real failure string (docs/device-lab.md §8): the lane's log as
am instrument, Gradle, xcodebuild and fastlane print it → an error kind (drivers/outcome.py)
→ its blame in the contract's one table (error-kinds.json). Only the phone's own faults
blame the device; a crashed harness is a failed run; a bad harness build is the lab's."""

import pytest
from latencylab_contract import blame_of
from test_lane_outcome import FAILURE_TAIL, START, as_fastlane

from latencylab_runner.drivers.outcome import android_end, ios_end

ANDROID = [
    # am instrument -r: the app crashed under instrumentation (ActivityManager's result bundle).
    ("harness crashed (am instrument)", START + "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\n"
                                                "INSTRUMENTATION_CODE: 0\n", "test_failure", "run"),
    # Gradle's connectedAndroidTest relays the same crash as the run's failure.
    ("harness crashed (Gradle)", "> Task :app:connectedDebugAndroidTest\nPixel 8 - 14 Tests 0/1 completed. "
                                 "(0 skipped) (0 failed)\nTest run failed to complete. Instrumentation run failed "
                                 "due to 'Process crashed.'\n", "test_failure", "run"),
    ("harness died, no INSTRUMENTATION_CODE", START, "test_failure", "run"),
    ("a failing test (FAILURES!!!)", START + FAILURE_TAIL, "test_failure", "run"),
    ("system server crashed", START + "INSTRUMENTATION_ABORTED: System has crashed.\n", "device_lost", "device"),
    ("test app not installed (am instrument)", "onError: commandError=true message=INSTRUMENTATION_FAILED: "
                                               "dev.latencylab.harness.test/androidx.test.runner.AndroidJUnitRunner\n",
     "build_failure", "lab"),
    ("Gradle build failed", "FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for "
                            "task ':app:compileDebugKotlin'.\n\nBUILD FAILED in 14s\n", "build_failure", "lab"),
    ("adb install refused", "adb: failed to install app-debug.apk: Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: "
                            "Package dev.latencylab.harness signatures do not match previously installed version]\n",
     "build_failure", "lab"),
    ("fastlane lane missing", "[12:00:00]: Could not find lane 'android bench'. Available lanes: android "
                              "build_harness\n", "build_failure", "lab"),
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


@pytest.mark.parametrize("what, log, kind, blame", ANDROID, ids=[row[0] for row in ANDROID])
def test_android_failure_strings(what, log, kind, blame):
    for text in (log, as_fastlane(log)):  # raw, and as fastlane's gradle action relays it
        failure = android_end(text)
        assert failure is not None, what
        assert (failure.error_kind, blame_of(failure.error_kind)) == (kind, blame), (what, failure.message)


@pytest.mark.parametrize("what, log, kind, blame", IOS, ids=[row[0] for row in IOS])
def test_ios_failure_strings(what, log, kind, blame):
    for text in (log, as_fastlane(log)):
        failure = ios_end(text)
        assert failure is not None, what
        assert (failure.error_kind, blame_of(failure.error_kind)) == (kind, blame), (what, failure.message)
