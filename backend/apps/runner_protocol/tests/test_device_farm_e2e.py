"""The device farm end to end through the real service, as a lab and a user would use it:
an org admin creates a pool enrollment token through the API; `latencylab-runner
register` (the real CLI) enrolls the lab host and writes its 0600 config; `latencylab-
runner run` starts the real agent with the host, android and ios drivers; the phones are
the runner package's phone simulator (`latencylab-phone-simulator`: the real adb client
against a simulated adb server, simulated libimobiledevice tools and fastlane) whose
harness is the real Kotlin core on the JVM measuring the real reference target
(testing/device_lab.py). A comparison across
the three platforms runs one run per device and is measured, stored, analysed and judged
per device — submitted through the API and through the `latencylab` CLI. Then the failure
path: a phone unplugged mid-block, the retry on another phone, quarantine after three
failures and the admin's release. And who is blamed: a comparison whose endpoint does not
resolve fails alone, a crashed harness fails its run without quarantining the phone, and a
reference target that is down trips the runner's breaker, not the devices."""

import json
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from latencylab_tools.target import content, start_target
from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import api_token_create, user_ensure_member
from apps.comparisons.models import Comparison, Run
from apps.devices.models import Device
from apps.results.models import Sample
from config.celery import app as celery_app
from testing.device_lab import FakeLab, RunnerProcess, runner_configure, runner_register
from testing.waiting import wait_for

PIXEL = "R5CT1234"
GALAXY = "RFCX21"
IPHONE = "00008130-001A2C3E0E38001C"  # the fakes' iPhone16,1 ("Lab iPhone 15 Pro")
HOST = "host-lab-1"
LATENCYLAB_CLI = str(Path(sys.executable).with_name("latencylab"))
# Every platform measures h2 and h3 (iOS has no h1: platforms.py); one run lands on each device.
# The preset's concurrency (parallel 4: a series issued at once) runs on every platform.
FARM_SPEC = {
    "name": "farm: h2 vs h3 on host, Pixel 8 and iPhone", "preset": "mid-image-series",
    "workload": {"kind": "series", "periods": [3], "repetitions": 2},
    "arms": [{"label": "h2", "protocol": "h2"}, {"label": "h3", "protocol": "h3"}], "baseline_arm": "h2",
    "devices": {"pool": "local", "platforms": ["host", "android", "ios"], "count": 3},
    "blocks": 2, "seed": 7,
}
# Per run: 2 blocks × (one warm-up per arm + one series of 3 per arm).
SAMPLES_PER_RUN = 2 * (2 + 2 * 3)
ANDROID_SPEC = {"name": "farm: one Android phone", "preset": "mid-image-series",
                "workload": {"kind": "series", "periods": [3], "repetitions": 1, "concurrency": "sequential"},
                "devices": {"pool": "local", "platforms": ["android"], "count": 1}, "blocks": 1, "seed": 3}
EXIT = {"regression": 1, "inconclusive": 0, "improvement": 0, "equivalent": 0}
TERMINAL_S = 240

# Real agents and phones mostly waiting on them: a suite of its own beside the backend's (test-all.sh).
pytestmark = pytest.mark.beside


@pytest.fixture
def target(tmp_path):
    """The reference target (h1c, TLS h1/h2/gRPC, h3) the host probe and the phones' harness measure."""
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls") as running:
        yield running


@pytest.fixture
def admin(org):
    user = user_ensure_member(organization=org, username="lab-admin", password="pw-lab-admin-1",
                              role=Membership.Role.ADMIN)
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def worker():
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


