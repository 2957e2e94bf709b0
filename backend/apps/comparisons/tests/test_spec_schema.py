"""The comparison spec's JSON Schema (spec.schema.json) against the validator it is
generated from (apps.comparisons.spec): it accepts every preset and every documented
example, rejects what the validator rejects, and is what the API serves and documents."""

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from rest_framework import serializers
from rest_framework.test import APIClient

from apps.comparisons.presets import PRESETS
from apps.comparisons.spec import normalize_spec
from apps.comparisons.spec_schema import SCHEMA_FILE, comparison_spec_schema, openapi_components, schema_file_text

REPO = Path(__file__).resolve().parents[4]
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
GOOD = {"name": "g", "workload": {"kind": "api", "rounds": 2, "calls": 2},
        "arms": [{"label": "a", "protocol": "h2"}, {"label": "b", "protocol": "h3", "connection": "cold"}]}


def schema_errors(spec: object) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(spec)]


def validator_rejects(spec: object) -> bool:
    try:
        normalize_spec(copy.deepcopy(spec))
    except serializers.ValidationError:
        return True
    return False


def documented_specs() -> list[tuple[str, dict]]:
    """Every YAML example in the docs that is a spec (has arms or a preset)."""
    found = []
    for doc in ("docs/api.md", "docs/ci.md", "README.md"):
        for block in re.findall(r"```yaml\n(.*?)```", (REPO / doc).read_text(), re.S):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and ("arms" in data or "preset" in data):
                found.append((doc, data))
    return found


def test_the_committed_file_is_generated_from_the_validator():
    assert SCHEMA_FILE.read_text() == schema_file_text(), (
        "apps/comparisons/spec.schema.json is stale: regenerate it with `cd backend && ../.venv/bin/python -c "
        "\"import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings.test'); django.setup(); "
        "from apps.comparisons.spec_schema import SCHEMA_FILE, schema_file_text; "
        "SCHEMA_FILE.write_text(schema_file_text())\"`")
    jsonschema.Draft202012Validator.check_schema(comparison_spec_schema())


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_is_valid_alone_and_by_name(name):
    spec = PRESETS[name]["spec"]
    assert schema_errors(spec) == []
    assert not validator_rejects(spec)
    assert schema_errors({"preset": name}) == []
    assert not validator_rejects({"preset": name})
    override = {"preset": name, "blocks": 3, "tags": {"branch": "main"}}
    assert schema_errors(override) == []
    assert not validator_rejects(override)


def test_every_documented_example_is_valid():
    examples = documented_specs()
    assert len(examples) >= 2, examples
    for doc, spec in examples:
        assert schema_errors(spec) == [], (doc, spec)
        assert not validator_rejects(spec), (doc, spec)


def test_a_full_spec_with_every_field_is_valid():
    # 50 blocks need 50 rounds: with no warm-up, every block holds at least one round.
    spec = {**GOOD, "mode": "ab", "preset": None, "baseline_arm": "c", "devices": {"pool": "lab", "platforms":
            ["android", "ios"], "count": 3}, "network_profiles": ["none", "lte"], "blocks": 50, "seed": 0,
            "tags": {"branch": "main", "empty": ""}, "gate": {"metric": "ttfb_ms", "statistic": "median",
                                                              "margin_pct": 0.1, "alpha": 0.2}, "timeout_s": 300}
    spec["workload"] = {"kind": "api", "rounds": 50, "calls": 2}
    spec["arms"] = [{"label": "a", "protocol": "h1c", "endpoint": "http://staging.example.com"},
                    {"label": "b.2_x-y", "protocol": "h2", "endpoint": "HTTPS://staging.example.com",
                     "ca_bundle": PEM}, {"label": "c", "protocol": "grpc", "endpoint": None, "ca_bundle": None}]
    assert schema_errors(spec) == []
    assert not validator_rejects(spec)
    aa = {"name": "aa", "mode": "aa", "workload": {"kind": "series"}, "arms": [{"label": "x" * 58, "protocol": "h2"}]}
    assert schema_errors(aa) == []
    assert not validator_rejects(aa)


def with_(path: str, value: object, base: dict | None = None) -> dict:
    """A copy of `base` (GOOD) with the value at a dotted path (`arms.0.protocol`) set; `...`
    deletes it."""
    spec = copy.deepcopy(base or GOOD)
    *parents, last = path.split(".")
    node: object = spec
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
    key: object = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]  # type: ignore[index, attr-defined]
    else:
        node[key] = value  # type: ignore[index]
    return spec


