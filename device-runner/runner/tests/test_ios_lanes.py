"""An iPhone signed and run unattended, end to end through the phone simulator (the fake
fastlane's iOS lanes running the Fastfile's commands, the fake xcodebuild replaying xcodebuild's
golden transcripts, the fake libimobiledevice tools with their real exit codes):

- the harness is built once per phone with the lab's own team and bundle-ID prefix (from the
  runner config), automatic signing allowed to register the phone; a build without them fails
  as xcodebuild does ("No profiles for …"), a config without them is refused;
- every run starts with the preflight: free space and Developer Mode (lockdownd), then the
  phone asks the runner's job exchange (unlocked, on the lab network, Local Network granted);
  each missing piece is `device_not_ready` with what to do, never a failed run;
- the result comes back through the exchange, or from the result bundle's manifest."""

import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest
from device_lab import scenario
from latencylab_contract import blame_of
from test_phone_drivers import IPHONE, SPEC, artifact, assert_failed, execute, needs_core

from latencylab_runner.agent.config import ConfigError, parse_config
from latencylab_runner.devices.ios import IDeviceTools
from latencylab_runner.drivers.ios_harness import IosSigning
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.drivers.xcresult import attachment_in
from latencylab_runner.phone_simulator import lab as lab_process
from latencylab_runner.workloads.job import build_job

ONE_BLOCK = {**SPEC, "blocks": 1, "arms": [SPEC["arms"][1]], "baseline_arm": "h2"}


def phone(lab):
    return next(d for d in lab.world()["ios"] if d["udid"] == IPHONE)


# -- not ready: each is the phone's, retried, and says what to do ------------------------

@pytest.mark.parametrize("state, says", [
    ({"locked": True}, "the phone is locked"),
    ({"developer_mode": False}, "Developer Mode is off"),
    ({"local_network": "denied"}, "Local Network → LatencyLabHarness on"),
    ({"free_bytes": 300 * 1024 * 1024}, "300 MB free on the phone, under 1024 MB"),
])
def test_a_phone_that_is_not_ready_fails_its_preflight_as_the_phones(lab, backend, reference, exchange, state, says):
    lab.set(ios=[scenario.ios_device(IPHONE, **state)])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE, spec=ONE_BLOCK)
    assert_failed(backend, run_id, finish, kind="device_not_ready", says=says)
    assert blame_of(finish["error_kind"]) == "device"
    assert phone(lab).get("test_runs", 0) == 0, "no block ran on a phone that is not ready"
    assert "fastlane.log" in artifact_names_of(backend, run_id)


def test_developer_mode_off_is_found_by_xcodebuild_too(lab, backend, reference, exchange):
    """Before the preflight's lockdownd check can run (the first build for the phone),
    xcodebuild's destination error says it."""
    lab.set(ios=[scenario.ios_device(IPHONE, developer_mode=False)])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE, spec=ONE_BLOCK)
    log = artifact(backend, run_id, "fastlane.log").decode()
    assert "error:Developer Mode disabled To use Lab iPhone 15 Pro for development" in log
    assert finish["error_kind"] == "device_not_ready"


def test_a_phone_that_cannot_reach_the_exchange_is_not_ready(lab, backend, reference):
    """ios.lab_address names an address the phone cannot reach the runner at (here one where
    nothing listens): the probe test fails with the harness's marker, before any block."""
    lab.set(ios=[scenario.ios_device(IPHONE)])
    elsewhere = JobExchange("127.0.0.1", 0, advertise="127.0.0.2")
    try:
        run_id, finish = execute(lab.ios_driver(reference, elsewhere), backend, IPHONE, spec=ONE_BLOCK)
    finally:
        elsewhere.close()
    assert_failed(backend, run_id, finish, kind="device_not_ready", says="cannot reach the runner's job exchange")
    assert phone(lab).get("test_runs", 0) == 0


# -- signing ------------------------------------------------------------------------------

def test_no_signing_in_the_config_is_the_labs_build_failure(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE)])
    run_id, finish = execute(lab.ios_driver(reference, exchange, signing=None), backend, IPHONE, spec=ONE_BLOCK)
    assert_failed(backend, run_id, finish, kind="build_failure", says="ios.team_id and ios.bundle_id_prefix")
    assert blame_of(finish["error_kind"]) == "lab"
    assert phone(lab).get("builds", 0) == 0


