"""The android and ios drivers end to end with fakes that obey the real tools' formats:
the real adb client against the fake adb server, the fake libimobiledevice tools, the
fake fastlane, the real reference target, and a recording backend that checks every
request against contract/README.md.

Every failure path ends in one finish call with the right status and error_kind, stores
nothing of the failed block, and keeps the lane's log (and the raw result when there is
one) as run artifacts. The happy paths need the real Kotlin harness core on the JVM (the
fakes never fabricate numbers) and skip, naming the missing jar, until it is built."""

import json
import os
import subprocess
import threading

import pytest
from conditions import poll_until
from device_lab import harness_core, scenario
from latencylab_contract.validation import validate
from latencylab_tools.netlab.shaping_probe import ShapingProbe
from latencylab_tools.netlab.wifi import WifiInterfaces, WifiShaper
from latencylab_tools.target import content

from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.devices.gate import GateThresholds
from latencylab_runner.drivers.android_harness import harness_version
from latencylab_runner.drivers.ios import neighbour_address
from latencylab_runner.drivers.server_stacks import reference_target_software
from latencylab_runner.drivers.targets import ReferenceTarget

SPEC = {"name": "phone test", "seed": 7, "blocks": 2, "timeout_s": 10, "baseline_arm": "https-h1",
        "workload": {"kind": "api", "rounds": 2, "calls": 3, "request_bytes": 64, "warmup": 1, "gap_ms": 0},
        "arms": [{"label": "https-h1", "protocol": "h1", "connection": "warm", "endpoint": None, "ca_bundle": None},
                 {"label": "h2", "protocol": "h2", "connection": "warm", "endpoint": None, "ca_bundle": None}]}
PIXEL = "R5CT1234"
IPHONE = "00008130-001A2C3E0E38001C"
needs_core = pytest.mark.skipif(harness_core.missing_reason() is not None,
                                reason=str(harness_core.missing_reason()))


def without_nulls(samples: list[dict]) -> list[dict]:
    """Samples with their null fields left out: an upload as columns carries a field some samples
    lack as null in those samples (the contract README, "The columnar body"), which the sample
    schema treats alike."""
    return [{k: v for k, v in sample.items() if v is not None} for sample in samples]


# The probe's verdicts (shaping_probe.py, tested in namespaces of its own in test_shaping_probe.py).
def shapes_here(_ap: str) -> ShapingProbe:
    return ShapingProbe(True)


def netem_missing_here(_ap: str) -> ShapingProbe:
    return ShapingProbe(False, "the kernel lacks sch_netem: `tc qdisc add dev llab-p1 parent 1:1 handle 1001: netem "
                               "delay 1ms` answered Error: Specified qdisc kind is unknown.; `modprobe sch_netem`",
                        "module")


def execute(driver, backend, serial, *, spec=SPEC, network_profile=None, cancelled=None):
    run_id = backend.enqueue(serial=serial, spec=spec, network_profile=network_profile)
    lease = backend.queue.pop()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        driver.execute(lease, client, cancelled or threading.Event())
    finally:
        client.close()
    assert backend.violations == []
    return run_id, backend.finishes.get(run_id)


def artifact_names(backend, run_id):
    return [a["name"] for a in backend.artifacts.get(run_id, [])]


def artifact(backend, run_id, suffix):
    return next(a["data"] for a in backend.artifacts[run_id] if a["name"].endswith(suffix))


def assert_failed(backend, run_id, finish, *, status="infra_error", kind, says):
    assert finish is not None, "the run was never finished"
    assert (finish["status"], finish["error_kind"]) == (status, kind), finish["error"]
    assert says in finish["error"], finish["error"]
    assert run_id not in backend.batches, "a failed block must store nothing"


# -- Android failures ------------------------------------------------------------

def test_android_device_unplugged_mid_block(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, unplug_after_blocks=0)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_lost", says="no longer listed by adb")
    log = artifact(backend, run_id, "fastlane.log").decode()
    assert "INSTRUMENTATION_STATUS_CODE: 1" in log
    assert "INSTRUMENTATION_CODE" not in log
    assert artifact_names(backend, run_id) == ["a1-block-0-fastlane.log"]  # no result to keep
    assert finish["fingerprint"]["platform"] == "android"


