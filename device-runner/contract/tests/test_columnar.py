"""The columnar upload body (latencylab_contract.columnar, README "The columnar body"): the
example decodes to its JSON twin and the twin encodes to the example byte for byte; what the
form carries and what it refuses to carry (a batch then goes as JSON)."""

import json
import struct

import pytest
from latencylab_contract import columnar, contract_dir
from latencylab_contract.validation import iter_errors

EXAMPLES = contract_dir() / "examples"
EXAMPLE = EXAMPLES / "upload" / "batch.llcol"
TWIN = EXAMPLES / "upload" / "batch.json"


def test_the_example_decodes_to_its_json_twin():
    assert columnar.decode(EXAMPLE.read_bytes()) == json.loads(TWIN.read_text())


def test_the_json_twin_encodes_to_the_example_byte_for_byte():
    assert columnar.encode(json.loads(TWIN.read_text())) == EXAMPLE.read_bytes()


def test_the_twins_samples_are_valid_samples():
    for sample in json.loads(TWIN.read_text())["samples"]:
        assert list(iter_errors(sample, "sample")) == []


def test_the_layout_is_as_documented():
    body = EXAMPLE.read_bytes()
    header, offset = columnar.read_header(body)
    assert body.startswith(columnar.MAGIC)
    assert offset % 8 == 0
    size = struct.unpack_from("<I", body, 8)[0]  # the header's length; buffers begin at a multiple of 8
    assert offset == 12 + size + -(12 + size) % 8
    assert header["rows"] == 4
    kinds = {c["name"]: c["type"] for c in header["columns"]}
    assert (kinds["arm"], kinds["seq"], kinds["server_delay_ms"], kinds["conn_reused"], kinds["dns_start"]) == \
        ("str", "int64", "float64", "bool", "int64")
    # the rows' values follow the header: int64 seq 0…3 at its offset
    sizes = {"int64": 8, "float64": 8, "bool": 1, "str": 4, "null": 0}
    for column in header["columns"]:
        if column["type"] in ("int64", "float64") and column.get("nulls"):
            offset += 8  # 4 rows of mask, padded to 8
        if column["name"] == "seq":
            assert struct.unpack_from("<4q", body, offset) == (0, 1, 2, 3)
        offset += sizes[column["type"]] * 4 + -(sizes[column["type"]] * 4) % 8
    assert offset == len(body)


def test_absent_optional_fields_and_whole_null_columns():
    samples = [{"arm": "a", "seq": 0, "app_done": None, "error_class": "dns", "alpn": "h2"},
               {"arm": "a", "seq": 1, "app_done": None, "error_class": "dns", "in_flight": 2}]
    batch = columnar.decode(columnar.encode({"block": 0, "samples": samples}))
    assert batch == {"block": 0, "samples": [
        {"arm": "a", "seq": 0, "app_done": None, "error_class": "dns", "alpn": "h2", "in_flight": None},
        {"arm": "a", "seq": 1, "app_done": None, "error_class": "dns", "alpn": None, "in_flight": 2}]}
    header, _ = columnar.read_header(columnar.encode({"samples": samples}))
    assert {c["name"]: c["type"] for c in header["columns"]}["app_done"] == "null"


def test_edge_values_round_trip():
    samples = [{"seq": 2**63 - 1, "status": -(2**63), "server_delay_ms": 0, "path": "ünï \t\\N", "ok": True},
               {"seq": 0, "status": None, "server_delay_ms": 0.25, "path": "", "ok": False}]
    decoded = columnar.decode(columnar.encode({"samples": samples}))["samples"]
    assert decoded == samples
    assert isinstance(decoded[0]["server_delay_ms"], float)  # a float field stays float


def test_an_empty_batch():
    assert columnar.decode(columnar.encode({"block": 3, "samples": []})) == {"block": 3, "samples": []}


@pytest.mark.parametrize("samples", [
    [{"seq": 1}, {"seq": "2"}],  # a column of two types
    [{"seq": True}, {"seq": 1}],
    [{"seq": 2**64}],  # beyond 64 bits
    [{"arm": "a", "app_done": 1}, {"arm": "a"}],  # a required field in some samples only
    [{"seq": [1]}],
    ["not a sample"],
], ids=["str-and-int", "bool-and-int", "beyond-64-bits", "required-in-some", "a-list", "not-an-object"])
def test_what_has_no_columnar_form(samples):
    with pytest.raises(columnar.NotColumnar):
        columnar.encode({"samples": samples})


@pytest.mark.parametrize("body", [b"", b"LLCOL1\n\x00", b"LLCOL0\n\x00\x02\x00\x00\x00{}",
                                  EXAMPLE.read_bytes()[:-8], EXAMPLE.read_bytes() + bytes(8)])
def test_a_malformed_body(body):
    with pytest.raises(columnar.ColumnarError):
        columnar.decode(body)
