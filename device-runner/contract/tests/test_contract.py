import json

import pytest
from latencylab_contract import contract_dir
from latencylab_contract.validation import ContractError, iter_sample_errors, validate_sample

EXAMPLES = contract_dir() / "examples"
VALID = sorted(EXAMPLES.glob("sample-*.json"))
INVALID = sorted(EXAMPLES.glob("invalid-sample-*.json"))


def test_schemas_found_beside_the_loader():
    assert (contract_dir() / "sample.schema.json").is_file()


def test_examples_present():
    names = {p.name for p in VALID}
    assert {"sample-h1-cold.json", "sample-h2-warm-reused.json", "sample-h3-resumed-0rtt.json",
            "sample-error-connect.json"} <= names
    assert len(INVALID) >= 5


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_examples_pass(path):
    validate_sample(json.loads(path.read_text()))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_examples_rejected(path):
    doc = json.loads(path.read_text())
    with pytest.raises(ContractError):
        validate_sample(doc)
    assert list(iter_sample_errors(doc))


def test_errors_name_field_paths():
    doc = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    doc["resp_end"] = -3
    doc["error_class"] = "nope"
    errors = list(iter_sample_errors(doc))
    assert any(e.startswith("resp_end:") for e in errors)
    assert any(e.startswith("error_class:") for e in errors)
    with pytest.raises(ContractError, match="resp_end"):
        validate_sample(doc)


def test_reused_connection_example_has_null_connection_phases():
    doc = json.loads((EXAMPLES / "sample-h2-warm-reused.json").read_text())
    assert doc["conn_reused"] is True
    assert all(doc[k] is None for k in ("dns_start", "dns_end", "conn_start", "tls_start", "conn_ready"))