@pytest.fixture
def enroll(admin, pool, live_server, target, tmp_path):
    """enroll(name, drivers, lab) → the running `latencylab-runner run` of a freshly enrolled lab host."""
    runners: list[RunnerProcess] = []

    def _enroll(name: str, drivers: str, lab: FakeLab, target_port: int | None = None) -> RunnerProcess:
        created = admin.post("/api/v1/pools/local/enrollment-tokens", {"name": f"{name} lab"}, format="json")
        assert created.status_code == 201, created.content
        config = tmp_path / name / "runner.json"
        done = runner_register(server=live_server.url, enrollment_token=created.json()["token"], name=name,
                               config=config, drivers=drivers)
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        assert json.loads(config.read_text())["pool"] == "local"
        runner_configure(config, {
            **lab.runner_settings, "heartbeat_interval_s": 1,
            # `target_port`: a reference target that is down (nothing listens there).
            "target": {"host": "127.0.0.1", "plain_port": target_port or target.plain_port,
                       "tls_port": target_port or target.tls_port, "server_name": "localhost",
                       "ca_file": str(target.ca_file),
                       # Judged against the CA the JVM phones trust (docs/device-lab.md §4).
                       "cert_file": str(Path(target.ca_file).with_name("server.pem")),
                       "key_file": str(Path(target.ca_file).with_name("server.key")),
                       "trust_store": str(target.ca_file)}})
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        runner = RunnerProcess(config, lab.env, tmp_path / f"{name}.log")
        runners.append(runner)
        return runner

    yield _enroll
    for runner in runners:
        assert runner.stop() == 0, runner.tail()  # SIGTERM drains and exits 0


def devices_by_serial(client: APIClient) -> dict[str, dict]:
    return {d["serial"]: d for d in client.get("/api/v1/devices?page_size=200").json()["results"]}


def wait_devices(client: APIClient, runner: RunnerProcess, expected: dict[str, str]) -> dict[str, dict]:
    """Until every serial shows in the Devices API in its expected state."""
    def seen():
        devices = devices_by_serial(client)
        return all(serial in devices and devices[serial]["state"] == state for serial, state in expected.items())
    assert wait_for(seen, 60), ({serial: (d["state"], d["state_reason"], d["consecutive_infra_failures"])
                                 for serial, d in devices_by_serial(client).items()}, runner.tail())
    return devices_by_serial(client)


def wait_comparison(client: APIClient, comparison_id: str, runner: RunnerProcess) -> dict:
    done = wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, TERMINAL_S)
    detail = client.get(f"/api/v1/comparisons/{comparison_id}").json()
    assert done, (detail["status"], detail.get("error"),
                  [(r["status"], r["error"]) for r in detail["runs"]],
                  runner.tail())
    assert detail["status"] == "finished", (detail["status"], detail.get("error"),
                                            [(r["status"], r["error"]) for r in detail["runs"]],
                                            runner.tail())
    return detail


def the_run(client: APIClient, comparison_id: str) -> dict:
    """The comparison's one run ({} until the worker planned it)."""
    runs = client.get(f"/api/v1/comparisons/{comparison_id}").json()["runs"]
    assert len(runs) <= 1, runs
    return runs[0] if runs else {}


def assert_measured_for_real(comparison_id: str, detail: dict) -> None:
    """Every stored sample is a real response of the reference target: 200, the object's
    exact size, the arm's protocol as negotiated."""
    sizes = content.file_sizes()
    for run in detail["runs"]:
        samples = list(Sample.objects.filter(run_id=run["id"]).values("arm__protocol", "phase", "path", "status",
                                                                      "resp_bytes", "alpn", "error_class",
                                                                      "in_flight"))
        assert len(samples) == SAMPLES_PER_RUN, (run["device"], len(samples))
        assert {s["phase"] for s in samples} == {"warmup", "measure"}
        for s in samples:
            name = s["path"].removeprefix("/files/")
            assert (s["error_class"], s["status"], s["alpn"]) == (None, 200, s["arm__protocol"]), (run["device"], s)
            assert s["resp_bytes"] == sizes[name], (run["device"], s)
        # Each series of 3 was issued at once: its requests were in flight together, on every platform.
        assert max(s["in_flight"] for s in samples if s["phase"] == "measure") > 1, (run["device"], samples)
        assert {s["in_flight"] for s in samples if s["phase"] == "warmup"} == {1}, (run["device"], samples)


