"""The Fastfile, the drivers and the fake fastlane agree: the same lanes, the same options
(fastlane's `key:value` arguments), the same device directory on Android. fastlane
itself cannot run here (no RubyGems), so the Fastfile is checked as text; the fake's
command-line rules are checked as fastlane's command_line_handler.rb defines them."""

import re
import subprocess
import threading
from pathlib import Path

from device_lab import scenario

from latencylab_runner.drivers import android as android_driver
from latencylab_runner.drivers.android import AndroidDriver
from latencylab_runner.drivers.fastlane import LaneRun
from latencylab_runner.drivers.ios import IosDriver
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.phone import PhoneSettings
from latencylab_runner.drivers.targets import ReferenceTarget

FASTFILE = (Path(__file__).resolve().parents[2] / "fastlane" / "Fastfile").read_text()


def lane_body(platform, lane):
    block = FASTFILE.split(f"platform :{platform} do", 1)[1].split("\nend\n", 1)[0]
    return block.split(f"lane :{lane} do", 1)[1].split("\n  end\n", 1)[0]


def option_keys(body):
    return set(re.findall(r"options\[:(\w+)\]", body)) | set(re.findall(r"required\(options, :(\w+)", body))


class Recorder:
    def __init__(self):
        self.args = None

    def __call__(self, args, **kwargs):
        self.args = args
        return LaneRun(args, 0, False, False, b"", 0.0)


def passed_keys(driver, tmp_path):
    recorder = Recorder()
    driver.lane = recorder
    driver.run_lane("SERIAL", tmp_path / "job.json", tmp_path / "out.json", env={}, cancelled=threading.Event(),
                    timeout_s=1)
    return recorder.args[:2], {arg.split(":", 1)[0] for arg in recorder.args[2:]}


def test_lanes_are_the_ones_the_fake_knows():
    lanes = {f"{platform} {lane}" for platform in ("android", "ios")
             for lane in re.findall(r"lane :(\w+) do", FASTFILE.split(f"platform :{platform} do", 1)[1]
                                    .split("\nend\n", 1)[0])}
    fake = (scenario.BIN_DIR / "fastlane").read_text()
    assert lanes == {"android build_harness", "android bench", "ios build_harness", "ios bench"}
    assert all(lane in fake for lane in lanes)


def test_drivers_pass_exactly_the_options_the_bench_lanes_read(tmp_path):
    settings = PhoneSettings(target=ReferenceTarget("127.0.0.1", 1, 2, "localhost", None), work_dir=tmp_path)
    lane, keys = passed_keys(AndroidDriver(type("D", (), {"adb": None})(), settings), tmp_path)
    assert lane == ["android", "bench"]
    assert keys == option_keys(lane_body("android", "bench"))
    exchange = JobExchange()
    try:
        lane, keys = passed_keys(IosDriver(None, settings, exchange=exchange), tmp_path)
    finally:
        exchange.close()
    assert lane == ["ios", "bench"]
    assert keys == option_keys(lane_body("ios", "bench"))


def test_android_lane_uses_the_drivers_device_directory_and_instrumentation_arguments():
    assert '"/sdcard/Android/media/#{ANDROID_PACKAGE}/latencylab"' in FASTFILE
    assert android_driver.DEVICE_DIR == f"/sdcard/Android/media/{android_driver.HARNESS_PACKAGE}/latencylab"
    assert f'ANDROID_PACKAGE = "{android_driver.HARNESS_PACKAGE}"' in FASTFILE
    body = lane_body("android", "bench")
    assert '"android.testInstrumentationRunnerArguments.job" => device_job' in body
    assert 'gradle(task: "connectedAndroidTest"' in body
    assert "serial: serial" in body


