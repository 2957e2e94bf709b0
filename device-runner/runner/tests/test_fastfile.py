"""The Fastfile, the drivers and the fake fastlane agree: the same lanes, the same options
(fastlane's `key:value` arguments), the same commands in the same order (the fake's android
lanes run the Fastfile's `sh` commands, checked here against the Fastfile's text and, end to
end, against what the fake logged), the same device directory on Android. fastlane itself
cannot run here (no RubyGems), so the Fastfile is checked as text; the fake's command-line
rules are checked as fastlane's command_line_handler.rb defines them."""

import importlib.machinery
import importlib.util
import os
import re
import shlex
import subprocess
import threading
from pathlib import Path

import pytest
from device_lab import scenario

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.drivers import android as android_driver
from latencylab_runner.drivers.android import AndroidDriver
from latencylab_runner.drivers.android_harness import AndroidHarness
from latencylab_runner.drivers.fastlane import LaneRun
from latencylab_runner.drivers.ios import IosDriver
from latencylab_runner.drivers.ios_harness import IosHarness, IosSigning
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.lane_failure import LaneFailure
from latencylab_runner.drivers.phone import PhoneSettings
from latencylab_runner.drivers.targets import ReferenceTarget

DEVICE_RUNNER = Path(__file__).resolve().parents[2]
FASTFILE = (DEVICE_RUNNER / "fastlane" / "Fastfile").read_text()


