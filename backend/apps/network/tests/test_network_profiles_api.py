import json
from pathlib import Path

import pytest

from apps.comparisons.models import Run
from apps.comparisons.services import comparison_plan
from apps.network.validation import link_spec_bounds

CUSTOM = {"name": "flaky-4g", "description": "our users' evenings",
          "spec": {"down": {"delay_ms": 40, "jitter_ms": 10, "jitter_correlation_pct": 25, "loss_pct": 1.5,
                            "burst": 3, "rate_kbit": 8000, "queue_packets": 60},
                   "up": {"delay_ms": 40, "rate_kbit": 2000},
                   "blackouts": [{"every_s": 30, "duration_s": 2}]}}


@pytest.mark.django_db
def test_built_ins_are_listed_and_a_custom_profile_is_created_and_used(api, pool):
    listing = api.get("/api/v1/network-profiles").json()
    names = [p["name"] for p in listing]
    assert names[:3] == ["none", "cable", "dsl"]
    assert "train" in names
    assert len(names) == 13
    transatlantic = next(p for p in listing if p["name"] == "transatlantic")
    assert (transatlantic["rtt_ms"], transatlantic["loss_pct"], transatlantic["built_in"]) == (95, 0.1, True)

    created = api.post("/api/v1/network-profiles", CUSTOM, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["rtt_ms"] == 80
    assert created.json()["spec"]["down"]["burst"] == 3

    comparison = api.post("/api/v1/comparisons", {
        "name": "custom", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3],
                                                                      "repetitions": 1},
        "blocks": 1, "network_profiles": ["none", "flaky-4g"]}, format="json")
    assert comparison.status_code == 201, comparison.content
    comparison_plan(comparison_id=comparison.json()["id"])
    run = Run.objects.get(comparison_id=comparison.json()["id"], network_profile="flaky-4g")
    assert run.network_profile_spec["name"] == "flaky-4g"
    assert run.network_profile_spec["blackouts"] == [{"every_s": 30.0, "duration_s": 2.0}]
    assert Run.objects.get(comparison_id=comparison.json()["id"], network_profile="none").network_profile_spec == {}


@pytest.mark.django_db
@pytest.mark.parametrize("body, path, message", [
    ({**CUSTOM, "name": "lte"}, ["name"], "built-in"),
    ({**CUSTOM, "spec": {**CUSTOM["spec"], "down": {"loss_pct": 150}}}, ["spec", "down", "loss_pct"],
     "less than or equal to 100"),
    ({**CUSTOM, "spec": {**CUSTOM["spec"], "up": {"rate_kbit": 1}}}, ["spec", "up", "rate_kbit"],
     "greater than or equal to 8"),
    ({**CUSTOM, "spec": {**CUSTOM["spec"], "blackouts": [{"every_s": 5, "duration_s": 9}]}},
     ["spec", "blackouts", "0", "duration_s"], "shorter than every_s"),
    ({**CUSTOM, "spec": {**CUSTOM["spec"], "down": {"loss_model": "gilbert_elliott"}}}, ["spec", "down", "gilbert"],
     "Required"),
])
def test_bad_profiles_are_rejected_with_field_paths(api, body, path, message):
    response = api.post("/api/v1/network-profiles", body, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        node = node[key]
    assert message in str(node)
    assert [p for p in api.get("/api/v1/network-profiles").json() if not p["built_in"]] == []


@pytest.mark.django_db
def test_bounds_come_from_the_validator_and_hold_on_create(api):
    bounds = api.get("/api/v1/network-profiles/bounds")
    assert bounds.status_code == 200, bounds.content
    body = bounds.json()
    assert body["direction"]["delay_ms"] == {"type": "number", "required": False, "nullable": False,
                                             "minimum": 0, "maximum": 60_000, "default": 0}
    assert body["direction"]["rate_kbit"]["minimum"] == 8
    assert body["direction"]["rate_kbit"]["nullable"] is True
    assert body["direction"]["queue_packets"]["type"] == "integer"
    assert body["direction"]["loss_model"]["choices"] == ["random", "gilbert_elliott"]
    assert body["blackout"]["duration_s"]["minimum"] == 0.01
    assert body["gilbert"]["p"]["maximum"] == 100
    assert body["max_blackouts"] == 10
    # One past each bound is refused, naming the field; the bound itself is accepted.
    for field, spec in body["direction"].items():
        if "maximum" not in spec:
            continue
        too_big = api.post("/api/v1/network-profiles", {"name": f"big-{field.replace('_', '-')}", "spec": {
            "down": {field: spec["maximum"] + 1}, "up": {}}}, format="json")
        assert too_big.status_code == 400, field
        assert str(spec["maximum"]) in str(too_big.json()["spec"]["down"][field]), too_big.json()
    at_bound = api.post("/api/v1/network-profiles", {"name": "at-bounds", "spec": {
        "down": {"delay_ms": 60_000, "rate_kbit": 8}, "up": {"queue_packets": 1}}}, format="json")
    assert at_bound.status_code == 201, at_bound.content


def test_the_dashboards_bounds_fixture_is_what_the_server_serves():
    # The frontend's tests mock GET /network-profiles/bounds with this file: it must not drift.
    fixture = Path(__file__).resolve().parents[4] / "frontend/src/testing/fixtures/network-profile-bounds.json"
    assert json.loads(fixture.read_text()) == json.loads(json.dumps(link_spec_bounds()))
