"""POST /api/v1/comparisons/validate: the builder's dry run. The same checks as create,
nothing created, and an estimate from the plan the scheduler makes."""

from datetime import timedelta

import pytest

from apps.comparisons.models import Arm, Comparison, Run, RunBlock
from apps.comparisons.presets import PRESETS
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.services import comparison_analyse

from .test_spec_api import BAD_SPECS, VALID


def _counts() -> tuple[int, int, int]:
    return Comparison.objects.count(), Arm.objects.count(), Run.objects.count()


@pytest.mark.django_db
def test_validate_answers_the_normalized_spec_and_an_estimate_and_creates_nothing(api, pool):
    spec = {**VALID, "network_profiles": ["none", "lte"], "devices": {"count": 2}}
    before = _counts()
    response = api.post("/api/v1/comparisons/validate", spec, format="json")
    assert response.status_code == 200, response.content
    assert _counts() == before == (0, 0, 0)
    body = response.json()
    assert body["spec"]["arms"][1]["label"] == "h2"
    assert body["spec"]["workload"]["repetitions"] == 2
    # Two arms × (3 + 6 requests) × 2 repetitions per run; 2 devices × 2 profiles.
    assert body["estimate"] == {
        "runs": 4, "blocks_min": 8, "blocks_max": 8, "requests_min": 4 * 36, "requests_max": 4 * 36,
        "device_minutes_min": None, "device_minutes_max": None, "seconds_per_request": None,
        "pace_basis": None, "pace_comparisons": 0,
    }
    # The scheduler plans exactly the runs the estimate counted.
    created = api.post("/api/v1/comparisons", spec, format="json").json()
    assert comparison_plan(comparison_id=created["id"]) == body["estimate"]["runs"]
    assert sum(Run.objects.filter(comparison_id=created["id"]).values_list("blocks_total", flat=True)) == 8


@pytest.mark.django_db
def test_validate_takes_yaml_like_create(api, pool):
    response = api.post("/api/v1/comparisons/validate",
                        b"name: y\npreset: mid-image-series\nblocks: {min: 4, max: 12}\n",
                        content_type="application/yaml")
    assert response.status_code == 200, response.content
    estimate = response.json()["estimate"]
    assert (estimate["runs"], estimate["blocks_min"], estimate["blocks_max"]) == (1, 4, 12)
    # Run until decided: each block holds what a min block holds, so max blocks book 3× the requests.
    assert estimate["requests_max"] == 3 * estimate["requests_min"] > 0
    assert Comparison.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("spec, path, message", BAD_SPECS)
def test_validate_refuses_what_create_refuses_with_the_same_field_map(api, pool, spec, path, message):
    dry = api.post("/api/v1/comparisons/validate", spec, format="json")
    assert dry.status_code == 400, dry.content
    assert _counts() == (0, 0, 0)
    real = api.post("/api/v1/comparisons", spec, format="json")
    assert real.status_code == 400
    assert dry.json() == real.json()
    node = dry.json()
    for key in path:
        node = node[key]
    assert message in str(node)
    assert _counts() == (0, 0, 0)


@pytest.mark.django_db
def test_device_minutes_use_the_pace_of_finished_comparisons(api, pool, org):
    finished = comparison_create(organization=org, submitted_spec=VALID)  # 2 blocks, 36 requests per run
    comparison_plan(comparison_id=str(finished.pk))
    run = Run.objects.get(comparison=finished)
    blocks = [RunBlock.objects.create(run=run, block=b, attempt=0, batch_seq=b, sample_count=18) for b in (0, 1)]
    # The second block stored 90 s after the first: 90 s per block of 18 requests = 5 s per request.
    RunBlock.objects.filter(pk=blocks[1].pk).update(stored_at=blocks[0].stored_at + timedelta(seconds=90))
    Comparison.objects.filter(pk=finished.pk).update(status=Comparison.Status.FINISHED)
    before = _counts()

    estimate = api.post("/api/v1/comparisons/validate", {**VALID, "blocks": 4}, format="json").json()["estimate"]
    assert estimate["seconds_per_request"] == 5.0
    assert estimate["pace_basis"] == "recent"  # 4 blocks: another fingerprint
    assert estimate["device_minutes_min"] == estimate["device_minutes_max"] == 36 * 5 / 60
    same = api.post("/api/v1/comparisons/validate", VALID, format="json").json()["estimate"]
    assert (same["pace_basis"], same["pace_comparisons"]) == ("same_spec", 1)
    assert _counts() == before