def fake_fastlane():
    """bin/fastlane as a module (it has no .py suffix), for its command table."""
    path = str(scenario.BIN_DIR / "fastlane")
    loader = importlib.machinery.SourceFileLoader("fake_fastlane", path)
    spec = importlib.util.spec_from_loader("fake_fastlane", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def lane_body(platform, lane):
    block = FASTFILE.split(f"platform :{platform} do", 1)[1].split("\nend\n", 1)[0]
    return block.split(f"lane :{lane} do", 1)[1].split("\n  end\n", 1)[0]


def helper_body(name):
    return re.split(rf"\ndef {name}\b", FASTFILE, maxsplit=1)[1].split("\nend\n", 1)[0]


def with_helpers(body):
    """A lane's text with the text of the Fastfile helpers it calls, where it calls them."""
    helpers = set(re.findall(r"^def (\w+)\(", FASTFILE, re.MULTILINE))
    return re.sub(r"^(\s*)(\w+)\((serial, options)\)$",
                  lambda m: helper_body(m.group(2)) if m.group(2) in helpers else m.group(0), body,
                  flags=re.MULTILINE)


def with_ios_helpers(body):
    """An iOS lane's text with the text of the helpers that read its options."""
    return body + "".join(helper_body(name) for name in ("ios_derived_data", "ios_signing") if f"{name}(" in body)


def option_keys(body):
    return set(re.findall(r"options\[:(\w+)\]", body)) | set(re.findall(r"required\(options, :(\w+)", body))


def sh_commands(body):
    """Each `sh(...)` call's words: "literal" as is, a variable or constant as {name}; options dropped."""
    commands = []
    for start in (m.end() for m in re.finditer(r"\bsh\(", body)):
        depth, end = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(body[end], 0)
            end += 1
        words = []
        for arg in (a.strip() for a in body[start:end - 1].replace("\n", " ").split(",")):
            if re.match(r"^\w+:\s", arg):
                continue  # log: false, error_callback: …
            words.append(arg[1:-1] if arg.startswith('"') else "{" + arg + "}")
        commands.append(words)
    return commands


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
    assert lanes == {"android build_harness", "android install_harness", "android preflight", "android bench",
                     "ios build_harness", "ios preflight", "ios bench"}
    assert set(fake_fastlane().LANES) == lanes


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
    assert keys == option_keys(with_ios_helpers(lane_body("ios", "bench")))


def test_the_harness_lanes_get_exactly_the_options_they_read(tmp_path):
    calls = []

    def lane(args, timeout_s, label):
        calls.append(args)
        if args[1] == "build_harness":
            apk_dir = Path(args[2].split(":", 1)[1])
            apk_dir.mkdir(parents=True)
            for apk in ("app.apk", "test.apk"):
                (apk_dir / apk).write_bytes(b"")
        return LaneRun(args, 0, False, False, b"", 0.0)

    harness = AndroidHarness(lane, device_runner=DEVICE_RUNNER, work_dir=tmp_path, ca_file=None, timeout_s=1)
    harness.ensure_installed("SERIAL")
    harness.ensure_installed("SERIAL")
    assert [call[:2] for call in calls] == [["android", "build_harness"], ["android", "install_harness"],
                                            ["android", "preflight"]]
    for call in calls:
        keys = {arg.split(":", 1)[0] for arg in call[2:]}
        # target_ca: comes from LATENCYLAB_TARGET_CA (the driver's environment), as on the bench lane.
        assert keys == option_keys(with_helpers(lane_body("android", call[1]))) - {"target_ca"}, call


def test_the_fake_android_lanes_run_the_fastfiles_commands_in_order():
    fake = fake_fastlane()
    for lane, commands in fake.ANDROID_COMMANDS.items():
        assert sh_commands(with_helpers(lane_body("android", lane))) == commands, lane
    assert re.findall(r'gradle\(task: "(\w+)"', lane_body("android", "build_harness")) == fake.GRADLE_TASKS
    constants = dict(re.findall(r'^(ANDROID_\w+) = "([^"]+)"', FASTFILE, re.MULTILINE))

    def value(name):
        return re.sub(r"#\{(\w+)\}", lambda m: value(m.group(1)), constants[name])

    for name in ("ANDROID_PACKAGE", "ANDROID_TEST_PACKAGE", "ANDROID_INSTRUMENTATION", "ANDROID_DEVICE_DIR"):
        assert getattr(fake, name) == value(name), name
    assert fake.ANDROID_INSTRUMENTATION == android_driver.INSTRUMENTATION


def test_the_fake_bench_lane_ran_those_commands(lab, backend, target_server, tmp_path):
    lab.set(android=[scenario.android_device("R5CT1234", instrumentation="fail")])
    reference = ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                                str(target_server.ca_file))
    driver = lab.android_driver(reference)
    run_id = backend.enqueue(serial="R5CT1234", spec={
        "name": "t", "seed": 1, "blocks": 1, "timeout_s": 10, "baseline_arm": "h2",
        "workload": {"kind": "api", "rounds": 1, "calls": 1, "request_bytes": 64, "warmup": 0, "gap_ms": 0},
        "arms": [{"label": "h2", "protocol": "h2", "connection": "warm", "endpoint": None, "ca_bundle": None}]})
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        driver.execute(backend.queue.pop(), client, threading.Event())
    finally:
        client.close()
    log = next(a["data"] for a in backend.artifacts[run_id] if a["name"].endswith("fastlane.log")).decode()
    ran = [shlex.split(line.split("]: $ ", 1)[1]) for line in log.splitlines() if "]: $ " in line]
    templates = [" ".join(words) for words in fake_fastlane().ANDROID_COMMANDS["bench"]]
    assert len(ran) == len(templates)
    for words, template in zip(ran, templates, strict=True):
        pattern = re.escape(template)
        pattern = re.sub(r"\\\{\w+\\\}", r"\\S+", pattern)
        assert re.fullmatch(pattern, " ".join(words)), (words, template)


def test_android_lane_uses_the_drivers_device_directory_and_instrumentation_arguments():
    assert '"/sdcard/Android/media/#{ANDROID_PACKAGE}/latencylab"' in FASTFILE
    assert android_driver.DEVICE_DIR == f"/sdcard/Android/media/{android_driver.HARNESS_PACKAGE}/latencylab"
    assert f'ANDROID_PACKAGE = "{android_driver.HARNESS_PACKAGE}"' in FASTFILE
    body = lane_body("android", "bench")
    assert '"am", "instrument", "-w", "-r", "-e", "job", device_job, "-e", "out", device_out' in body
    # No Gradle on the bench: connectedAndroidTest uninstalled both APKs (and the result with them).
    assert "gradle(" not in body
    assert "connectedAndroidTest" not in FASTFILE.split("platform :android do", 1)[1]
    # The raw output is written before the pull, the pull comes before anything else.
    assert body.index("File.write(instrumentation, output)") < body.index('"pull", device_out, out')