def test_android_authorization_revoked_mid_block(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, state_after_blocks={"blocks": 0, "state": "unauthorized"})])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_lost", says="unauthorized")
    assert "fastlane.log" in artifact_names(backend, run_id)[0]


def test_android_unauthorized_before_the_block_runs_no_lane(lab, backend, reference):
    lab.set(android=[{"serial": PIXEL, "state": "unauthorized", "usb": "1-4"}])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_lost", says="unauthorized")
    assert artifact_names(backend, run_id) == []


def test_android_fastlane_timeout_kills_the_lane_and_its_children(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)], fastlane={"mode": "hang"})
    run_id, finish = execute(lab.android_driver(reference, timeout_s=3), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="timeout", says="limit")
    assert "killed after" in artifact(backend, run_id, "fastlane.log").decode()
    child = int((lab.dir / "fastlane-hang.pid").read_text())
    assert poll_until(lambda: not _alive(child), 10), "the lane's child process outlived the kill"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_android_build_failure(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)], fastlane={"mode": "build_failure"})
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    # Gradle's own answer to "What went wrong", from build_harness's log (kept as the evidence).
    assert_failed(backend, run_id, finish, kind="build_failure",
                  says="did not build: Execution failed for task ':app:compileDebugKotlin'.")
    log = artifact(backend, run_id, "fastlane.log").decode()
    assert "BUILD FAILED in 14s" in log
    assert "Driving the lane 'android build_harness'" in log
    assert lab.world()["android"][0]["installed"] == {}


def test_android_install_failure_is_a_build_failure(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, install_failure="INSTALL_FAILED_INSUFFICIENT_STORAGE")])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    # The real adb client's words for PackageManager's answer.
    assert_failed(backend, run_id, finish, kind="build_failure", says="Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]")
    assert "adb: failed to install" in artifact(backend, run_id, "fastlane.log").decode()


def test_android_test_failure_reported_by_the_instrumentation(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="fail")])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    # am instrument exited 0: only the status lines say the test failed.
    assert_failed(backend, run_id, finish, status="failed", kind="test_failure", says="AssertionError")
    assert "FAILURES!!!" in artifact(backend, run_id, "fastlane.log").decode()


def test_android_harness_crash_is_a_test_failure(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="crash")])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    # ActivityManager's "Process crashed." with INSTRUMENTATION_CODE 0: the harness's fault, not the phone's.
    assert_failed(backend, run_id, finish, status="failed", kind="test_failure", says="Process crashed.")


def test_android_system_server_crash_loses_the_device(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="system_crash")])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_lost", says="INSTRUMENTATION_ABORTED: System has crashed.")


def test_android_harness_is_built_once_and_installed_once_per_phone(lab, backend, reference):
    galaxy = "RFCX21"
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="fail"),
                     scenario.android_device(galaxy, model="Galaxy S24", instrumentation="fail")])
    driver = lab.android_driver(reference)
    for serial in (PIXEL, galaxy, PIXEL, galaxy):
        run_id, finish = execute(driver, backend, serial, spec={**SPEC, "blocks": 1})
        assert_failed(backend, run_id, finish, status="failed", kind="test_failure", says="AssertionError")
    world = lab.world()
    assert world["harness_builds"] == 1
    code, name = harness_version(scenario.DEVICE_RUNNER)
    for phone in world["android"]:
        assert phone["installs"] == 2, phone  # the app and its test APK, once
        assert {pkg: v["versionCode"] for pkg, v in phone["installed"].items()} == {
            "dev.latencylab.harness": int(code), "dev.latencylab.harness.test": int(code)}
        assert {v["versionName"] for v in phone["installed"].values()} == {name}
    # Uninstalled behind the runner's back: the next run's preflight sees it and installs again.
    for package in ("dev.latencylab.harness.test", "dev.latencylab.harness"):
        done = subprocess.run(["adb", "-s", PIXEL, "uninstall", package], capture_output=True, text=True, timeout=30)
        assert done.stdout.strip() == "Success", done
    execute(driver, backend, PIXEL, spec={**SPEC, "blocks": 1})
    assert next(p for p in lab.world()["android"] if p["serial"] == PIXEL)["installs"] == 4
    assert lab.world()["harness_builds"] == 1