@pytest.mark.django_db(transaction=True)
def test_a_comparison_runs_on_a_host_an_android_phone_and_an_iphone(admin, api, enroll, worker, tmp_path):
    with FakeLab(tmp_path / "lab", {"android": [{"serial": PIXEL, "model": "Pixel 8"}],
                                    "ios": [{"udid": IPHONE}]}) as lab:
        runner = enroll("lab-1", "host,android,ios", lab)

        # The phones appear with their fingerprint and health, as the tools report them.
        devices = wait_devices(admin, runner, {HOST: "available", PIXEL: "available", IPHONE: "available"})
        pixel, iphone, host = devices[PIXEL], devices[IPHONE], devices[HOST]
        assert (pixel["platform"], pixel["model"], pixel["os_version"]) == ("android", "Pixel 8", "14")
        assert (pixel["battery"], pixel["charging"], pixel["temperature"], pixel["thermal_status"]) == (
            87.0, True, 31.5, "none")
        assert pixel["fingerprint"]["manufacturer"] == "Google"
        assert pixel["fingerprint"]["build"] == "AP2A.240805.005"
        assert (iphone["platform"], iphone["model"], iphone["os_version"]) == ("ios", "iPhone 15 Pro", "17.5.1")
        assert (iphone["battery"], iphone["charging"], iphone["temperature"]) == (90.0, True, 29.11)
        assert iphone["fingerprint"]["device_name"] == "Lab iPhone 15 Pro"
        assert iphone["capabilities"]["protocols"] == ["h2", "h3", "grpc"]  # no h1 on iOS
        # The simulator's phones are marked as the JVM stand-in they are; the host runner is itself.
        assert (pixel["stand_in"], iphone["stand_in"]) == ("jvm", "jvm")
        assert devices[HOST]["stand_in"] is None
        assert host["platform"] == "host"
        assert host["runner"]["name"] == "lab-1"
        assert sorted(admin.get("/api/v1/runners").json()["results"][0]["drivers"]) == ["android", "host", "ios"]

        # An arm the iPhone cannot measure is refused before anything is created.
        refused = api.post("/api/v1/comparisons", {**FARM_SPEC, "arms": [{"label": "https-h1", "protocol": "h1"},
                                                                         {"label": "h2", "protocol": "h2"}],
                                                   "baseline_arm": "https-h1"}, format="json")
        assert refused.status_code == 400
        assert "ios devices cannot run arm 'https-h1'" in str(refused.json())

        created = api.post("/api/v1/comparisons", FARM_SPEC, format="json")
        assert created.status_code == 201, created.content
        comparison_id = created.json()["id"]
        detail = wait_comparison(api, comparison_id, runner)

    # Three runs done, one on each device of each platform.
    runs = {run["device"]: run for run in detail["runs"]}
    assert set(runs) == {HOST, PIXEL, IPHONE}
    assert {r["status"] for r in runs.values()} == {"done"}
    assert {serial: run["fingerprint"]["platform"] for serial, run in runs.items()} == {
        HOST: "host", PIXEL: "android", IPHONE: "ios"}
    assert runs[PIXEL]["fingerprint"]["model"] == "Pixel 8"
    assert runs[PIXEL]["fingerprint"]["battery"] == 87.0
    # Each run says whether a phone measured it, and so does the shareable report.
    assert {serial: run["stand_in"] for serial, run in runs.items()} == {HOST: None, PIXEL: "jvm", IPHONE: "jvm"}
    shared = api.post(f"/api/v1/comparisons/{comparison_id}/shares", {}, format="json")
    assert shared.status_code == 201, shared.content
    visitor = APIClient(REMOTE_ADDR="192.0.2.41")  # anyone with the link, counted apart by the public throttle
    public_report = visitor.get(f"/api/v1/public/reports/{shared.json()['token']}")
    assert public_report.status_code == 200, public_report.content
    reported = public_report.json()["method"]["runs"]
    assert sorted((r["fingerprint"]["platform"], r["stand_in"]) for r in reported) == [
        ("android", "jvm"), ("host", None), ("ios", "jvm")]
    for serial in (PIXEL, IPHONE):
        stacks = runs[serial]["fingerprint"]["client_stacks"]
        assert stacks["h2"].startswith("okhttp"), stacks
        assert stacks["h3"], stacks
    assert_measured_for_real(comparison_id, detail)

    # The phone runs kept their evidence: each block's fastlane log and raw result, downloadable.
    for serial in (PIXEL, IPHONE):
        listed = api.get(f"/api/v1/comparisons/{comparison_id}/runs/{runs[serial]['id']}/artifacts").json()
        names = sorted(a["name"] for a in listed)
        assert names == ["a1-block-0-fastlane.log", "a1-block-0-result.json", "a1-block-1-fastlane.log",
                         "a1-block-1-result.json"], names
        by_name = {a["name"]: a for a in listed}
        log = api.get(by_name["a1-block-1-fastlane.log"]["download_url"])
        assert log.status_code == 200
        assert "attachment" in log["Content-Disposition"]
        assert "fastlane.tools finished successfully" in b"".join(log.streaming_content if log.streaming else
                                                                 [log.content]).decode()
        raw = api.get(by_name["a1-block-1-result.json"]["download_url"])
        result = json.loads(b"".join(raw.streaming_content if raw.streaming else [raw.content]))
        assert result["contract"] == "latencylab.result/v1"
        assert result["fingerprint"]["platform"] == (
            "android" if serial == PIXEL else "ios")

    # Results and verdicts per device.
    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    groups = {g["device"]: g for g in results["groups"]}
    assert set(groups) == {HOST, PIXEL, IPHONE}
    for group in groups.values():
        for arm in ("h2", "h3"):
            assert group["requests"][arm]["n"] > 0, group["requests"]
            assert group["requests"][arm]["errors"] == 0, group["requests"]
    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict")
    assert verdict.status_code == 200, verdict.content
    rows = verdict.json()["verdicts"]
    assert {(v["device"], v["arm"], v["baseline_arm"]) for v in rows} == {
        (HOST, "h3", "h2"), (PIXEL, "h3", "h2"), (IPHONE, "h3", "h2")}
    assert all(v["outcome"] in EXIT for v in rows)