def test_the_harness_is_signed_with_the_labs_team_and_registers_the_phone(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE)], xcode={"profile": []})
    signing = IosSigning("A1B2C3D4E5", "org.examplelab.latencylab")
    driver = lab.ios_driver(reference, exchange, signing=signing)
    run_id, finish = execute(driver, backend, IPHONE, spec=ONE_BLOCK)
    # The phone was not in the team's profile: -allowProvisioningDeviceRegistration put it there.
    assert lab.world()["xcode"]["profile"] == [IPHONE]
    built = json.loads((driver.harness.derived_data(IPHONE) / "latencylab-simulator-build.json").read_text())
    assert built["team"] == "A1B2C3D4E5"
    assert built["bundle_id"] == "org.examplelab.latencylab.LatencyLabHarness"
    assert built["destination"] == f"platform=iOS,id={IPHONE}"
    assert driver.harness.derived_data(IPHONE).parent.name.startswith("0.1.0-A1B2C3D4E5-")
    assert finish is not None


def test_a_build_without_automatic_signing_fails_as_xcodebuild_does(lab, tmp_path):
    """The fake xcodebuild, run as scan would run it without -allowProvisioningUpdates: the
    phone is not in any profile, and xcodebuild says so (exit 65)."""
    lab.set(ios=[scenario.ios_device(IPHONE)], xcode={"profile": []})
    derived = tmp_path / "dd"
    done = subprocess.run(["xcodebuild", "-scheme", "LatencyLabBench", "-derivedDataPath", str(derived),
                           "-destination", f"platform=iOS,id={IPHONE}", "build-for-testing"],
                          capture_output=True, text=True, timeout=60,
                          env={**lab_env(lab), "LATENCYLAB_IOS_TEAM_ID": "A1B2C3D4E5",
                               "LATENCYLAB_IOS_BUNDLE_ID_PREFIX": "org.examplelab.latencylab"})
    assert done.returncode == 65
    assert ("No profiles for 'org.examplelab.latencylab.LatencyLabHarness' were found" in done.stdout)
    assert "To enable automatic signing, pass -allowProvisioningUpdates to xcodebuild." in done.stdout
    assert "** TEST BUILD FAILED **" in done.stdout
    assert lab.world()["xcode"]["profile"] == []


def test_the_lab_signing_must_be_its_own(tmp_path):
    base = {"server": "https://x.example", "runner_token": "llr_x", "name": "mac-mini-3"}
    config = parse_config({**base, "ios": {"team_id": "A1B2C3D4E5", "bundle_id_prefix": "org.examplelab.latencylab",
                                           "min_free_mb": 2048}})
    assert (config.ios_team_id, config.ios_bundle_id_prefix, config.ios_min_free_mb) == (
        "A1B2C3D4E5", "org.examplelab.latencylab", 2048)
    with pytest.raises(ConfigError, match=r"ios.team_id: must be an Apple Developer Team ID"):
        parse_config({**base, "ios": {"team_id": "my team"}})
    with pytest.raises(ConfigError, match=r"ios.bundle_id_prefix: .*not dev.latencylab"):
        parse_config({**base, "ios": {"bundle_id_prefix": "dev.latencylab"}})
    with pytest.raises(ConfigError, match=r"ios.bundle_id_prefix"):
        parse_config({**base, "ios": {"bundle_id_prefix": "no_dots"}})


# -- built once per phone, checked before every run -----------------------------------------

@needs_core
def test_built_once_per_phone_checked_before_every_run_measured_through_the_exchange(lab, backend, reference,
                                                                                      exchange):
    lab.set(ios=[scenario.ios_device(IPHONE)])
    driver = lab.ios_driver(reference, exchange)
    for _ in range(2):
        run_id, finish = execute(driver, backend, IPHONE, spec=ONE_BLOCK)
        assert finish["status"] == "ok", finish
        (batch,) = backend.batches[run_id]
        assert [s["error_class"] for s in batch["samples"]] == [None] * len(batch["samples"])
    device = phone(lab)
    assert (device["builds"], device["probes"], device["test_runs"]) == (1, 2, 2)
    # The JVM stand-in says what it is wherever the run's fingerprint is shown.
    assert "JVM stand-in for the iOS XCTest harness" in finish["fingerprint"]["harness_version"]