def test_android_uninstall_deletes_the_apps_media_directory(lab, backend, reference):
    """What the Android Gradle plugin's uninstall after connectedAndroidTest did to every result."""
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="fail")])
    execute(lab.android_driver(reference), backend, PIXEL, spec={**SPEC, "blocks": 1})
    result = lab.dir / "result.json"
    result.write_text("{}")
    remote = "/sdcard/Android/media/dev.latencylab.harness/latencylab/result.json"
    pushed = subprocess.run(["adb", "-s", PIXEL, "push", str(result), remote], capture_output=True, timeout=30)
    assert pushed.returncode == 0
    done = subprocess.run(["adb", "-s", PIXEL, "uninstall", "dev.latencylab.harness"], capture_output=True, text=True,
                          timeout=30)
    assert done.stdout.strip() == "Success"
    result.unlink()
    pulled = subprocess.run(["adb", "-s", PIXEL, "pull", remote, str(result)], capture_output=True, text=True,
                            timeout=30)
    assert pulled.returncode == 1
    assert "No such file or directory" in pulled.stdout + pulled.stderr
    again = subprocess.run(["adb", "-s", PIXEL, "uninstall", "dev.latencylab.harness"], capture_output=True,
                           text=True, timeout=30)
    assert (again.returncode, again.stdout.strip()) == (1, "Failure [DELETE_FAILED_INTERNAL_ERROR]")


def test_android_time_limit_force_stops_the_harness_on_the_phone(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="hang")])
    run_id, finish = execute(lab.android_driver(reference, timeout_s=20), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="timeout", says="limit")
    # Killing the lane (and its adb client) left the instrumentation running: the runner force-stopped it.
    assert lab.world()["android"][0]["force_stops"] == 1
    assert all(stop.is_set() for stop in lab.adb._stops.get(PIXEL, []))


def test_android_cancel_force_stops_the_harness_on_the_phone(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="hang")])
    cancelled, ended = threading.Event(), {}
    driver = lab.android_driver(reference)

    def run():
        ended["run"] = execute(driver, backend, PIXEL, cancelled=cancelled)

    thread = threading.Thread(target=run)
    thread.start()
    assert lab.adb.instrumentation_started.wait(120), "the harness test never started"
    cancelled.set()
    thread.join(120)
    run_id, finish = ended["run"]
    assert finish is None  # a cancelled run is the server's to end
    assert lab.world()["android"][0]["force_stops"] == 1
    assert all(stop.is_set() for stop in lab.adb._stops.get(PIXEL, []))


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_secret_header_is_refused_before_any_lane_runs(lab, backend, reference, exchange, platform):
    # The service sends secrets to host runners only; a spec that gets here anyway never puts
    # the placeholder on the wire nor a value in a job file.
    request = {"name": "me", "method": "GET", "url": None, "path": "/bytes/10", "body": None, "body_b64": None,
               "body_bytes": None, "expect_status": None, "headers": {"authorization": "{{secret.API_TOKEN}}"}}
    spec = {**SPEC, "workload": {"kind": "requests", "requests": [request], "repetitions": 1, "warmup": 0,
                                 "think_ms": 0}}
    if platform == "android":
        lab.set(android=[scenario.android_device(PIXEL)])
        run_id, finish = execute(lab.android_driver(reference), backend, PIXEL, spec=spec)
    else:
        lab.set(ios=[scenario.ios_device(IPHONE)])
        run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE, spec=spec)
    assert_failed(backend, run_id, finish, status="failed", kind="test_failure",
                  says=f"{platform} harnesses do not receive secrets")
    assert artifact_names(backend, run_id) == []


