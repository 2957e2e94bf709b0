"""Job and result documents (contract/README.md "Job and result documents"): every valid
example validates, every invalid one is rejected with an error naming the bad field's
path, and the result schema's reference to the sample schema resolves locally."""

import json
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from latencylab_contract import contract_dir
from latencylab_contract.validation import ContractError, iter_errors, validate

CONTRACT = contract_dir()
PACKAGE_ROOT = CONTRACT.parent  # device-runner/contract: the pyproject beside the package
EXAMPLES = CONTRACT / "examples"

# The field path (and a word of the message) each invalid example must be rejected with.
EXPECTED_ERRORS = {
    "invalid-job-bad-method.json": ("requests.0.method", "FETCH"),
    "invalid-job-missing-origin.json": ("arms.0", "'origin' is a required property"),
    "invalid-job-negative-seq.json": ("requests.2.seq", "minimum"),
    "invalid-job-pinned-not-an-address.json": ("pinned_addresses.api.example.com", "does not match"),
    "invalid-job-non-http-origin.json": ("arms.0.origin", "does not match"),
    "invalid-job-unknown-protocol.json": ("arms.1.protocol", "spdy"),
    "invalid-job-unknown-request-field.json": ("requests.1", "'url' was unexpected"),
    "invalid-result-bad-status.json": ("status", "partial"),
    "invalid-result-missing-client-stacks.json": ("fingerprint", "'client_stacks' is a required property"),
    "invalid-result-sample-bad-field.json": ("samples.0.resp_end", "minimum"),
    "invalid-result-server-stack-unknown-target.json": ("fingerprint.server_stacks.mine.target", "staging"),
    "invalid-job-lab-network-not-cidr.json": ("readiness.lab_networks.1", "does not match"),
    "invalid-result-thermal-status-other-platform.json": ("fingerprint.thermal_status", "serious"),
    "invalid-result-readiness-unknown-interface.json": ("readiness.interface", "bluetooth"),
}


def _kind(path: Path) -> str:
    return path.name.split("-")[1] if path.name.startswith("invalid-") else path.name.split("-")[0]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("job-*.json")) + sorted(EXAMPLES.glob("result-*.json")),
                         ids=lambda p: p.name)
def test_valid_documents_pass(path):
    validate(json.loads(path.read_text()), _kind(path))


def test_every_invalid_document_example_is_listed():
    found = {p.name for p in EXAMPLES.glob("invalid-job-*.json")} | {p.name for p in
                                                                      EXAMPLES.glob("invalid-result-*.json")}
    assert found == set(EXPECTED_ERRORS)


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_invalid_documents_rejected_naming_the_field(name):
    path = EXAMPLES / name
    doc = json.loads(path.read_text())
    field, words = EXPECTED_ERRORS[name]
    with pytest.raises(ContractError) as caught:
        validate(doc, _kind(path))
    assert any(e.startswith(f"{field}: ") and words in e for e in caught.value.errors), caught.value.errors


def test_the_same_document_is_valid_once_the_field_is_fixed():
    """The invalid examples differ from a valid document only in the named field."""
    doc = json.loads((EXAMPLES / "invalid-job-bad-method.json").read_text())
    doc["requests"][0]["method"] = "GET"
    assert list(iter_errors(doc, "job")) == []


def test_server_stacks_are_optional_so_older_harnesses_stay_valid():
    """Phones in the field run harnesses that predate server_stacks: their fingerprints
    (result-series-ok.json has none) must keep validating."""
    doc = json.loads((EXAMPLES / "result-host-server-stacks.json").read_text())
    del doc["fingerprint"]["server_stacks"]
    assert list(iter_errors(doc, "result")) == []
    with_stacks = json.loads((EXAMPLES / "result-host-server-stacks.json").read_text())
    with_stacks["fingerprint"]["server_stacks"]["h2"]["server_headers"] = ["a", "b", "c", "d"]
    errors = list(iter_errors(with_stacks, "result"))
    assert any(e.startswith("fingerprint.server_stacks.h2.server_headers: ") for e in errors), errors