@pytest.mark.django_db(transaction=True)
def test_the_cli_gates_a_comparison_across_the_three_platforms(org, enroll, worker, live_server, tmp_path):
    _, ci_token = api_token_create(organization=org, name="ci", scopes=["ci"])
    spec = tmp_path / "spec.yaml"
    # One block per device is enough for the gate to answer (inconclusive at worst) and halves the phones' time.
    spec.write_text(json.dumps({**FARM_SPEC, "name": "farm via the CLI", "blocks": 1}))  # JSON is YAML
    report = tmp_path / "verdict.json"
    with FakeLab(tmp_path / "lab", {"android": [{"serial": PIXEL, "model": "Pixel 8"}],
                                    "ios": [{"udid": IPHONE}]}) as lab:
        runner = enroll("lab-1", "host,android,ios", lab)
        done = subprocess.run([LATENCYLAB_CLI, "run", str(spec), "--wait", "--server", live_server.url, "--token",
                               ci_token, "--fail-on", "regression", "--format", "json", "--output", str(report),
                               "--timeout", str(TERMINAL_S)], capture_output=True, text=True, timeout=TERMINAL_S + 60)
    assert report.exists(), (done.returncode, done.stderr, runner.tail())
    document = json.loads(report.read_text())
    assert document["status"] == "finished", (document, runner.tail())
    outcomes = [v["outcome"] for v in document["verdicts"]]
    assert {v["device"] for v in document["verdicts"]} == {HOST, PIXEL, IPHONE}
    assert done.returncode == max(EXIT[o] for o in outcomes) == document["exit_code"], (done.returncode, outcomes)
    assert "verdict:" in done.stdout
    assert "h3 (series time) vs h2" in done.stdout  # the series gate judges series time