def test_android_malformed_result(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="malformed")])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="malformed_result", says="not JSON")
    # The lane passed and pulled the cut document; it is kept as evidence.
    assert artifact(backend, run_id, "result.json") == b'{"contract": "latencylab.result/v1", "run_id": "'
    assert "OK (1 test)" in artifact(backend, run_id, "fastlane.log").decode()


def test_android_battery_below_the_gate(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, level=32, plugged=False)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_not_ready", says="battery 32 % < 50 %")
    assert artifact_names(backend, run_id) == []


def test_android_overheating(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, temperature_tenths=391)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_not_ready", says="temperature 39.1 °C > 36 °C")
    assert finish["fingerprint"]["temperature"] == 39.1


def test_android_reference_target_down_is_a_lab_fault(lab, backend, reference):
    """The lab's own server does not answer: the lab is blamed (the runner's breaker), not the phone."""
    lab.set(android=[scenario.android_device(PIXEL)])
    closed = ReferenceTarget("127.0.0.1", 9, 9, "localhost", reference.ca_file)
    run_id, finish = execute(lab.android_driver(closed), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="lab_fault",
                  says="the lab's reference target 127.0.0.1:9 (arm 'https-h1') unreachable")


def test_android_customer_endpoint_that_does_not_resolve_fails_the_run(lab, backend, reference):
    """A typo in the comparison's endpoint is the customer's: the run fails naming the arm and
    the endpoint, and the phone is not blamed."""
    lab.set(android=[scenario.android_device(PIXEL)])
    typo = {"label": "h2", "protocol": "h2", "connection": "warm", "endpoint": "https://api.typo.invalid/",
            "ca_bundle": None}
    arms = [SPEC["arms"][0], typo]
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL, spec={**SPEC, "arms": arms})
    assert_failed(backend, run_id, finish, status="failed", kind="target_unreachable",
                  says="arm 'h2' endpoint https://api.typo.invalid/: name does not resolve")


def test_android_gate_thresholds_come_from_settings(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, level=70, plugged=False)])
    strict = GateThresholds(min_battery_pct=80)
    run_id, finish = execute(lab.android_driver(reference, limits=strict), backend, PIXEL)
    assert_failed(backend, run_id, finish, kind="device_not_ready", says="battery 70 % < 80 %")


class TcRecorder:
    """Stands in for running tc on a real access point (this kernel has no netem)."""

    def __init__(self):
        self.commands = []

    def __call__(self, command):
        self.commands.append(list(command))


def test_android_network_profile_without_netem_is_refused(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    shaper = WifiShaper(WifiInterfaces("wlan0"), runner=TcRecorder(), probe=netem_missing_here)
    driver = lab.android_driver(reference, link_mode="ap-netem", shaper=shaper)
    run_id, finish = execute(driver, backend, PIXEL, network_profile={"name": "lte"})
    assert_failed(backend, run_id, finish, kind="link_unavailable", says="modprobe sch_netem")
    assert shaper.runner.commands == []


def test_android_network_profile_without_an_ap_interface_is_refused(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    run_id, finish = execute(lab.android_driver(reference, link_mode="ap-netem"), backend, PIXEL,
                             network_profile={"name": "lte"})
    assert_failed(backend, run_id, finish, kind="link_unavailable", says="link.interface")


def test_android_phone_is_shaped_on_the_ap_by_its_address_and_released(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, instrumentation="fail")])
    recorder = TcRecorder()
    shaper = WifiShaper(WifiInterfaces("wlan0"), runner=recorder, probe=shapes_here)
    driver = lab.android_driver(reference, link_mode="ap-netem", shaper=shaper)
    run_id, finish = execute(driver, backend, PIXEL, network_profile={"name": "lte"})
    assert_failed(backend, run_id, finish, status="failed", kind="test_failure", says="AssertionError")
    filters = [c for c in recorder.commands if c[:3] == ["tc", "filter", "add"] and "u32" in c]
    # Down on the AP by destination, up on its ifb by source: the address adb reported.
    assert any("dst" in c and "192.168.10.23/32" in c and "wlan0" in c for c in filters), filters
    assert any("src" in c and "192.168.10.23/32" in c for c in filters), filters
    assert any(c[:3] == ["tc", "class", "del"] for c in recorder.commands), "the phone's shaping was not removed"
    assert shaper._slots == {}


