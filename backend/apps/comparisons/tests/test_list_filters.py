"""The comparison list's and the device list's filters over the real API: a value a filter does
not take, a parameter the list does not take and a tag name outside the spec's rule are 400s
naming them; valid filters still filter."""

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from testing.factories import SPEC

STATUSES = ["queued", "running", "analysing", "finished", "failed", "cancelled"]


@pytest.fixture
def tagged(org, pool) -> dict[str, Comparison]:
    """Two comparisons of branch main (one finished) and one of branch feature."""
    made = {name: comparison_create(organization=org, submitted_spec={**SPEC, "name": name, "tags": tags})
            for name, tags in (("main-1", {"branch": "main", "commit": "a1"}),
                               ("main-2", {"branch": "main", "commit": "b2", "note": ""}),
                               ("feature-1", {"branch": "feature"}))}
    Comparison.objects.filter(pk=made["main-1"].pk).update(status=Comparison.Status.FINISHED)
    return made


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return sorted(c["name"] for c in response.json()["results"])


@pytest.mark.django_db
def test_status_and_tag_filters_still_filter(api, tagged):
    assert names(api.get("/api/v1/comparisons", {"status": "finished"})) == ["main-1"]
    assert names(api.get("/api/v1/comparisons", {"tag.branch": "main"})) == ["main-1", "main-2"]
    assert names(api.get("/api/v1/comparisons", {"tag.branch": "main", "tag.commit": "b2"})) == ["main-2"]
    assert names(api.get("/api/v1/comparisons", {"tag.branch": "main", "status": "queued"})) == ["main-2"]
    assert names(api.get("/api/v1/comparisons", {"tag.note": ""})) == ["main-2"]  # an empty tag, as the spec allows
    assert names(api.get("/api/v1/comparisons", {"tag.branch": "nope"})) == []
    # The shared parameters stay: the page, and DRF's format.
    assert names(api.get("/api/v1/comparisons", {"page": 1, "format": "json", "tag.branch": "feature"})) == [
        "feature-1"]


@pytest.mark.django_db
def test_a_status_it_does_not_know_is_a_400_listing_the_statuses(api, tagged):
    response = api.get("/api/v1/comparisons", {"status": "bogus"})
    assert response.status_code == 400
    assert response.json() == {"status": [f"status: bogus is not one of {', '.join(STATUSES)}"]}


@pytest.mark.django_db
def test_a_parameter_the_list_does_not_take_is_a_400_naming_it(api, tagged):
    response = api.get("/api/v1/comparisons", {"stauts": "finished", "page_size": 5})
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"stauts", "page_size"}
    assert body["stauts"] == ["stauts: not a parameter of this endpoint; it takes status, tag.<key>, page, format"]


@pytest.mark.django_db
@pytest.mark.parametrize("parameter", ["tag.", "tag." + "k" * 65])
def test_a_tag_name_outside_the_specs_rule_is_a_400(api, tagged, parameter):
    response = api.get("/api/v1/comparisons", {parameter: "main"})
    assert response.status_code == 400
    [message] = response.json()[parameter]
    assert message.startswith(f"{parameter}: Tag names must be 1–64 characters")


@pytest.mark.django_db
def test_a_tag_name_never_becomes_an_orm_lookup(api, tagged):
    """Before, `tag.branch__contains=ai` went into filter(tags__branch__contains=...) and listed
    the main comparisons; `tag.branch__nope=x` was a 500. Now such a name is a tag's name like
    any other: no comparison has a tag called that."""
    assert names(api.get("/api/v1/comparisons", {"tag.branch__contains": "ai"})) == []
    assert names(api.get("/api/v1/comparisons", {"tag.branch__nope": "x"})) == []
    assert names(api.get("/api/v1/comparisons", {"tag.branch__isnull": "False"})) == []


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["tag.bra%00nch=main", "tag.branch=ma%00in"])
def test_a_nul_in_a_tag_filter_is_a_400_not_a_database_error(api, tagged, query):
    response = api.get(f"/api/v1/comparisons?{query}")
    assert response.status_code == 400
    [(parameter, [message])] = response.json().items()
    assert parameter.startswith("tag.bra")
    assert "NUL" in message


@pytest.mark.django_db
def test_device_filters_refuse_values_they_do_not_take(api, pool):
    state = api.get("/api/v1/devices", {"state": "asleep"})
    assert state.status_code == 400
    assert state.json() == {"state": ["state: asleep is not one of available, busy, not_ready, unauthorized, offline, "
                                      "quarantined"]}
    platform = api.get("/api/v1/devices", {"platform": "symbian"})
    assert platform.json() == {"platform": ["platform: symbian is not one of ios, android, host"]}
    assert api.get("/api/v1/devices", {"pool": "not a slug"}).json() == {
        "pool": ["pool: expected a slug (letters, digits, - and _)"]}
    unknown = api.get("/api/v1/devices", {"serial": "A1"})
    assert unknown.json() == {"serial": ["serial: not a parameter of this endpoint; it takes state, platform, pool, "
                                         "page, page_size, format"]}
    assert api.get("/api/v1/devices", {"state": "available", "platform": "host", "pool": "local",
                                       "page_size": 200}).status_code == 200