def test_android_builds_take_the_target_ca_for_cronet_and_need_no_committed_wrapper():
    build, bench = lane_body("android", "build_harness"), lane_body("android", "bench")
    # Every gradle call gets the same properties and Gradle: another CA would rebuild the app without it.
    for body in (build, bench):
        calls = body.count("gradle(task:")
        assert calls
        assert body.count("gradle_path: android_gradle") == calls
    assert build.count("properties: properties") == 2
    assert "android_properties(options, required: true)" in build
    assert "properties: android_properties(options).merge(" in bench
    assert '{ "latencylabTargetCa" => path }' in FASTFILE  # the property app/build.gradle.kts reads
    gradle_kts = (Path(__file__).resolve().parents[2] / "harness/android/app/build.gradle.kts").read_text()
    assert 'providers.gradleProperty("latencylabTargetCa")' in gradle_kts
    assert f'ENV["{android_driver.TARGET_CA_ENV}"]' in FASTFILE
    # No wrapper is committed: the lane falls back to the lab's Gradle, as fastlane's gradle action
    # takes an absolute gradle_path as is.
    assert not (Path(__file__).resolve().parents[2] / "harness/android/gradlew").exists()
    assert 'FastlaneCore::CommandExecutor.which("gradle")' in FASTFILE
    assert 'ENV["LATENCYLAB_GRADLE"]' in FASTFILE


def test_the_android_driver_hands_the_lane_the_target_ca(tmp_path):
    settings = PhoneSettings(target=ReferenceTarget("127.0.0.1", 1, 2, "localhost", "/etc/latencylab/tls/ca.pem"),
                             work_dir=tmp_path)
    driver = AndroidDriver(type("D", (), {"adb": None})(), settings)
    seen = {}
    driver.lane = lambda args, **kwargs: seen.update(kwargs) or LaneRun(args, 0, False, False, b"", 0.0)
    driver.run_lane("SERIAL", tmp_path / "job.json", tmp_path / "out.json", env={"LATENCYLAB_CLIENT_NETNS": "ns"},
                    cancelled=threading.Event(), timeout_s=1)
    assert seen["env"] == {"LATENCYLAB_TARGET_CA": "/etc/latencylab/tls/ca.pem", "LATENCYLAB_CLIENT_NETNS": "ns"}


def test_ios_build_generates_the_project_with_xcodegen_before_building():
    body = lane_body("ios", "build_harness")
    generate = body.index('sh("xcodegen", "generate", "--spec", project_path("harness/ios/project.yml")')
    assert generate < body.index("scan(project: project_path(IOS_PROJECT)")
    assert 'ENV["LATENCYLAB_IOS_TEAM_ID"]' in body  # project.yml signs with ${LATENCYLAB_IOS_TEAM_ID}
    project_yml = (Path(__file__).resolve().parents[2] / "harness/ios/project.yml").read_text()
    assert "${LATENCYLAB_IOS_TEAM_ID}" in project_yml
    assert "name: LatencyLabHarness" in project_yml
    assert 'IOS_PROJECT = "harness/ios/LatencyLabHarness.xcodeproj"' in FASTFILE


def test_ios_lane_targets_the_phone_by_udid_without_rebuilding():
    body = lane_body("ios", "bench")
    assert 'destination: "platform=iOS,id=#{udid}"' in body
    assert "test_without_building: true" in body
    assert 'ENV["TEST_RUNNER_LATENCYLAB_JOB"]' in body


def test_fake_follows_fastlanes_command_line_rules(tmp_path):
    fake = str(scenario.BIN_DIR / "fastlane")
    unknown = subprocess.run([fake, "android", "nope", "serial:X"], capture_output=True, text=True, timeout=30)
    assert unknown.returncode == 1
    assert "Could not find lane 'android nope'. Available lanes: android build_harness" in unknown.stderr
    empty_key = subprocess.run([fake, "android", "bench", ":x"], capture_output=True, text=True, timeout=30)
    assert empty_key.returncode == 1
    assert "Please pass values like this: key:value" in empty_key.stderr
    build = subprocess.run([fake, "android", "build_harness"], capture_output=True, text=True, timeout=30)
    assert build.returncode == 1
    assert "Driving the lane 'android build_harness'" in build.stdout
    assert re.search(r"^\[\d\d:\d\d:\d\d\]: Driving the lane", build.stdout, re.MULTILINE)