def test_android_phone_off_the_wifi_is_refused(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, wifi_ip=None)])
    shaper = WifiShaper(WifiInterfaces("wlan0"), runner=TcRecorder(), probe=shapes_here)
    run_id, finish = execute(lab.android_driver(reference, link_mode="ap-netem", shaper=shaper), backend, PIXEL,
                             network_profile={"name": "lte"})
    assert_failed(backend, run_id, finish, kind="link_unavailable", says="no IPv4 address on wlan0")


def test_ios_address_comes_from_the_neighbour_table():
    table = ("192.168.10.7 lladdr 3c:22:fb:00:00:01 STALE\n"
             "fe80::1c2a:aaff:fe00:1 lladdr a4:83:e7:12:34:56 REACHABLE\n"
             "192.168.10.24 lladdr a4:83:e7:12:34:56 REACHABLE\n"
             "192.168.10.9  FAILED\n")
    assert neighbour_address(table, "a4:83:e7:12:34:56") == "192.168.10.24"
    assert neighbour_address(table, "00:00:00:00:00:00") is None


# -- iOS failures ------------------------------------------------------------------

def test_ios_device_unplugged_mid_block(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE, unplug_after_blocks=0)])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, kind="device_lost", says="no longer listed by idevice_id")
    assert "Lost connection to test manager service." in artifact(backend, run_id, "fastlane.log").decode()


def test_ios_untrusted_phone(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE, lockdown_error={"code": -19, "text": "Pairing dialog response pending"})])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, kind="device_lost", says="not trusted")


def test_ios_signing_failure_is_a_build_failure(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE)], fastlane={"mode": "build_failure"})
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, kind="build_failure", says="provisioning profiles")


def test_ios_test_failure(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE, test="fail")])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, status="failed", kind="test_failure", says="XCTAssertTrue failed")


def test_ios_malformed_result_comes_back_through_the_exchange(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE, test="malformed")])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, kind="malformed_result", says="not JSON")
    assert artifact(backend, run_id, "result.json").startswith(b'{"contract"')


def test_ios_overheating(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE, temperature_centi_c=3712)])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert_failed(backend, run_id, finish, kind="device_not_ready", says="temperature 37.12 °C > 36 °C")


def test_exchange_serves_only_blocks_in_progress(tmp_path, exchange):
    import urllib.error
    import urllib.request

    job, out = tmp_path / "job.json", tmp_path / "out.json"
    job.write_text('{"job": 1}')
    offer = exchange.offer(job, out)
    assert urllib.request.urlopen(offer.job_url, timeout=5).read() == b'{"job": 1}'
    put = urllib.request.Request(offer.result_url, data=b'{"result": 1}', method="PUT")
    assert urllib.request.urlopen(put, timeout=5).status == 204
    assert out.read_bytes() == b'{"result": 1}'
    exchange.withdraw(offer)
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(offer.job_url, timeout=5)
    assert gone.value.code == 404


# -- Happy paths: real measurements from the Kotlin core ----------------------------

def assert_real_block(batch, job_arms):
    assert batch["samples"], "an empty block"
    for sample in batch["samples"]:
        validate(sample, "sample")
    ok = [s for s in batch["samples"] if s["error_class"] is None]
    assert len(ok) == len(batch["samples"]), [s["error_detail"] for s in batch["samples"] if s["error_class"]]
    assert {s["alpn"] for s in ok if s["arm"] == "h2"} == {"h2"}
    assert {s["alpn"] for s in ok if s["arm"] == "https-h1"} == {"http/1.1"}
    assert all(s["app_done"] > 0 for s in ok)


