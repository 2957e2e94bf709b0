"""`workload.concurrency` (issue 10): how an app issues a series', an API round's or a
request list's requests. Validated with 400s that name the field and the allowed range,
refused where it makes no sense (sweeps, mixed, phones whose harness runs a job in order),
normalized so a sequential spec keeps its fingerprint, and carried by the seed preset the
way NSURLSession on iOS issues requests (parallel 4)."""

import copy

import pytest
from rest_framework import serializers

from apps.comparisons.models import Comparison
from apps.comparisons.presets import PRESETS
from apps.comparisons.spec import normalize_spec, spec_fingerprint

SERIES = {"name": "c", "workload": {"kind": "series", "periods": [3], "repetitions": 2},
          "arms": [{"label": "h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"}], "seed": 1}


def with_workload(**fields) -> dict:
    spec = copy.deepcopy(SERIES)
    spec["workload"].update(fields)
    return spec


@pytest.mark.parametrize("given, normalized", [
    ("parallel", {"parallel": 6}),  # the browser and URLSession-on-macOS default
    ({"parallel": 4}, {"parallel": 4}),
    ({"parallel": 1}, {"parallel": 1}),
    ({"parallel": 16}, {"parallel": 16}),
    ("all", "all"),
])
def test_concurrency_forms_are_normalized(given, normalized):
    assert normalize_spec(with_workload(concurrency=given))["workload"]["concurrency"] == normalized


def test_sequential_is_the_default_and_leaves_the_fingerprint_alone():
    plain = normalize_spec(copy.deepcopy(SERIES))
    explicit = normalize_spec(with_workload(concurrency="sequential"))
    assert "concurrency" not in plain["workload"]
    assert explicit["workload"] == plain["workload"]
    assert spec_fingerprint(explicit) == spec_fingerprint(plain)
    assert spec_fingerprint(normalize_spec(with_workload(concurrency="all"))) != spec_fingerprint(plain)


@pytest.mark.parametrize("workload", [
    {"kind": "api", "rounds": 2, "calls": 3, "concurrency": "all"},
    {"kind": "requests", "requests": [{"path": "/a"}, {"path": "/b"}], "concurrency": {"parallel": 2}},
])
def test_api_and_request_lists_take_concurrency(workload):
    assert normalize_spec({**SERIES, "workload": workload})["workload"]["concurrency"] == workload["concurrency"]


BAD = [
    (with_workload(concurrency={"parallel": 0}), ["workload", "concurrency", "parallel"], "Must be 1–16"),
    (with_workload(concurrency={"parallel": 17}), ["workload", "concurrency", "parallel"], "Must be 1–16"),
    (with_workload(concurrency={"parallel": "4"}), ["workload", "concurrency", "parallel"], "whole number 1–16"),
    (with_workload(concurrency={"parallel": True}), ["workload", "concurrency", "parallel"], "whole number 1–16"),
    (with_workload(concurrency={"threads": 4, "parallel": 4}), ["workload", "concurrency", "threads"],
     "Unknown field"),
    (with_workload(concurrency="burst"), ["workload", "concurrency"], '{"parallel": N} with N 1–16'),
    (with_workload(concurrency=4), ["workload", "concurrency"], '"sequential" (default)'),
    ({**SERIES, "workload": {"kind": "delay_sweep", "concurrency": "all"}}, ["workload", "concurrency"],
     "Only series, api, requests workloads take concurrency"),
    ({**SERIES, "workload": {"kind": "payload_sweep", "sizes": [1000], "concurrency": "parallel"}},
     ["workload", "concurrency"], "a payload_sweep measures its requests one at a time"),
    ({**SERIES, "workload": {"kind": "mixed", "concurrency": "all"}}, ["workload", "concurrency"],
     "Only series, api, requests"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("spec, path, message", BAD)
def test_bad_concurrency_is_a_400_naming_the_field_and_range(api, pool, spec, path, message):
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        node = node[key]
    assert message in str(node)
    assert Comparison.objects.count() == 0


def test_grpc_arms_take_concurrency_like_http2():
    spec = {**SERIES, "workload": {"kind": "api", "rounds": 2, "calls": 4, "concurrency": {"parallel": 4}},
            "arms": [{"label": "h2", "protocol": "h2"}, {"label": "g", "protocol": "grpc"}]}
    assert normalize_spec(spec)["workload"]["concurrency"] == {"parallel": 4}


def test_the_validator_alone_refuses_what_the_api_refuses():
    with pytest.raises(serializers.ValidationError) as raised:
        normalize_spec(with_workload(concurrency={"parallel": 99}))
    assert "Must be 1–16" in str(raised.value.detail["workload"]["concurrency"]["parallel"])


def test_the_mid_image_series_preset_issues_like_nsurlsession_on_ios():
    preset = PRESETS["mid-image-series"]
    assert preset["spec"]["workload"]["concurrency"] == {"parallel": 4}
    assert "NSURLSession" in preset["description"]
    assert "4 HTTP/1.1 connections" in preset["description"]
    spec = normalize_spec({"preset": "mid-image-series"})
    assert spec["workload"]["concurrency"] == {"parallel": 4}
    assert spec["network_profiles"] == ["none"]
    # A user's sequential overrides the preset's.
    sequential = normalize_spec({"preset": "mid-image-series",
                                 "workload": {"kind": "series", "concurrency": "sequential"}})
    assert "concurrency" not in sequential["workload"]


def test_the_transatlantic_variant_is_the_same_series_over_the_seeds_link():
    spec = normalize_spec({"preset": "mid-image-series-transatlantic"})
    base = normalize_spec({"preset": "mid-image-series"})
    assert spec["network_profiles"] == ["transatlantic"]
    assert spec["workload"] == base["workload"]
    assert [a["protocol"] for a in spec["arms"]] == ["h1", "h2"]
    assert "parallel 4" in PRESETS["mid-image-series-transatlantic"]["description"]


@pytest.mark.django_db
def test_the_transatlantic_preset_is_accepted_by_the_api(api, pool):
    response = api.post("/api/v1/comparisons", {"preset": "mid-image-series-transatlantic", "name": "atlantic",
                                                "workload": {"kind": "series", "periods": [3], "repetitions": 1}},
                        format="json")
    assert response.status_code == 201, response.content
    assert response.json()["spec"]["network_profiles"] == ["transatlantic"]
    assert response.json()["spec"]["workload"]["concurrency"] == {"parallel": 4}