def test_android_builds_take_the_target_ca_for_cronet_and_need_no_committed_wrapper():
    build = lane_body("android", "build_harness")
    assert build.count("gradle(task:") == 2
    assert build.count("gradle_path: android_gradle") == 2
    assert build.count("properties: properties") == 2
    assert "android_properties(options, required: true)" in build
    assert '{ "latencylabTargetCa" => path }' in FASTFILE  # the property app/build.gradle.kts reads
    gradle_kts = (DEVICE_RUNNER / "harness/android/app/build.gradle.kts").read_text()
    assert 'providers.gradleProperty("latencylabTargetCa")' in gradle_kts
    assert f'ENV["{android_driver.TARGET_CA_ENV}"]' in FASTFILE
    # No wrapper is committed: the lane falls back to the lab's Gradle, as fastlane's gradle action
    # takes an absolute gradle_path as is.
    assert not (DEVICE_RUNNER / "harness/android/gradlew").exists()
    assert 'FastlaneCore::CommandExecutor.which("gradle")' in FASTFILE
    assert 'ENV["LATENCYLAB_GRADLE"]' in FASTFILE
    # Installed with -r (replace) and -t (the debug test APK is testOnly), then checked.
    install = with_helpers(lane_body("android", "install_harness"))
    assert install.count('"install", "-r", "-t"') == 2
    assert '"dumpsys", "package", package' in install


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
    generate = body.index('sh("xcodegen", "generate", "--spec", spec, "--project", project_dir)')
    assert generate < body.index("scan(project: project_path(IOS_PROJECT)")
    assert body.index("ios_signing") < generate  # project.yml signs with the lab's team and prefix
    assert 'ENV["LATENCYLAB_IOS_TEAM_ID"]' in helper_body("ios_signing")
    assert 'ENV["LATENCYLAB_IOS_BUNDLE_ID_PREFIX"]' in helper_body("ios_signing")
    project_yml = (Path(__file__).resolve().parents[2] / "harness/ios/project.yml").read_text()
    assert "${LATENCYLAB_IOS_TEAM_ID}" in project_yml
    assert "${LATENCYLAB_IOS_BUNDLE_ID_PREFIX}" in project_yml
    assert "name: LatencyLabHarness" in project_yml
    assert 'IOS_PROJECT = "harness/ios/LatencyLabHarness.xcodeproj"' in FASTFILE


def test_ios_signs_unattended_for_the_phone_it_builds_for():
    """Automatic signing may create the team's profiles and register the phone (xcodebuild's
    -allowProvisioningUpdates -allowProvisioningDeviceRegistration), the build is for that phone,
    and no lane or Appfile fixes a bundle ID (App IDs are unique across Apple teams)."""
    body = lane_body("ios", "build_harness")
    assert "xcargs: IOS_SIGNING_ARGS" in body
    assert 'IOS_SIGNING_ARGS = "-allowProvisioningUpdates -allowProvisioningDeviceRegistration"' in FASTFILE
    assert '"platform=iOS,id=#{udid}"' in body
    assert "derived_data_path: ios_derived_data(options)" in body
    ios = FASTFILE.split("platform :ios do", 1)[1]
    assert "dev.latencylab" not in ios
    appfile = (DEVICE_RUNNER / "fastlane" / "Appfile").read_text()
    assert "app_identifier" not in appfile


def test_ios_lane_targets_the_phone_by_udid_without_rebuilding():
    for lane in ("bench", "preflight"):
        body = lane_body("ios", lane)
        assert 'destination: "platform=iOS,id=#{udid}"' in body
        assert "test_without_building: true" in body
        assert "derived_data_path: ios_derived_data(options)" in body
    assert "only_testing: [IOS_BENCH_TEST]" in lane_body("ios", "bench")
    assert "only_testing: [IOS_PROBE_TEST]" in lane_body("ios", "preflight")
    assert 'ENV["TEST_RUNNER_LATENCYLAB_JOB"]' in lane_body("ios", "bench")
    assert 'ENV["TEST_RUNNER_LATENCYLAB_PROBE"]' in lane_body("ios", "preflight")