@needs_core
def test_android_replays_a_request_list_with_the_customer_s_bodies_and_expected_statuses(lab, backend, reference):
    """What a HAR replay sends: the real Kotlin core behind the fake Pixel posts the recorded
    body as is and judges each status by the recording's (a 404 that was recorded is a success)."""
    requests = [{"name": "post", "method": "POST", "path": "/echo", "body": '{"dry_run":true}', "expect_status": 200},
                {"name": "gone", "method": "GET", "path": "/files/no-such-file", "expect_status": 404},
                {"name": "file", "method": "GET", "path": "/files/mid-01"}]
    spec = {**SPEC, "blocks": 1, "workload": {"kind": "requests", "repetitions": 1, "warmup": 0, "think_ms": 0,
                                              "requests": requests}}
    lab.set(android=[scenario.android_device(PIXEL)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL, spec=spec)
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    (batch,) = backend.batches[run_id]
    measured = [s for s in batch["samples"] if s["phase"] == "measure"]
    assert sorted({s["step"] for s in measured}) == [0, 1, 2]
    for sample in measured:
        assert sample["error_class"] is None, sample
    posts = [s for s in measured if s["step"] == 0]
    assert {(s["req_bytes"], s["resp_bytes"]) for s in posts} == {(16, 16)}  # the echo returns the body sent
    assert {s["status"] for s in measured if s["step"] == 1} == {404}


@needs_core
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_phone_issues_a_request_list_at_once_with_an_absolute_url(lab, backend, reference, exchange, platform):
    """Concurrency on a phone: each pass over the list is one group issued at once (the real
    Kotlin core behind the fake phone), and an absolute URL goes to its own origin on a
    connection of its own."""
    elsewhere = f"https://localhost:{reference.tls_port}/files/mid-02"
    requests = [{"name": "feed", "method": "GET", "path": "/delay/150"},
                {"name": "file", "method": "GET", "path": "/files/mid-01"},
                {"name": "cdn", "method": "GET", "url": elsewhere},
                {"name": "more", "method": "GET", "path": "/delay/150"}]
    spec = {**SPEC, "blocks": 1, "workload": {"kind": "requests", "repetitions": 2, "warmup": 1, "think_ms": 0,
                                              "requests": requests, "concurrency": {"parallel": 2}}}
    if platform == "android":
        lab.set(android=[scenario.android_device(PIXEL)])
        run_id, finish = execute(lab.android_driver(reference), backend, PIXEL, spec=spec)
    else:
        lab.set(ios=[scenario.ios_device(IPHONE)])
        run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE, spec=spec)
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    (batch,) = backend.batches[run_id]
    measured = [s for s in batch["samples"] if s["phase"] == "measure"]
    assert [s["error_class"] for s in measured] == [None] * len(measured), measured
    assert max(s["in_flight"] for s in measured) > 1, [s["in_flight"] for s in measured]
    assert {s["in_flight"] for s in batch["samples"] if s["phase"] == "warmup"} == {1}
    for arm in ("https-h1", "h2"):
        own = [s for s in measured if s["arm"] == arm]
        cdn = {s["conn_id"] for s in own if s["step"] == 2}
        assert cdn.isdisjoint({s["conn_id"] for s in own if s["step"] != 2}), own
        assert {s["resp_bytes"] for s in own if s["step"] == 2} == {content.file_sizes()["mid-02"]}
    h1 = {s["conn_id"] for s in measured if s["arm"] == "https-h1" and s["step"] != 2}
    assert 1 < len(h1) <= 2, h1  # max_parallel 2 per origin