def test_readiness_thermal_status_and_issue_times_are_optional_so_older_harnesses_stay_valid():
    """A harness that predates the readiness check, the phone's thermal status and the
    monotonic issue time (result-series-ok.json has none of them) stays valid; the new
    example carries all three."""
    old = json.loads((EXAMPLES / "result-series-ok.json").read_text())
    assert "readiness" not in old
    assert "thermal_status" not in old["fingerprint"]
    assert all("issued_mono_us" not in sample for sample in old["samples"])
    assert list(iter_errors(old, "result")) == []
    new = json.loads((EXAMPLES / "result-android-readiness.json").read_text())
    assert new["readiness"]["on_lab_network"] is True
    assert new["fingerprint"]["thermal_status"] == "none"
    assert [s["issued_mono_us"] for s in new["samples"]] == sorted(s["issued_mono_us"] for s in new["samples"])
    new["readiness"] = None
    new["fingerprint"]["thermal_status"] = None
    assert list(iter_errors(new, "result")) == []


def test_thermal_status_names_are_the_platforms_own():
    """Android's names on an android fingerprint, iOS's on an ios one, none on the host."""
    doc = json.loads((EXAMPLES / "result-ios-not-ready-cellular.json").read_text())
    for status, platform, valid in (("serious", "ios", True), ("severe", "ios", False), ("severe", "android", True),
                                    ("critical", "ios", True), ("critical", "android", True),
                                    ("nominal", "android", False), ("none", "host", False), (None, "host", True)):
        doc["fingerprint"].update(platform=platform, thermal_status=status)
        errors = list(iter_errors(doc, "result"))
        assert (errors == []) is valid, (status, platform, errors)


def test_a_not_ready_result_measured_nothing_and_says_why():
    doc = json.loads((EXAMPLES / "result-ios-not-ready-cellular.json").read_text())
    assert doc["status"] == "not_ready"
    assert doc["samples"] == []
    assert doc["readiness"]["on_lab_network"] is False
    assert doc["readiness"]["error"] == doc["error"]


def test_unknown_schema_name_is_refused():
    with pytest.raises(ValueError, match="schema must be one of"):
        validate({}, "batch")


def test_result_validation_resolves_the_sample_reference_without_network(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("contract validation tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    doc = json.loads((EXAMPLES / "result-series-ok.json").read_text())
    validate(doc, "result")
    doc["samples"][1]["error_class"] = "gremlins"
    with pytest.raises(ContractError, match=r"samples\.1\.error_class"):
        validate(doc, "result")


def test_wheel_ships_every_contract_file_and_the_installed_copy_validates(tmp_path):
    """The wheel carries the schemas, the examples and the address-policy vectors as package
    data, so an installation (no repository around it) validates with the same files; the
    $ref still resolves there."""
    # Built from a clean copy: setuptools reuses an in-tree build/ and would ship files
    # deleted from the source since (a stale build/lib is not the wheel users get).
    source = tmp_path / "src"
    shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", "tests"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path / "dist")], check=True, capture_output=True, timeout=300)
    wheel, = (tmp_path / "dist").glob("latencylab_contract-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"latencylab_contract/{p.relative_to(CONTRACT)}" for p in CONTRACT.rglob("*.json")}
    assert {"latencylab_contract/sample.schema.json", "latencylab_contract/target-policy-vectors.json",
            "latencylab_contract/examples/result-series-ok.json"} <= expected
    assert expected <= names
    assert {"latencylab_contract/verdict_numbers.py", "latencylab_contract/validation.py"} <= names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("import json, latencylab_contract as c, latencylab_contract.validation as v; d = c.contract_dir(); "
             f"assert d == __import__('pathlib').Path({str(site)!r}) / 'latencylab_contract', d; "
             "v.validate(json.load(open(d / 'examples' / 'result-series-ok.json')), 'result'); "
             "v.validate(json.load(open(d / 'examples' / 'job-api-grpc-cold.json')), 'job'); print('ok')")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