def test_the_fake_ios_lanes_run_the_fastfiles_commands_and_constants():
    fake = fake_fastlane()
    for lane, commands in fake.IOS_COMMANDS.items():
        assert sh_commands(lane_body("ios", lane)) == commands, lane
    for lane, (action, xcodebuild_action, only) in fake.IOS_SCANS.items():
        body = lane_body("ios", lane)
        assert f"{action}(project: project_path(IOS_PROJECT)" in body, lane
        flag = {"build-for-testing": "build_for_testing: true", "test-without-building": "test_without_building: true"}
        assert flag[xcodebuild_action] in body, lane
        assert (f"only_testing: [{only}]" in body) if only else ("only_testing" not in body), lane
    constants = dict(re.findall(r'^(IOS_\w+) = "([^"]+)"', FASTFILE, re.MULTILINE))
    for name in ("IOS_PROJECT", "IOS_SCHEME", "IOS_DERIVED_DATA", "IOS_BENCH_TEST", "IOS_PROBE_TEST",
                 "IOS_RESULT_ATTACHMENT", "IOS_SIGNING_ARGS"):
        assert getattr(fake, name) == constants[name], name
    # The preflight's verdicts are the ones outcome.py reads as the phone not being ready.
    assert FASTFILE.count('UI.user_error!("LatencyLab preflight: not ready: ') == 2


def test_the_ios_harness_lanes_get_exactly_the_options_they_read(tmp_path):
    calls = []

    def lane(args, timeout_s, label):
        calls.append(args)
        return LaneRun(args, 0, False, False, b"", 0.0)

    exchange = JobExchange()
    try:
        harness = IosHarness(lane, device_runner=DEVICE_RUNNER, work_dir=tmp_path, exchange=exchange,
                             signing=IosSigning("A1B2C3D4E5", "org.examplelab.latencylab"))
        with pytest.raises(LaneFailure) as failure:  # nobody asked the probe URL here
            harness.ensure_ready("UDID")
        assert failure.value.error_kind == "device_not_ready"
    finally:
        exchange.close()
    assert [call[:2] for call in calls] == [["ios", "build_harness"], ["ios", "preflight"]]
    for call in calls:
        keys = {arg.split(":", 1)[0] for arg in call[2:]}
        assert keys == option_keys(with_ios_helpers(lane_body("ios", call[1]))), call


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
    assert "apk_dir: is required" in build.stderr
    assert re.search(r"^\[\d\d:\d\d:\d\d\]: Driving the lane", build.stdout, re.MULTILINE)


def test_fake_lane_ends_as_fastlane_does(lab, tmp_path):
    """Exit 0 and fastlane's success line; a failed gradle call is `[!] Exit status of command
    '…' was 1 instead of 0.` on stderr and exit 1; bench never judges: an instrumentation that
    cannot start still ends the lane 0, its raw output in the file."""
    fake = str(scenario.BIN_DIR / "fastlane")
    lab.set(android=[scenario.android_device("R5CT1234")], fastlane={"mode": "build_failure"})
    env = {"LATENCYLAB_TARGET_CA": str(tmp_path / "ca.pem")}
    (tmp_path / "ca.pem").write_text("not read by the fake\n")

    def run(*args):
        return subprocess.run([fake, "android", *args], capture_output=True, text=True, timeout=60,
                              cwd=DEVICE_RUNNER / "fastlane", env={**os.environ, **env})

    failed = run("build_harness", f"apk_dir:{tmp_path / 'apks'}")
    assert failed.returncode == 1
    assert re.search(r"\[!\] Exit status of command '.*assembleDebug .*' was 1 instead of 0\.", failed.stderr)
    assert "FAILURE: Build failed with an exception." in failed.stdout
    lab.set(fastlane={"mode": "run"})
    built = run("build_harness", f"apk_dir:{tmp_path / 'apks'}")
    assert built.returncode == 0, built.stderr
    assert built.stdout.rstrip().endswith("fastlane.tools finished successfully 🎉")
    assert "BUILD SUCCESSFUL in 41s" in built.stdout
    job = tmp_path / "job.json"
    job.write_text("{}")
    raw = tmp_path / "am.txt"
    bench = run("bench", "serial:R5CT1234", f"job:{job}", f"out:{tmp_path / 'out.json'}", f"instrumentation:{raw}")
    assert bench.returncode == 0, bench.stderr
    assert "Unable to find instrumentation info for: ComponentInfo{" in raw.read_text()
    assert "am instrument exited 1" in bench.stdout
    assert "no result to pull: adb pull exited 1" in bench.stdout
