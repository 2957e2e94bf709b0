"""The `requests` workload kind: a customer's own ordered requests, every field bounded,
and the safety rules (HTTP(S) only, no credentials in URLs, no header injection), each
refusal a 400 that names the field path and creates nothing. The JSON Schema agrees."""

import copy

import pytest

from apps.comparisons.models import Comparison

from .test_spec_schema import schema_errors, validator_rejects

TWO_BUILDS = {
    "name": "build A vs build B",
    "workload": {
        "kind": "requests",
        "requests": [
            {"name": "login", "method": "POST", "path": "/echo", "body": '{"user":"a"}',
             "headers": {"Content-Type": "application/json"}, "expect_status": 200},
            {"name": "feed", "path": "/bytes/2000?x=1"},
            {"name": "avatar", "method": "PUT", "path": "/echo", "body_b64": "AAEC/w=="},
            {"name": "upload", "method": "POST", "path": "/echo", "body_bytes": 4000},
        ],
        "repetitions": 3,
        "warmup": 1,
        "think_ms": 5,
    },
    "arms": [{"label": "build-a", "protocol": "h2", "endpoint": "https://a.example.com:8443/api"},
             {"label": "build-b", "protocol": "h2", "endpoint": "https://b.example.com:9443/api"}],
}


def one_request(**request: object) -> dict:
    spec = copy.deepcopy(TWO_BUILDS)
    spec["workload"]["requests"] = [request]
    return spec


@pytest.mark.django_db
def test_a_request_list_is_accepted_normalized_and_counted(api, pool):
    response = api.post("/api/v1/comparisons", TWO_BUILDS, format="json")
    assert response.status_code == 201, response.content
    workload = response.json()["spec"]["workload"]
    assert [r["name"] for r in workload["requests"]] == ["login", "feed", "avatar", "upload"]
    # Header names are lower-cased (HTTP/2 and HTTP/3 require it); absent fields become null.
    assert workload["requests"][0]["headers"] == {"content-type": "application/json"}
    assert workload["requests"][1] == {"name": "feed", "method": "GET", "url": None, "path": "/bytes/2000?x=1",
                                       "headers": {}, "body": None, "body_b64": None, "body_bytes": None,
                                       "expect_status": None}
    assert (workload["repetitions"], workload["warmup"], workload["think_ms"]) == (3, 1, 5)
    assert schema_errors(TWO_BUILDS) == []


REFUSED = [
    ({"url": "ftp://files.example.com/a"}, ["url"], "Only http:// and https://"),
    ({"url": "file:///etc/passwd"}, ["url"], "Only http:// and https://"),
    ({"url": "https://user:secret@a.example.com/x"}, ["url"], "credentials"),
    ({"url": "https://:token@a.example.com/x"}, ["url"], "credentials"),
    ({"path": "/x", "headers": {"X-Id": "1\r\nX-Evil: 2"}}, ["headers", "X-Id"], "CR, LF"),
    ({"path": "/x", "headers": {"X-Id": "1\nX-Evil: 2"}}, ["headers", "X-Id"], "CR, LF"),
    ({"path": "/x", "headers": {"X-Id\r\nX-Evil": "2"}}, ["headers", "X-Id\r\nX-Evil"], "token"),
    ({"path": "/x", "headers": {"Host": "evil.example.com"}}, ["headers", "Host"], "Set by the client"),
    ({"path": "/x", "headers": {"x-a": "1", "X-A": "2"}}, ["headers", "X-A"], "Repeated"),
    ({"path": "/x", "headers": {f"x-{i}": "v" for i in range(33)}}, ["headers"], "At most 32"),
    ({"path": "/x\r\nHost: evil"}, ["path"], "no spaces, CR or LF"),
    ({"path": "relative"}, ["path"], "Must start with /"),
    ({"path": "/x", "url": "https://a.example.com/x"}, ["url"], "exactly one"),
    ({"method": "GET"}, ["url"], "exactly one"),
    ({"path": "/x", "method": "TRACE"}, ["method"], "valid choice"),
    ({"path": "/x", "method": "POST", "body": "a", "body_bytes": 2}, ["body_bytes"], "at most one"),
    ({"path": "/x", "method": "GET", "body": "a"}, ["body"], "carries no body"),
    ({"path": "/x", "method": "POST", "body_b64": "not base64!"}, ["body_b64"], "base64"),
    ({"path": "/x", "method": "POST", "body_bytes": 10_000_001}, ["body_bytes"], "10000000"),
    ({"path": "/x", "expect_status": 600}, ["expect_status"], "599"),
    ({"path": "/x", "name": "x" * 65}, ["name"], "64"),
    ({"path": "/x", "bogus": 1}, ["bogus"], "Unknown field"),
    ({"path": "/x", "headers": {"X-Api-Key": "{{secret.api_key}}"}}, ["headers", "X-Api-Key"], "Malformed secret"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("request_, field_path, words", REFUSED, ids=range(len(REFUSED)))
def test_a_refused_request_is_a_400_naming_its_field_and_creates_nothing(api, pool, request_, field_path, words):
    spec = one_request(**request_)
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    node = response.json()["workload"]["requests"]["0"]
    for key in field_path:
        node = node[key]
    assert any(words in message for message in node), node
    assert not Comparison.objects.exists()
    assert validator_rejects(spec)


SCHEMA_ALSO_REFUSES = [0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21]  # not 2–4, 7, 8, 16: validator only


@pytest.mark.parametrize("index", SCHEMA_ALSO_REFUSES)
def test_the_json_schema_refuses_them_too(index):
    request_, _, _ = REFUSED[index]
    assert schema_errors(one_request(**request_)), request_


@pytest.mark.django_db
def test_bounds_of_the_list_and_of_the_workload(api, pool):
    too_many = copy.deepcopy(TWO_BUILDS)
    too_many["workload"]["requests"] = [{"path": f"/r{i}"} for i in range(101)]
    response = api.post("/api/v1/comparisons", too_many, format="json")
    assert response.status_code == 400, response.content
    assert "requests" in response.json()["workload"], response.content
    assert schema_errors(too_many)
    for key, value in (("repetitions", 0), ("repetitions", 501), ("warmup", 11), ("think_ms", 60_001)):
        spec = copy.deepcopy(TWO_BUILDS)
        spec["workload"][key] = value
        response = api.post("/api/v1/comparisons", spec, format="json")
        assert response.status_code == 400, (key, response.content)
        assert key in response.json()["workload"], (key, response.content)
        assert schema_errors(spec), key


@pytest.mark.django_db
def test_an_absolute_url_must_fit_every_arms_protocol(api, pool):
    spec = one_request(url="http://plain.example.com/x")
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400
    assert "build-a" in response.json()["workload"]["requests"]["0"]["url"][0]
    ok = one_request(url="https://shared.example.com:8443/v1/ping?q=1")
    assert api.post("/api/v1/comparisons", ok, format="json").status_code == 201


@pytest.mark.django_db
def test_a_grpc_arm_cannot_replay_http_requests(api, pool):
    spec = copy.deepcopy(TWO_BUILDS)
    spec["arms"][1] = {"label": "build-b", "protocol": "grpc"}
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400
    assert "gRPC" in response.json()["arms"]["1"]["protocol"][0]
