"""The ingestion validators against the wire contract: each must give the JSON Schema's
verdict (device-runner/contract/latencylab_contract/sample.schema.json via latencylab_contract.validation) on
every example document, so the fast path can't drift from the contract."""

import json

import latencylab_contract as contract
import msgspec
import pytest
from latencylab_contract.validation import iter_sample_errors
from rest_framework import serializers

from apps.results.ingest import SampleIn, batch_decode, sample_errors, samples_validate

EXAMPLES = contract.contract_dir() / "examples"
SAMPLE_EXAMPLES = sorted(p for p in EXAMPLES.glob("*.json") if p.name.startswith(("sample-", "invalid-sample-")))


def schema_errors(doc):
    return list(iter_sample_errors(doc))


def fast_verdict(doc) -> bool:
    """The endpoint's path: decode the upload in C, then the run-context checks."""
    body = json.dumps({"lease_token": "t", "attempt": 1, "batch_seq": 0, "block": doc.get("block"), "samples": [doc]})
    batch = batch_decode(body.encode())
    try:
        samples_validate(batch["samples"], arms={doc.get("arm")}, block=doc.get("block"),
                         contract_error=batch.contract_error)
    except serializers.ValidationError:
        return False
    return batch.typed


def test_examples_exist():
    names = [p.name for p in SAMPLE_EXAMPLES]
    assert any(n.startswith("sample-") for n in names)
    assert any(n.startswith("invalid-") for n in names)


@pytest.mark.parametrize("path", SAMPLE_EXAMPLES, ids=lambda p: p.name)
def test_validators_agree_with_the_json_schema(path):
    doc = json.loads(path.read_text())
    valid = path.name.startswith("sample-")
    assert (schema_errors(doc) == []) is valid, path.name
    assert fast_verdict(doc) is valid, path.name
    thorough = sample_errors(doc, arms={doc.get("arm")}, block=doc.get("block"))
    assert (thorough == {}) is valid, (path.name, thorough)
    decoded_alone = True
    try:
        msgspec.json.decode(path.read_bytes(), type=SampleIn)
    except msgspec.ValidationError:
        decoded_alone = False
    assert decoded_alone is valid, path.name


def test_errors_name_the_sample_and_field_with_the_allowed_values():
    good = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    bad = [good, {**good, "app_done": -1}, {**good, "arm": "nope"}, {**good, "t0": 5}]
    batch = batch_decode(json.dumps({"block": good["block"], "samples": bad}).encode())
    assert not batch.typed
    assert batch.contract_error == {"samples[1].app_done": ["Expected `int` >= 0"]}
    with pytest.raises(serializers.ValidationError) as raised:
        samples_validate(batch["samples"], arms={good["arm"]}, block=good["block"],
                         contract_error=batch.contract_error)
    detail = raised.value.detail
    assert set(detail) == {"samples[1].app_done", "samples[2].arm", "samples[3].t0"}
    assert "≥ 0" in str(detail["samples[1].app_done"][0])


def test_msgspec_only_rejections_still_answer_400_with_a_field_path():
    good = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    body = json.dumps({"block": good["block"], "samples": [good, good]}).replace('"seq": 17', '"seq": 17.0', 1)
    batch = batch_decode(body.encode())
    assert batch.contract_error == {"samples[0].seq": ["Expected `int`, got `float`"]}
    with pytest.raises(serializers.ValidationError) as raised:
        samples_validate(batch["samples"], arms={good["arm"]}, block=good["block"],
                         contract_error=batch.contract_error)
    assert "samples[0].seq" in raised.value.detail


def test_unknown_and_missing_fields_are_named():
    good = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    extra = batch_decode(json.dumps({"samples": [{**good, "bogus": 1}]}).encode())
    assert list(extra.contract_error) == ["samples[0].bogus"]
    missing = dict(good)
    del missing["error_class"]
    batch = batch_decode(json.dumps({"samples": [missing]}).encode())
    assert list(batch.contract_error) == ["samples[0].error_class"]
    assert "error_class" in sample_errors(missing, arms={good["arm"]}, block=good["block"])


def test_a_valid_batch_is_typed_and_keeps_the_header_fields():
    good = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    batch = batch_decode(json.dumps({"lease_token": "t", "attempt": 2, "batch_seq": 3, "block": 1,
                                     "baseline": None, "samples": [good]}).encode())
    assert batch.typed
    assert isinstance(batch["samples"][0], SampleIn)
    assert {k: batch[k] for k in ("lease_token", "attempt", "batch_seq", "block", "baseline")} == {
        "lease_token": "t", "attempt": 2, "batch_seq": 3, "block": 1, "baseline": None}
