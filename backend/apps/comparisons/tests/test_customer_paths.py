"""Path templates in the spec: the seed workloads against a customer's endpoint. Absent
templates leave the normalized spec (and its fingerprint, which finds CI baselines) as it
was; bad templates are a 400 naming the field; the JSON Schema agrees."""

import pytest

from apps.comparisons.spec import normalize_spec, spec_fingerprint

from .test_spec_schema import schema_errors, validator_rejects

ARMS = [{"label": "build-a", "protocol": "h1", "endpoint": "https://a.example.com/api"},
        {"label": "build-b", "protocol": "h2", "endpoint": "https://b.example.com:8443/api"}]


def spec(workload: dict, arms: list | None = None) -> dict:
    return {"name": "templates", "workload": workload, "arms": arms or ARMS, "seed": 1}


def test_without_templates_the_normalized_workload_is_unchanged():
    for workload in ({"kind": "series"}, {"kind": "delay_sweep"}, {"kind": "payload_sweep", "sizes": [1]},
                     {"kind": "api"}, {"kind": "mixed"}):
        normalized = normalize_spec(spec(workload))["workload"]
        assert not {"path", "method", "object_paths", "file_paths"} & set(normalized), normalized
    series = normalize_spec(spec({"kind": "series"}))
    assert spec_fingerprint(series) == spec_fingerprint(normalize_spec(spec({"kind": "series"})))


GOOD = [
    {"kind": "payload_sweep", "sizes": [1000], "path": "/download?bytes={size}", "method": "GET"},
    {"kind": "delay_sweep", "path": "/v1/slow/{delay_ms}/done"},
    {"kind": "series", "object_paths": ["/img/1.jpg", "https://cdn.example.com/2.jpg?w=64"]},
    {"kind": "api", "path": "/v2/echo?build=a"},
    {"kind": "mixed", "path": "/v2/echo", "file_paths": ["/img/1.jpg", "https://cdn.example.com/2.jpg"]},
]


@pytest.mark.parametrize("workload", GOOD)
def test_templates_and_object_lists_are_accepted(workload):
    assert normalize_spec(spec(workload))["workload"] == {**normalize_spec(spec(workload))["workload"], **workload}
    assert schema_errors(spec(workload)) == []


BAD = [
    ({"kind": "payload_sweep", "sizes": [1], "path": "/download"}, "path", True),
    ({"kind": "payload_sweep", "sizes": [1], "path": "/d/{size}/{size}"}, "path", True),
    ({"kind": "payload_sweep", "sizes": [1], "path": "/d/{size}?x={other}"}, "path", True),
    ({"kind": "payload_sweep", "sizes": [1], "path": "/d/{size}\r\nHost: x"}, "path", True),
    ({"kind": "payload_sweep", "sizes": [1], "method": "PUT"}, "method", True),
    ({"kind": "delay_sweep", "path": "slow/{delay_ms}"}, "path", True),
    ({"kind": "delay_sweep", "path": "/slow/{size}"}, "path", True),
    ({"kind": "series", "object_paths": []}, "object_paths", True),
    ({"kind": "series", "object_paths": ["/x"] * 101}, "object_paths", True),
    ({"kind": "series", "object_paths": ["ftp://cdn.example.com/a"]}, "object_paths", False),
    ({"kind": "series", "object_paths": ["https://u:p@cdn.example.com/a"]}, "object_paths", False),
    ({"kind": "series", "object_paths": ["/a b"]}, "object_paths", False),
    ({"kind": "series", "object_paths": ["http://cdn.example.com/a"]}, "object_paths", False),  # h1/h2 arms: https
    ({"kind": "api", "path": "v2/echo"}, "path", True),
    ({"kind": "api", "path": "/v2/{echo}"}, "path", True),
    ({"kind": "api", "path": "/v2/echo\r\nHost: x"}, "path", True),
    ({"kind": "mixed", "file_paths": []}, "file_paths", True),
    ({"kind": "mixed", "file_paths": ["ftp://cdn.example.com/a"]}, "file_paths", False),
    ({"kind": "mixed", "file_paths": ["http://cdn.example.com/a"]}, "file_paths", False),
]


@pytest.mark.django_db
@pytest.mark.parametrize("workload, field, schema_too", BAD, ids=range(len(BAD)))
def test_bad_templates_are_a_400_naming_the_field(api, pool, workload, field, schema_too):
    response = api.post("/api/v1/comparisons", spec(workload), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["workload"], response.content
    assert validator_rejects(spec(workload))
    if schema_too:
        assert schema_errors(spec(workload))


def test_a_grpc_arm_cannot_use_custom_paths():
    arms = [{"label": "g", "protocol": "grpc"}]
    for workload in GOOD:
        assert validator_rejects(spec(workload, arms))
    assert not validator_rejects(spec({"kind": "delay_sweep"}, arms))