@needs_core
def test_android_pixel_8_measures_the_reference_target(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    batches = backend.batches[run_id]
    assert [b["batch_seq"] for b in batches] == [0, 1]
    assert [b["block"] for b in batches] == [0, 1]
    for batch in batches:
        assert_real_block(batch, SPEC["arms"])
    fingerprint = finish["fingerprint"]
    assert fingerprint["platform"] == "android"
    assert fingerprint["model"] == "Pixel 8"
    assert fingerprint["device"]["manufacturer"] == "Google"
    # The simulator's phone is the JVM stand-in, and both the device tools and the harness say so.
    assert fingerprint["device"]["stand_in"] == "jvm"
    assert fingerprint["harness_version"].endswith("(jvm)")
    assert fingerprint["client_stacks"]
    # The runner names the reference target it sent the phone to; this harness reads no Server headers.
    assert fingerprint["server_stacks"] == {
        arm["label"]: {"target": "reference", "software": reference_target_software(arm["protocol"]),
                       "server_headers": None} for arm in SPEC["arms"]}
    assert sorted(artifact_names(backend, run_id)) == ["a1-block-0-fastlane.log", "a1-block-0-result.json",
                                                       "a1-block-1-fastlane.log", "a1-block-1-result.json"]
    # The raw result kept as an artifact is the document the samples came from.
    raw = json.loads(artifact(backend, run_id, "block-1-result.json"))
    assert without_nulls(raw["samples"]) == without_nulls(batches[1]["samples"])


@needs_core
def test_android_unplugged_after_one_block_keeps_the_first(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL, unplug_after_blocks=1)])
    run_id, finish = execute(lab.android_driver(reference), backend, PIXEL)
    assert (finish["status"], finish["error_kind"]) == ("infra_error", "device_lost")
    assert [b["block"] for b in backend.batches[run_id]] == [0]


@needs_core
def test_ios_stand_in_measures_through_the_exchange(lab, backend, reference, exchange):
    lab.set(ios=[scenario.ios_device(IPHONE)])
    run_id, finish = execute(lab.ios_driver(reference, exchange), backend, IPHONE)
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    for batch in backend.batches[run_id]:
        assert_real_block(batch, SPEC["arms"])
    assert finish["fingerprint"]["platform"] == "ios"
    assert finish["fingerprint"]["model"] == "iPhone 15 Pro"


@needs_core
@pytest.mark.skipif(os.geteuid() != 0, reason="the emulated link needs root (network namespaces)")
def test_android_under_a_network_profile_runs_behind_the_emulated_link(lab, backend, reference):
    lab.set(android=[scenario.android_device(PIXEL)])
    driver = lab.android_driver(reference, link_mode="namespace")
    spec = {**SPEC, "blocks": 1}
    run_id, finish = execute(driver, backend, PIXEL, spec=spec, network_profile={"name": "transatlantic"})
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    batch, = backend.batches[run_id]
    assert_real_block(batch, spec["arms"])
    # transatlantic: 95 ms RTT. A new connection's TCP connect crosses it once, so it cannot
    # be faster than the emulated delay (a floor, not a timing: load only adds to it).
    first = next(s for s in batch["samples"] if s["conn_start"] is not None)
    connect_ms = ((first["tls_start"] or first["conn_ready"]) - first["conn_start"]) / 1000
    assert connect_ms > 85, connect_ms
    assert finish["link"]["profile"] == "transatlantic"
    assert finish["link"]["applied"]


@needs_core
def test_ap_shaped_run_records_the_applied_profile_and_the_measured_link(lab, backend, reference):
    # The phone's address is loopback here, so the link measurement never leaves this host.
    lab.set(android=[scenario.android_device(PIXEL, wifi_ip="127.0.0.1")])
    shaper = WifiShaper(WifiInterfaces("wlan0"), runner=TcRecorder(), probe=shapes_here)
    driver = lab.android_driver(reference, link_mode="ap-netem", shaper=shaper)
    run_id, finish = execute(driver, backend, PIXEL, spec={**SPEC, "blocks": 1}, network_profile={"name": "lte"})
    assert finish is not None, finish
    assert finish["status"] == "ok", finish
    link = finish["link"]
    assert (link["profile"], link["backend"], link["interface"], link["address"]) == ("lte", "netem-ap", "wlan0",
                                                                                      "127.0.0.1")
    assert link["applied"]["down"]["rate_kbit"] == 12000
    assert link["measured"]["icmp_to_device"] is None or link["measured"]["icmp_to_device"]["n"] > 0
