"""The iOS harness's project, checked where no Xcode runs: what project.yml generates (the
Info.plist keys, the signing the lab's config supplies) agrees with the docs, the Fastfile,
the runner and the Swift sources; the CI workflow that builds it on macOS runs the XCTest the
lanes run. The Swift itself compiles only there (.github/workflows/ios-harness.yml)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml
from latencylab_contract import contract_dir
from latencylab_contract.validation import validate

from latencylab_runner.drivers import ios_harness, outcome, xcresult
from latencylab_runner.phone_simulator import lab as lab_process

REPO = Path(__file__).resolve().parents[3]
IOS = REPO / "device-runner" / "harness" / "ios"
PROJECT = yaml.safe_load((IOS / "project.yml").read_text())
APP = PROJECT["targets"]["LatencyLabHarness"]
PLIST = APP["info"]["properties"]
DOCS = (REPO / "docs" / "device-lab.md").read_text()
README = (IOS / "README.md").read_text()
FASTFILE = (REPO / "device-runner" / "fastlane" / "Fastfile").read_text()
BENCH_TESTS = (IOS / "BenchTests" / "BenchTests.swift").read_text()
EXAMPLES = contract_dir() / "examples"


def swift(name):
    return (IOS / "BenchTests" / name).read_text()


def test_signing_and_bundle_ids_come_from_the_labs_config():
    assert PROJECT["options"]["bundleIdPrefix"] == "${" + ios_harness.PREFIX_ENV + "}"
    assert PROJECT["settings"]["base"]["DEVELOPMENT_TEAM"] == "${" + ios_harness.TEAM_ENV + "}"
    assert PROJECT["settings"]["base"]["CODE_SIGN_STYLE"] == "Automatic"
    # No fixed App ID anywhere a lab's build reads: App IDs are unique across Apple teams.
    for text in ((IOS / "project.yml").read_text(), FASTFILE.split("platform :ios do", 1)[1],
                 (REPO / "device-runner" / "fastlane" / "Appfile").read_text()):
        assert "dev.latencylab" not in re.sub(r"(?m)^\s*#.*$", "", text).split("for_platform :android")[0]
    for key in ("ios.team_id", "ios.bundle_id_prefix", ios_harness.TEAM_ENV, ios_harness.PREFIX_ENV,
                "-allowProvisioningUpdates", "-allowProvisioningDeviceRegistration"):
        assert key in DOCS, key
    # The simulator's lab signs with a made-up team of the right shape.
    ios = lab_process.runner_settings(Path("/tmp"))["ios"]
    assert re.fullmatch(r"[A-Z0-9]{10}", ios["team_id"])
    assert not ios["bundle_id_prefix"].startswith("dev.latencylab")


def test_app_transport_security_excepts_only_the_lab_network():
    """The job exchange is plain HTTP on the runner's lab address: NSAllowsLocalNetworking
    (IP addresses, unqualified and .local names) and nothing wider; named hosts keep ATS."""
    assert PLIST["NSAppTransportSecurity"] == {"NSAllowsLocalNetworking": True}
    assert "NSAllowsLocalNetworking" in DOCS
    assert "NSAllowsLocalNetworking" in README
    assert "NSAllowsArbitraryLoads" not in (IOS / "project.yml").read_text()


def test_the_local_network_prompt_says_why_in_the_docs_words():
    usage = PLIST["NSLocalNetworkUsageDescription"]
    assert len(usage) > 40
    assert usage in README, "harness/ios/README.md quotes the prompt's text"
    assert "Local Network" in DOCS
    assert "LatencyLabHarness" in DOCS


def test_the_harness_reports_what_the_runner_reads():
    access = swift("LabNetworkAccess.swift")
    markers = [marker for marker, _ in outcome.IOS_NOT_READY if marker.startswith("LatencyLab:")]
    assert markers == ["LatencyLab: Local Network access denied",
                       "LatencyLab: the runner's job exchange did not answer"]
    for marker in markers:
        assert f'"{marker}"' in access, marker
    assert ".localNetworkDenied" in access
    # The tests the lanes run by name, and the attachment the manifest is searched for.
    for test in re.findall(r'IOS_(?:BENCH|PROBE)_TEST = "LatencyLabBenchTests/BenchTests/(\w+)"', FASTFILE):
        assert f"func {test}()" in BENCH_TESTS, test
    assert f'attachment.name = "{xcresult.RESULT_ATTACHMENT}"' in BENCH_TESTS
    assert f'IOS_RESULT_ATTACHMENT = "{xcresult.RESULT_ATTACHMENT}"' in FASTFILE
    assert 'environment["LATENCYLAB_PROBE"]' in BENCH_TESTS


def test_the_idle_timer_is_off_while_a_block_runs_and_thermal_state_has_apples_names():
    assert "KeepAwake.during { BlockRunner().run(" in BENCH_TESTS
    keep_awake = swift("KeepAwake.swift")
    assert "UIApplication.shared.isIdleTimerDisabled = true" in keep_awake
    assert "UIApplication.shared.isIdleTimerDisabled = before" in keep_awake
    device_info = swift("IOSDeviceInfo.swift")
    for state in ("nominal", "fair", "serious", "critical"):
        assert f'case .{state}: return "{state}"' in device_info


def test_the_ci_workflow_builds_for_the_simulator_and_runs_the_xctest_against_the_target():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "ios-harness.yml").read_text())
    (job,) = workflow["jobs"].values()
    assert job["runs-on"].startswith("macos-")
    run = "\n".join(step.get("run", "") for step in job["steps"])
    assert "xcodegen generate" in run
    assert "latencylab-target --host 127.0.0.1" in run
    assert 'platform=iOS Simulator,name=$SIMULATOR' in run
    assert "-only-testing:LatencyLabBenchTests/BenchTests/testRunJob" in run
    assert "xcrun xcresulttool export attachments" in run
    assert "check_result.py" in run
    assert job["env"][ios_harness.PREFIX_ENV]
    assert not job["env"][ios_harness.PREFIX_ENV].startswith("dev.latencylab")
    assert "actionlint" in (REPO / "infra" / "bin" / "lint.sh").read_text()


def test_the_ci_scripts_write_a_valid_job_and_refuse_a_result_that_does_not_answer_it(tmp_path, tls_dir):
    job_path = tmp_path / "job.json"
    made = subprocess.run([sys.executable, str(IOS / "ci" / "make_job.py"), "--ca", str(tls_dir.ca_cert),
                           "--out", str(job_path)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    job = json.loads(job_path.read_text())
    validate(job, "job")
    assert [arm["label"] for arm in job["arms"]] == ["h2-warm", "h2-cold", "grpc-warm"]
    assert all(arm["ca_bundle_pem"].startswith("-----BEGIN CERTIFICATE-----") for arm in job["arms"])
    # A result of another run, attached as the harness attaches it: found by the manifest, refused.
    exported = tmp_path / "attachments"
    exported.mkdir()
    (exported / "0A.json").write_bytes((EXAMPLES / "result-series-ok.json").read_bytes())
    (exported / "manifest.json").write_text(json.dumps([{"testIdentifier": "BenchTests/testRunJob()", "attachments": [
        {"exportedFileName": "0A.json", "suggestedHumanReadableName": "latencylab-result_0_0A.json"}]}]))
    checked = subprocess.run([sys.executable, str(IOS / "ci" / "check_result.py"), "--attachments", str(exported),
                              "--job", str(job_path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 1
    assert "malformed_result: the result does not answer the job: run_id" in checked.stdout