@pytest.mark.django_db(transaction=True)
def test_an_unplugged_phone_is_retried_elsewhere_then_quarantined_and_released(admin, api, enroll, worker,
                                                                                tmp_path):
    unplugging_pixel = {"serial": PIXEL, "model": "Pixel 8", "unplug_after_blocks": 0}
    galaxy = {"serial": GALAXY, "model": "Galaxy S24"}
    with FakeLab(tmp_path / "lab", {"android": [unplugging_pixel]}) as lab:
        runner = enroll("lab-2", "android", lab)
        wait_devices(admin, runner, {PIXEL: "available"})

        # 1. The cable is pulled mid-block: the run is requeued, the phone shows offline.
        first = api.post("/api/v1/comparisons", ANDROID_SPEC, format="json").json()["id"]
        assert wait_for(lambda: the_run(api, first).get("error_kind") == "device_lost", 60), runner.tail()
        run = the_run(api, first)
        assert (run["status"], run["attempt"]) == ("queued", 1)
        assert run["error"].startswith(
            f"attempt 1 on Pixel 8 ({PIXEL}): device_lost: ")
        wait_devices(admin, runner, {PIXEL: "offline"})

        # 2. Another Android phone is plugged in: the run is retried there and finishes.
        lab.set({"android": [galaxy]})
        detail = wait_comparison(api, first, runner)
        (run,) = detail["runs"]
        assert (run["device"], run["status"], run["attempt"]) == (GALAXY, "done", 2)
        assert len(Sample.objects.filter(run_id=run["id"])) == 2 + 2 * 3
        # The failed attempt kept its lane log (the unplug is in it), on the phone it ran on.
        artifacts = {a["name"]: a for a in api.get(
            f"/api/v1/comparisons/{first}/runs/{run['id']}/artifacts").json()}
        assert artifacts["a1-block-0-fastlane.log"]["device"] == PIXEL
        assert {"a2-block-0-fastlane.log", "a2-block-0-result.json"} <= set(artifacts)

        # 3. Only the unplugging Pixel is left: two more failures in a row quarantine it.
        lab.set({"android": [unplugging_pixel]})
        wait_devices(admin, runner, {PIXEL: "available", GALAXY: "offline"})
        second = api.post("/api/v1/comparisons", ANDROID_SPEC, format="json").json()["id"]
        assert wait_for(lambda: the_run(api, second).get("error_kind") == "device_lost", 60), runner.tail()
        lab.set({"android": [unplugging_pixel]})  # plugged back in: it fails the run's second attempt too
        devices = wait_devices(admin, runner, {PIXEL: "quarantined"})
        reason = devices[PIXEL]["state_reason"]
        assert reason.startswith("3 consecutive infrastructure failures — device_lost: "), reason
        assert devices[PIXEL]["can_release"] is True
        run = the_run(api, second)
        assert (run["status"], run["attempt"]) == ("queued", 2)
        assert f"Pixel 8 ({PIXEL}) quarantined: 3 consecutive infrastructure failures" in run["waiting_for"], run[
            "waiting_for"]

        # 4. Plugged in healthy, it stays quarantined until the admin releases it; then it runs.
        lab.set({"android": [{"serial": PIXEL, "model": "Pixel 8"}]})
        # The runner reports it available; the service keeps it quarantined and leases it nothing.
        assert wait_for(lambda: Device.objects.get(serial=PIXEL).reported_state == "available", 60), runner.tail()
        assert devices_by_serial(admin)[PIXEL]["state"] == "quarantined"
        assert the_run(api, second)["status"] == "queued"
        released = admin.post(f"/api/v1/devices/{devices[PIXEL]['id']}/release")
        assert released.status_code == 200, released.content
        detail = wait_comparison(api, second, runner)
        (run,) = detail["runs"]
        assert (run["device"], run["status"], run["attempt"]) == (PIXEL, "done", 3)

    history = admin.get(f"/api/v1/devices/{devices[PIXEL]['id']}").json()["state_changes"]
    release = next(c for c in history if c["from_state"] == "quarantined")
    assert release["changed_by"] == "lab-admin"
    assert Run.objects.get(pk=run["id"]).attempts.count() == 3



def wait_ended(client: APIClient, comparison_id: str, runner: RunnerProcess) -> dict:
    """Until the comparison is terminal, whatever the ending; its detail."""
    done = wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, TERMINAL_S)
    detail = client.get(f"/api/v1/comparisons/{comparison_id}").json()
    assert done, (detail["status"], [(r["status"], r["error"]) for r in detail["runs"]], runner.tail())
    return detail


HOST_SPEC = {"name": "farm: the host", "preset": "mid-image-series",
             "workload": {"kind": "series", "periods": [3], "repetitions": 1, "concurrency": "sequential"},
             "devices": {"pool": "local", "platforms": ["host"], "count": 1}, "blocks": 1, "seed": 5}