@pytest.mark.django_db
def test_validate_needs_a_writing_token(org, pool):
    from rest_framework.test import APIClient

    from apps.accounts.services import api_token_create

    _, secret = api_token_create(organization=org, name="ro", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert reader.post("/api/v1/comparisons/validate", VALID, format="json").status_code == 403
    assert APIClient().post("/api/v1/comparisons/validate", VALID, format="json").status_code in (401, 403)


@pytest.mark.django_db
def test_detail_carries_the_submitted_spec_a_rerun_sends_again(api, pool):
    submitted = {k: v for k, v in VALID.items() if k != "seed"}
    first = api.post("/api/v1/comparisons", submitted, format="json").json()
    detail = api.get(f"/api/v1/comparisons/{first['id']}").json()
    assert detail["submitted_spec"] == submitted
    again = api.post("/api/v1/comparisons", detail["submitted_spec"], format="json").json()
    assert again["id"] != first["id"]
    assert {k: v for k, v in again["spec"].items() if k != "seed"} == {
        k: v for k, v in first["spec"].items() if k != "seed"}


@pytest.mark.django_db
@pytest.mark.parametrize("preset", list(PRESETS))
def test_validate_answers_after_an_import_which_books_no_device_time(api, pool, preset):
    """An imported comparison's workload is `{"kind": "import"}` alone: the estimate's pace,
    which reads every finished comparison of the organization, must not take it for another
    kind's (it answered 500 with KeyError 'sizes'), nor count its pace: it measured nothing on
    a device."""
    rows = [{"arm": arm, "device": "Pixel 8", "round": rnd, "sequence": seq, "ms": 20 + seq, "bytes": 100}
            for arm in ("old", "new") for rnd in range(3) for seq in range(3)]
    imported = api.post("/api/v1/imports", {"name": "imported", "rows": rows}, format="json")
    assert imported.status_code == 201, imported.content
    comparison_analyse(comparison_id=imported.json()["id"])  # what the import's task does
    assert Comparison.objects.get(pk=imported.json()["id"]).status == Comparison.Status.FINISHED
    before = _counts()

    response = api.post("/api/v1/comparisons/validate", {"preset": preset}, format="json")
    assert response.status_code == 200, response.content
    estimate = response.json()["estimate"]
    assert estimate["requests_min"] > 0
    assert (estimate["pace_basis"], estimate["pace_comparisons"], estimate["device_minutes_min"]) == (None, 0, None)
    assert _counts() == before


@pytest.mark.django_db
def test_an_endpoint_that_does_not_resolve_is_a_warning_not_a_refusal(api, pool):
    """Real DNS: the reserved `.invalid` TLD never resolves. A private pool's lab may resolve
    names the service cannot, so the spec is accepted, with a warning naming the arm."""
    spec = {**VALID, "arms": [{"label": "ref", "protocol": "h2"},
                              {"label": "mine", "protocol": "h2", "endpoint": "https://api.typo.invalid/v1"}],
            "baseline_arm": "ref"}
    dry = api.post("/api/v1/comparisons/validate", spec, format="json")
    assert dry.status_code == 200, dry.content
    (warning,) = dry.json()["warnings"]
    assert warning["field"] == "arms.1.endpoint"
    assert warning["message"].startswith("api.typo.invalid does not resolve (arm 'mine'): ")
    assert "the comparison will fail at its first block, naming this endpoint" in warning["message"]
    created = api.post("/api/v1/comparisons", spec, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["warnings"] == dry.json()["warnings"]
    # The reference target alone (no customer endpoint): nothing to warn about.
    assert api.post("/api/v1/comparisons/validate", VALID, format="json").json()["warnings"] == []
