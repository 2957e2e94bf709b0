import pytest

from apps.comparisons.models import Arm, Comparison, Run
from apps.comparisons.services import comparison_plan

VALID = {
    "name": "h1 vs h2",
    "preset": "mid-image-series",
    "workload": {"kind": "series", "periods": [3, 6], "repetitions": 2},
    "blocks": 2,
    "seed": 7,
}


@pytest.mark.django_db
def test_create_from_preset_fills_defaults_and_plans_runs(api, pool, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post("/api/v1/comparisons", VALID, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued"
    assert [a["label"] for a in body["arms"]] == ["https-h1", "h2"]
    assert body["spec"]["workload"] == {
        "kind": "series", "objects": "seed-mid-24", "periods": [3, 6], "repetitions": 2, "warmup": 1, "gap_ms": 0,
        "concurrency": {"parallel": 4},  # the preset's: NSURLSession on iOS
    }
    assert body["spec"]["devices"] == {"pool": "local", "platforms": ["host"], "count": 1}
    assert body["spec"]["gate"]["margin_pct"] == 5.0
    assert len(callbacks) == 1  # planning is queued after commit
    assert comparison_plan(comparison_id=body["id"]) == 1
    assert comparison_plan(comparison_id=body["id"]) == 0  # idempotent
    run = Run.objects.get(comparison_id=body["id"])
    assert (run.network_profile, run.blocks_total, run.status) == ("none", 2, "queued")


@pytest.mark.django_db
def test_yaml_spec_is_accepted(api, pool):
    yaml_spec = b"""
name: yaml spec
preset: mid-image-series
workload: {kind: series, periods: [3], repetitions: 1}
blocks: 1
arms:
  - {label: a, protocol: h1}
  - {label: b, protocol: h2, connection: cold}
"""
    response = api.post("/api/v1/comparisons", yaml_spec, content_type="application/yaml")
    assert response.status_code == 201, response.content
    assert response.json()["arms"][1] == {"label": "b", "protocol": "h2", "connection": "cold", "endpoint": ""}


BAD_SPECS = [
    ({**VALID, "blocks": 500}, ["blocks"], "less than or equal to 50"),
    ({**VALID, "arms": [{"label": "a", "protocol": "h1"}, {"label": "b", "protocol": "spdy"}]},
     ["arms", "1", "protocol"], "not a valid choice"),
    ({**VALID, "workload": {"kind": "series", "repetitions": 0}}, ["workload", "repetitions"],
     "greater than or equal to 1"),
    ({**VALID, "workload": {"kind": "teleport"}}, ["workload", "kind"], "Must be one of"),
    ({**VALID, "workload": {"kind": "payload_sweep", "sizes": [10**9]}}, ["workload", "sizes", "0"],
     "less than or equal to 50000000"),
    ({**VALID, "baseline_arm": "nope"}, ["baseline_arm"], "Must be one of the arm labels"),
    ({**VALID, "network_profiles": ["moon"]}, ["network_profiles", "0"], "not a valid choice"),
    ({**VALID, "devices": {"pool": "elsewhere"}}, ["devices", "pool"], "No device pool"),
    ({**VALID, "arms": [{"label": "a", "protocol": "h2", "endpoint": "http://example.test"}]},
     ["arms", "0", "endpoint"], "https://"),
    ({**VALID, "workload": {"kind": "series", "periods": [240] * 40, "repetitions": 100}}, ["workload"],
     "requests per run"),
    ({"workload": {"kind": "series"}}, ["name"], "required"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("spec, path, message", BAD_SPECS)
def test_bad_specs_get_400_with_field_path_and_create_nothing(api, pool, spec, path, message):
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        node = node[key]
    assert message in str(node)
    assert Comparison.objects.count() == 0
    assert Arm.objects.count() == 0


@pytest.mark.django_db
def test_other_organizations_comparison_answers_404(api, pool, other_org):
    from apps.comparisons.services import comparison_create
    from apps.devices.services import pool_get_or_create

    pool_get_or_create(organization=other_org, slug="local", name="theirs")
    theirs = comparison_create(organization=other_org, submitted_spec=VALID)
    assert api.get(f"/api/v1/comparisons/{theirs.id}").status_code == 404
    assert api.get(f"/api/v1/comparisons/{theirs.id}/results").status_code == 404
    assert api.get("/api/v1/comparisons").json()["count"] == 0


@pytest.mark.django_db
def test_unauthenticated_and_read_only_tokens(org, pool):
    from rest_framework.test import APIClient

    from apps.accounts.services import api_token_create

    anonymous = APIClient()
    assert anonymous.get("/api/v1/comparisons").status_code in (401, 403)
    _, secret = api_token_create(organization=org, name="ro", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert reader.get("/api/v1/comparisons").status_code == 200
    assert reader.post("/api/v1/comparisons", VALID, format="json").status_code == 403
    reader.credentials(HTTP_AUTHORIZATION="Bearer wrong")
    assert reader.get("/api/v1/comparisons").status_code == 401


@pytest.mark.django_db
def test_session_login_flow(user, pool):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    assert client.get("/api/v1/auth/csrf").status_code == 204
    csrf = client.cookies["csrftoken"].value
    bad = client.post("/api/v1/auth/login", {"username": "alice", "password": "wrong"}, format="json",
                      HTTP_X_CSRFTOKEN=csrf)
    assert bad.status_code == 400
    assert "Wrong username" in bad.json()["detail"]
    ok = client.post("/api/v1/auth/login", {"username": "alice", "password": "pw-alice-123"}, format="json",
                     HTTP_X_CSRFTOKEN=csrf)
    assert ok.status_code == 200
    assert ok.json()["organization"]["slug"] == "acme"
    csrf = client.cookies["csrftoken"].value
    assert client.get("/api/v1/auth/me").json()["username"] == "alice"
    no_csrf = client.post("/api/v1/comparisons", VALID, format="json")
    assert no_csrf.status_code == 403
    created = client.post("/api/v1/comparisons", VALID, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert created.status_code == 201


@pytest.mark.django_db
def test_presets_listed(api):
    names = [p["name"] for p in api.get("/api/v1/presets").json()]
    assert names == ["mid-image-series", "mid-image-series-transatlantic", "os-added-latency", "api-and-download",
                     "payload-sweep", "aa-calibration"]


@pytest.mark.django_db
def test_a_queued_run_says_what_it_is_waiting_for(api, pool, runner_api):
    from apps.devices.models import Device

    created = api.post("/api/v1/comparisons", {**VALID, "devices": {"pool": "local", "count": 2}}, format="json")
    comparison_plan(comparison_id=created.json()["id"])
    runs = api.get(f"/api/v1/comparisons/{created.json()['id']}").json()["runs"]
    assert [r["waiting_for"] for r in runs] == [
        "waiting for a free host device in pool 'local'",
        "this comparison asks for 2+ distinct host devices per profile; pool 'local' has 1",
    ]
    Device.objects.update(state=Device.State.OFFLINE)
    runs = api.get(f"/api/v1/comparisons/{created.json()['id']}").json()["runs"]
    assert runs[0]["waiting_for"] == "no runner of pool 'local' is online: its 1 host device is offline"
    Device.objects.all().delete()
    runs = api.get(f"/api/v1/comparisons/{created.json()['id']}").json()["runs"]
    assert runs[0]["waiting_for"] == "no host device is registered in pool 'local'"


@pytest.mark.django_db
def test_a_comparison_queued_behind_another_says_so_with_the_work_ahead(api, pool, runner_api):
    """The pool's one device runs another comparison: the queued one names the work ahead of it,
    and once a run of the pool has finished, how long that work takes at the pool's pace."""
    from datetime import timedelta

    from apps.comparisons.models import Run
    from testing.runner_calls import lease

    first = api.post("/api/v1/comparisons", {**VALID, "name": "first", "blocks": 4}, format="json").json()["id"]
    comparison_plan(comparison_id=first)
    assert lease(runner_api).status_code == 200  # the device now runs the first comparison
    second = api.post("/api/v1/comparisons", {**VALID, "name": "second"}, format="json").json()["id"]
    comparison_plan(comparison_id=second)

    def waiting_for(comparison_id: str) -> str:
        return api.get(f"/api/v1/comparisons/{comparison_id}").json()["runs"][0]["waiting_for"]

    assert waiting_for(second) == ("waiting for a free host device in pool 'local': 1 comparison ahead "
                                   "(1 run, 4 blocks left) on 1 ready device")
    # A run of the pool finished earlier at 30 s a block: the 4 blocks ahead take about 2 min.
    earlier = api.post("/api/v1/comparisons", {**VALID, "name": "earlier"}, format="json").json()["id"]
    comparison_plan(comparison_id=earlier)
    finished = Run.objects.get(comparison_id=earlier)
    now = finished.created_at
    Run.objects.filter(pk=finished.pk).update(status=Run.Status.DONE, blocks_total=2, started_at=now,
                                              finished_at=now + timedelta(seconds=60))
    assert waiting_for(second).endswith("4 blocks left) on 1 ready device, about 2 min at the pool's recent pace")
    # The first comparison itself waits for nothing: it holds the device.
    assert api.get(f"/api/v1/comparisons/{first}").json()["runs"][0]["waiting_for"] is None


@pytest.mark.django_db
def test_a_platform_the_pool_has_no_device_of_is_refused_at_submit(api, pool, runner_api):
    from apps.comparisons.models import Comparison

    before = Comparison.objects.count()
    answer = api.post("/api/v1/comparisons", {**VALID, "devices": {"pool": "local", "platforms": ["android"]}},
                      format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["devices"]["platforms"] == [
        "pool 'local' has no android device, so nothing could ever run this comparison; its devices are: host."]
    assert Comparison.objects.count() == before
    # The builder's dry run says the same.
    assert api.post("/api/v1/comparisons/validate", {**VALID, "devices": {"pool": "local", "platforms": ["android"]}},
                    format="json").status_code == 400


@pytest.mark.django_db
def test_a_pool_without_devices_yet_takes_the_comparison_and_says_it_waits_for_a_runner(api, pool):
    created = api.post("/api/v1/comparisons", {**VALID, "devices": {"pool": "local", "platforms": ["android"]}},
                       format="json")
    assert created.status_code == 201, created.content