BAD = [
    with_("name", ""), with_("name", "x" * 201), with_("name", ...), with_("arms", ...), with_("workload", ...),
    with_("workload.kind", ...), with_("workload.kind", "bogus"), with_("workload.bogus", 1),
    with_("workload.rounds", 0), with_("workload.calls", 201), with_("workload.request_bytes", -1),
    with_("workload", {"kind": "series", "periods": [0]}), with_("workload", {"kind": "series", "periods": []}),
    with_("workload", {"kind": "series", "periods": [3] * 41}), with_("workload", {"kind": "series", "gap_ms": 1001}),
    with_("workload", {"kind": "series", "objects": "other"}), with_("workload", {"kind": "mixed", "files": "x"}),
    with_("workload", {"kind": "delay_sweep", "step_ms": 0}),
    with_("workload", {"kind": "payload_sweep", "sizes": [50_000_001]}),
    with_("workload", {"kind": "payload_sweep", "sizes": []}),
    with_("arms", []), with_("arms", [{"label": f"a{i}", "protocol": "h2"} for i in range(9)]),
    with_("arms.0.protocol", "spdy"), with_("arms.0.protocol", ...), with_("arms.0.label", ...),
    with_("arms.0.label", "-bad"), with_("arms.0.label", "x" * 65), with_("arms.0.label", "sp ace"),
    with_("arms.0.connection", "reused"), with_("arms.0.endpoint", "http://staging.example.com"),
    with_("arms", [{"label": "a", "protocol": "h1c", "endpoint": "https://staging.example.com"}]),
    with_("arms.0.endpoint", "x" * 501), with_("arms.0.ca_bundle", "not a certificate"),
    with_("arms.0.ca_bundle", ""), with_("baseline_arm", "x" * 65), with_("mode", "abc"),
    with_("arms", [{"label": "a", "protocol": "h2"}, {"label": "b", "protocol": "h2"}], {**GOOD, "mode": "aa"}),
    with_("arms", [{"label": "x" * 59, "protocol": "h2"}], {**GOOD, "mode": "aa"}),
    with_("preset", "nope"), with_("devices", {"count": 0}), with_("devices", {"count": 51}),
    with_("devices", {"platforms": ["windows"]}), with_("devices", {"platforms": []}),
    with_("devices", {"pool": "no spaces"}), with_("network_profiles", []),
    with_("network_profiles", ["lte", "lte"]), with_("network_profiles", ["bad name!"]),
    with_("network_profiles", [f"p{i}" for i in range(21)]), with_("blocks", 0), with_("blocks", 51),
    with_("blocks", "six"), with_("seed", -1), with_("seed", 2**31), with_("timeout_s", 0), with_("timeout_s", 301),
    with_("tags", {f"t{i}": "v" for i in range(21)}), with_("tags", {"x" * 65: "v"}), with_("tags", {"": "v"}),
    with_("tags", {"k": "v" * 201}), with_("gate", {"metric": "p99_ms"}),
    with_("gate", {"statistic": "mean"}), with_("gate", {"margin_pct": 0}), with_("gate", {"margin_pct": 51}),
    with_("gate", {"alpha": 0}), with_("gate", {"alpha": 0.5}), ["not", "an", "object"],
    # No credentials in a URL (url_credentials.py).
    with_("arms.0.endpoint", "https://u:p@staging.example.com"), with_("arms.1.endpoint", "https://TOKEN@s.example.com"),
    with_("workload", {"kind": "series", "object_paths": ["/a", "https://u:p@cdn.example.com/b"]}),
    with_("workload", {"kind": "mixed", "file_paths": ["https://u:p@cdn.example.com/f"]}),
    with_("workload", {"kind": "requests", "requests": [{"url": "https://u:p@api.example.com/v1"}]}),
    with_("tags", {"repo": "https://ci:p@git.example.com/app.git"}),
    with_("gate", {"metric": "series_ms"}), with_("gate", {"metric": "page_load_ms"}),  # not an api workload's
    with_("workload", {"kind": "series"}, with_("gate", {"metric": "page_load_ms"})),
]


@pytest.mark.parametrize("spec", BAD, ids=range(len(BAD)))
def test_what_the_validator_rejects_the_schema_rejects(spec):
    assert validator_rejects(spec), spec
    assert schema_errors(spec), spec


# What a JSON Schema cannot say: the validator alone rejects these (the schema's description
# lists them). If the schema learns one, move it to BAD.
VALIDATOR_ONLY = [
    with_("arms", [{"label": "a", "protocol": "h2"}, {"label": "a", "protocol": "h3"}]),  # labels unique
    with_("baseline_arm", "c"),  # names an arm
    with_("workload", {"kind": "delay_sweep", "start_ms": 500, "stop_ms": 100}),  # stop ≥ start
    with_("workload", {"kind": "payload_sweep"}),  # sizes, unless the preset gives them
    with_("workload", {"kind": "series", "periods": [240] * 40, "repetitions": 100}),  # ≤ 200,000 requests per run
    with_("baseline_arm", "b", {**GOOD, "mode": "aa", "arms": [{"label": "a", "protocol": "h2"}]}),
    {"preset": "api-and-download", "gate": {"metric": "series_ms"}},  # the kind is the preset's
]


@pytest.mark.parametrize("spec", VALIDATOR_ONLY, ids=range(len(VALIDATOR_ONLY)))
def test_cross_field_rules_beyond_a_json_schema_are_the_validators(spec):
    assert validator_rejects(spec)
    assert schema_errors(spec) == []


def test_the_schema_flags_unknown_fields_that_the_server_ignores():
    for spec in (with_("timout_s", 30), with_("arms.0.protocl", "h3"), with_("gate", {"metrc": "ttfb_ms"})):
        assert not validator_rejects(spec)
        assert any("Additional properties are not allowed" in e for e in schema_errors(spec)), spec


@pytest.mark.django_db
def test_served_without_credentials_and_documented_as_the_request_body():
    response = APIClient().get("/api/v1/schemas/comparison-spec")
    assert response.status_code == 200
    assert response.json() == comparison_spec_schema()
    openapi = yaml.load((REPO / "backend/openapi.yaml").read_text(), Loader=yaml.CSafeLoader)
    body = openapi["paths"]["/api/v1/comparisons"]["post"]["requestBody"]["content"]
    assert {media: content["schema"] for media, content in body.items()} == dict.fromkeys(
        ("application/json", "application/yaml", "text/yaml"), {"$ref": "#/components/schemas/ComparisonSpecRequest"})
    components = openapi_components()
    assert openapi["components"]["schemas"]["ComparisonSpecRequest"] == components.pop("ComparisonSpec")
    for name, schema in components.items():
        assert openapi["components"]["schemas"][name] == schema, name