@pytest.mark.django_db(transaction=True)
def test_an_endpoint_that_does_not_resolve_fails_its_comparison_alone(admin, api, enroll, worker, tmp_path):
    """A typo in a private pool's endpoint (the reserved `.invalid` TLD: real DNS never
    resolves it): a warning at submit, then the comparison fails naming the arm and the
    endpoint, the device is not blamed, and the next comparison runs on it."""
    with FakeLab(tmp_path / "lab", {"android": []}) as lab:
        runner = enroll("lab-typo", "host", lab)
        host = "host-lab-typo"  # the host driver's device is named after its runner
        wait_devices(admin, runner, {host: "available"})
        typo = {**HOST_SPEC, "name": "typo", "arms": [
            {"label": "h2", "protocol": "h2"},
            {"label": "mine", "protocol": "h2", "endpoint": "https://api.typo.invalid/"}], "baseline_arm": "h2"}
        created = api.post("/api/v1/comparisons", typo, format="json")
        assert created.status_code == 201, created.content
        assert [w["field"] for w in created.json()["warnings"]] == ["arms.1.endpoint"]
        detail = wait_ended(api, created.json()["id"], runner)
        assert detail["status"] == "failed", (detail["status"], detail["error"])
        assert detail["error"].startswith("target_unreachable: arm 'mine' endpoint https://api.typo.invalid/: "
                                          "name does not resolve"), detail["error"]
        (run,) = detail["runs"]
        assert (run["status"], run["error_kind"], run["attempt"]) == ("failed", "target_unreachable", 1)

        after = api.post("/api/v1/comparisons", HOST_SPEC, format="json").json()["id"]
        (run,) = wait_comparison(api, after, runner)["runs"]
        assert (run["device"], run["status"], run["attempt"]) == (host, "done", 1)
        # The comparison ends before the runner reports its device free again: wait for that.
        shown = wait_devices(admin, runner, {host: "available"})[host]
        assert shown["consecutive_infra_failures"] == 0


@pytest.mark.django_db(transaction=True)
def test_a_harness_crash_fails_the_run_and_does_not_quarantine_the_phone(admin, api, enroll, worker, tmp_path):
    crashing = {"serial": PIXEL, "model": "Pixel 8", "instrumentation": "crash"}
    with FakeLab(tmp_path / "lab", {"android": [crashing]}) as lab:
        runner = enroll("lab-crash", "android", lab)
        wait_devices(admin, runner, {PIXEL: "available"})
        for attempt in range(3):  # as many as would have quarantined it
            comparison = api.post("/api/v1/comparisons", {**ANDROID_SPEC, "name": f"crash {attempt}"},
                                  format="json").json()["id"]
            detail = wait_ended(api, comparison, runner)
            (run,) = detail["runs"]
            assert (run["status"], run["error_kind"], run["attempt"]) == ("failed", "test_failure", 1), run["error"]
            assert "the harness process crashed on the device" in run["error"], run["error"]
        pixel = wait_devices(admin, runner, {PIXEL: "available"})[PIXEL]
        assert pixel["consecutive_infra_failures"] == 0
        (shown,) = admin.get("/api/v1/runners").json()["results"]
        assert shown["breaker"]["tripped"] is False


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.django_db(transaction=True)
def test_a_reference_target_that_is_down_trips_the_runners_breaker_not_the_devices(admin, api, enroll, worker,
                                                                                   tmp_path, closed_port):
    with FakeLab(tmp_path / "lab", {"android": [{"serial": PIXEL, "model": "Pixel 8"}]}) as lab:
        runner = enroll("lab-down", "host,android", lab, target_port=closed_port)
        host = "host-lab-down"
        wait_devices(admin, runner, {host: "available", PIXEL: "available"})
        first = api.post("/api/v1/comparisons", HOST_SPEC, format="json").json()["id"]
        detail = wait_ended(api, first, runner)
        (run,) = detail["runs"]
        assert (run["status"], run["error_kind"]) == ("failed", "lab_fault"), run["error"]
        assert f"the lab's reference target 127.0.0.1:{closed_port} (arm 'https-h1') unreachable" in run["error"]

        (shown,) = admin.get("/api/v1/runners").json()["results"]
        assert shown["breaker"]["tripped"] is True, shown
        assert shown["breaker"]["reason"].startswith("3 consecutive lab faults — lab_fault: "), shown
        assert shown["can_reset_breaker"] is True
        # The comparison ends before the runner reports its host device free again: wait for that.
        devices = wait_devices(admin, runner, {host: "available", PIXEL: "available"})
        assert {serial: (d["state"], d["consecutive_infra_failures"]) for serial, d in devices.items()} == {
            host: ("available", 0), PIXEL: ("available", 0)}

        # Nothing is leased to its devices until the lab is fixed; the waiting comparison says why.
        waiting = api.post("/api/v1/comparisons", HOST_SPEC, format="json").json()["id"]
        assert wait_for(lambda: (the_run(api, waiting).get("waiting_for") or "").startswith(
            "no host device of pool 'local' can take it: runner lab-down's breaker is tripped"), 60), (
            the_run(api, waiting), runner.tail())
        assert Comparison.objects.get(pk=waiting).status == Comparison.Status.QUEUED