@needs_core
def test_a_hand_run_bench_lane_reads_the_result_through_the_manifest(lab, tmp_path, target_server):
    """No exchange: the lane takes the document the XCTest attached, by xcresulttool's manifest."""
    lab.set(ios=[scenario.ios_device(IPHONE)])
    target = ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                             str(target_server.ca_file))
    job = tmp_path / "job.json"
    job.write_text(json.dumps(build_job(ONE_BLOCK, run_id="hand", block=0, attempt=1, target=target)))
    env = {**lab_env(lab), "LATENCYLAB_IOS_TEAM_ID": "A1B2C3D4E5",
           "LATENCYLAB_IOS_BUNDLE_ID_PREFIX": "org.examplelab.latencylab"}
    derived = tmp_path / "dd"
    fastlane = str(scenario.BIN_DIR / "fastlane")
    built = subprocess.run([fastlane, "ios", "build_harness", f"udid:{IPHONE}", f"derived_data:{derived}"],
                           capture_output=True, text=True, timeout=120, cwd=lab_process.FASTLANE_DIR, env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "Created project at" in built.stdout
    out = tmp_path / "result.json"
    bench = subprocess.run([fastlane, "ios", "bench", f"udid:{IPHONE}", f"job:{job}", f"out:{out}",
                            f"derived_data:{derived}"], capture_output=True, text=True, timeout=300,
                           cwd=lab_process.FASTLANE_DIR, env=env)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    assert "$ xcrun xcresulttool export attachments --path" in bench.stdout
    assert json.loads(out.read_text())["run_id"] == "hand"


# -- the pieces -----------------------------------------------------------------------------

def test_the_result_attachment_is_found_by_the_manifest_not_the_file_name(tmp_path):
    (tmp_path / "8F1C.json").write_text('{"result": 1}')
    (tmp_path / "A0B1.png").write_bytes(b"png")
    (tmp_path / "manifest.json").write_text(json.dumps([
        {"testIdentifier": "BenchTests/testReachesRunner()", "attachments": [
            {"exportedFileName": "A0B1.png", "suggestedHumanReadableName": "screen_0_A0B1.png"}]},
        {"testIdentifier": "BenchTests/testRunJob()", "testIdentifierURL": "test://x", "attachments": [
            {"exportedFileName": "8F1C.json", "suggestedHumanReadableName": "latencylab-result_0_8F1C.json",
             "isAssociatedWithFailure": False, "configurationName": "Test Scheme Action", "deviceName": "iPhone",
             "deviceId": IPHONE}]}]))
    assert attachment_in(tmp_path) == tmp_path / "8F1C.json"
    (tmp_path / "manifest.json").write_text("[]")
    assert attachment_in(tmp_path) is None


def test_the_exchange_records_a_preflight_probe(exchange):
    probe = exchange.probe()
    assert not exchange.probed(probe)
    assert urllib.request.urlopen(probe.url, timeout=5).status == 204
    assert exchange.probed(probe)
    exchange.withdraw_probe(probe)
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(probe.url, timeout=5)


def test_idevicediagnostics_exits_1_on_every_error(lab):
    """libimobiledevice's idevicediagnostics starts from EXIT_FAILURE and succeeds only when it
    printed a reply; the runner then reads no temperature (never a parse of an error text)."""
    lab.set(ios=[scenario.ios_device(IPHONE, temperature_centi_c=None)])
    env = lab_env(lab)
    no_reply = subprocess.run(["idevicediagnostics", "-u", IPHONE, "ioregentry", "AppleSmartBattery"],
                              capture_output=True, text=True, timeout=30, env=env)
    assert (no_reply.returncode, no_reply.stdout) == (1, "ERROR: Unable to retrieve IORegistry from device.\n")
    missing = subprocess.run(["idevicediagnostics", "-u", "NOPE", "ioregentry", "AppleSmartBattery"],
                             capture_output=True, text=True, timeout=30, env=env)
    assert (missing.returncode, missing.stdout) == (1, "No device found with udid NOPE.\n")
    assert IDeviceTools().temperature(IPHONE) is None


def lab_env(lab):
    """The environment the lab fixture set up (the simulator's tools first on PATH, its scenario)."""
    assert os.environ[scenario.ENV] == str(lab.scenario_path)
    return dict(os.environ)


def artifact_names_of(backend, run_id):
    return " ".join(a["name"] for a in backend.artifacts.get(run_id, []))
