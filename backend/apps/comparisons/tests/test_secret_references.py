"""`{{secret.NAME}}` in request headers: a spec may name only its organization's secrets
(400 naming the header's field path otherwise), is stored with the placeholder only, runs
on host runners only, and a run's lease carries exactly the values its spec references.
HAR import maps credential headers to secrets instead of dropping them."""

import copy
import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from apps.accounts.services import secret_create, secret_delete
from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_plan
from testing.runner_calls import lease

VALUE = "Bearer sk-live-0123456789abcdef"
OTHER_VALUE = "key-not-referenced-9876"
DATA = Path(__file__).resolve().parents[4] / "device-runner/runner/tests/data"
SPEC = {
    "name": "with secrets",
    "workload": {"kind": "requests", "repetitions": 1, "warmup": 0, "requests": [
        {"path": "/bytes/10"},
        {"path": "/bytes/20", "headers": {"Accept": "*/*"}},
        {"path": "/bytes/30", "headers": {"Authorization": "{{secret.API_TOKEN}}",
                                          "X-Pair": "{{secret.API_TOKEN}}:{{secret.TENANT}}"}},
    ]},
    "arms": [{"label": "a", "protocol": "h2"}, {"label": "b", "protocol": "h1"}],
    "blocks": 1,
}


@pytest.mark.django_db
def test_a_reference_to_an_unknown_secret_is_a_400_naming_the_header(api, org, pool):
    secret_create(organization=org, name="API_TOKEN", value=VALUE)
    response = api.post("/api/v1/comparisons", SPEC, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["workload"]["requests"]["2"]["headers"]
    assert list(errors) == ["X-Pair"]  # as written in the spec, not lower-cased
    assert "No secret named TENANT" in errors["X-Pair"][0]
    assert not Comparison.objects.exists()


@pytest.mark.django_db
def test_the_spec_keeps_the_placeholders_and_the_lease_carries_only_referenced_values(api, org, pool, runner_api):
    for name, value in (("API_TOKEN", VALUE), ("TENANT", "t-42"), ("UNUSED", OTHER_VALUE)):
        secret_create(organization=org, name=name, value=value)
    created = api.post("/api/v1/comparisons", SPEC, format="json")
    assert created.status_code == 201, created.content
    headers = created.json()["spec"]["workload"]["requests"][2]["headers"]
    assert headers == {"authorization": "{{secret.API_TOKEN}}", "x-pair": "{{secret.API_TOKEN}}:{{secret.TENANT}}"}
    comparison_id = created.json()["id"]
    shown = api.get(f"/api/v1/comparisons/{comparison_id}")
    assert shown.status_code == 200
    assert VALUE.encode() not in shown.content
    assert b"{{secret.API_TOKEN}}" in shown.content
    comparison_plan(comparison_id=comparison_id)
    leased = lease(runner_api)
    assert leased.status_code == 200, leased.content
    run = leased.json()["runs"][0]
    assert run["secrets"] == {"API_TOKEN": VALUE, "TENANT": "t-42"}
    assert OTHER_VALUE not in json.dumps(run)
    assert run["spec"]["workload"]["requests"][2]["headers"]["authorization"] == "{{secret.API_TOKEN}}"


@pytest.mark.django_db
def test_a_run_without_references_gets_an_empty_map_and_a_deleted_secret_is_absent(api, org, pool, runner_api):
    secret_create(organization=org, name="API_TOKEN", value=VALUE)
    secret_create(organization=org, name="TENANT", value="t-42")
    created = api.post("/api/v1/comparisons", SPEC, format="json")
    assert created.status_code == 201, created.content
    secret_delete(organization=org, name="TENANT")
    comparison_plan(comparison_id=created.json()["id"])
    run = lease(runner_api).json()["runs"][0]
    assert run["secrets"] == {"API_TOKEN": VALUE}  # the runner fails the run naming TENANT


@pytest.mark.django_db
def test_secrets_go_to_host_runners_only(api, org, pool):
    secret_create(organization=org, name="API_TOKEN", value=VALUE)
    secret_create(organization=org, name="TENANT", value="t")
    spec = {**copy.deepcopy(SPEC), "devices": {"platforms": ["host", "android"]}}
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    assert any("android devices cannot send" in m for m in response.json()["devices"]["platforms"])


@pytest.mark.django_db
def test_another_organizations_secret_is_not_this_ones(api, org, other_org, pool):
    secret_create(organization=other_org, name="API_TOKEN", value=VALUE)
    secret_create(organization=other_org, name="TENANT", value="t")
    response = api.post("/api/v1/comparisons", SPEC, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()["workload"]["requests"]["2"]["headers"]) == {"Authorization", "X-Pair"}


@pytest.mark.django_db
def test_har_import_maps_credential_headers_to_secrets(api, org, pool):
    secret_create(organization=org, name="API_TOKEN", value=VALUE)
    har = (DATA / "reference-50.har").read_bytes()
    mapping = json.dumps({"Authorization": "API_TOKEN"})
    response = api.post("/api/v1/har-import", har, content_type="application/json",
                        QUERY_STRING=urlencode({"secret_map": mapping}))
    assert response.status_code == 200, response.content
    preview = response.json()
    requests = preview["workload"]["requests"]
    assert {i for i, r in enumerate(requests) if "authorization" in r.get("headers", {})} == set(range(0, 50, 11))
    assert {r["headers"]["authorization"] for r in requests if "authorization" in r.get("headers", {})} == {
        "{{secret.API_TOKEN}}"}
    assert {d["header"] for d in preview["dropped"]} == {"cookie"}  # not mapped: still dropped
    assert "secret-token" not in response.content.decode()
    spec = {"name": "replay", "workload": preview["workload"], "arms": [{"label": "a", "protocol": "h2"}]}
    assert api.post("/api/v1/comparisons", spec, format="json").status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("mapping, field", [
    ({"Authorization": "NOT_THERE"}, "Authorization"),
    ({"Authorization": "lower"}, "Authorization"),
    ({"Host": "API_TOKEN"}, "Host"),
    ({"Bad Header": "API_TOKEN"}, "Bad Header"),
])
def test_a_bad_secret_map_is_a_400_naming_the_header(api, org, pool, mapping, field):
    secret_create(organization=org, name="API_TOKEN", value=VALUE)
    response = api.post("/api/v1/har-import", (DATA / "reference-50.har").read_bytes(),
                        content_type="application/json", QUERY_STRING=urlencode({"secret_map": json.dumps(mapping)}))
    assert response.status_code == 400, response.content
    assert field in response.json()["secret_map"], response.content
