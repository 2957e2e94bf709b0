"""Credentials never sit in a spec: a URL carrying user:password@ (or a token as the user
name) in any field of a spec — an arm's endpoint, a request list's url, a series' object or a
mixed workload's file URL, a tag value — is a 400 naming the field and pointing at the
organization's secrets, and nothing is written. HAR imports (entries and the origin given)
and measurement imports (their tags) refuse it the same way."""

import copy
import json

import pytest

from apps.comparisons.models import Arm, Comparison, Run
from apps.results.models import Sample

from .test_har_import import HAR

SECRET = "hunter2-s3cret"
ARM_A = {"label": "a", "protocol": "h2", "endpoint": "https://a.example.com"}
BASE = {"name": "creds", "workload": {"kind": "api", "rounds": 2, "calls": 2},
        "arms": [ARM_A, {"label": "b", "protocol": "h2", "endpoint": "https://b.example.com"}]}


def spec_with(**changes) -> dict:
    spec = copy.deepcopy(BASE)
    spec.update(changes)
    return spec


CASES = [
    (spec_with(arms=[ARM_A, {"label": "b", "protocol": "h2", "endpoint": f"https://u:{SECRET}@b.example.com/"}]),
     ("arms", "1", "endpoint")),
    (spec_with(arms=[{"label": "a", "protocol": "h1c", "endpoint": f"http://{SECRET}@a.example.com"}]),
     ("arms", "0", "endpoint")),
    (spec_with(workload={"kind": "series", "object_paths": ["/a.png", f"https://cdn:{SECRET}@cdn.example.com/b.png"]}),
     ("workload", "object_paths", "1")),
    (spec_with(workload={"kind": "mixed", "file_paths": [f"https://cdn:{SECRET}@cdn.example.com/f.bin"]}),
     ("workload", "file_paths", "0")),
    (spec_with(workload={"kind": "requests", "requests": [
        {"path": "/ok"}, {"url": f"https://api:{SECRET}@api.example.com/v1/feed"}]}),
     ("workload", "requests", "1", "url")),
    (spec_with(tags={"branch": "main", "repo": f"https://oauth2:{SECRET}@gitlab.example.com/group/app.git"}),
     ("tags", "repo")),
    (spec_with(preset="payload-sweep", arms=[{"label": "h2", "protocol": "h2",
                                              "endpoint": f"https://u:{SECRET}@a.example.com"}], baseline_arm=None),
     ("arms", "0", "endpoint")),
]


def field_errors(body: dict, path: tuple[str, ...]) -> str:
    node = body
    for key in path:
        assert key in node, (path, body)
        node = node[key]
    return str(node)


@pytest.mark.django_db
@pytest.mark.parametrize("spec, path", CASES, ids=[f"{i}-{'.'.join(path)}" for i, (_, path) in enumerate(CASES)])
@pytest.mark.parametrize("url", ["/api/v1/comparisons", "/api/v1/comparisons/validate"])
def test_credentials_in_a_url_of_a_spec_are_a_400_naming_the_field_and_nothing_is_stored(api, pool, spec, path, url):
    response = api.post(url, spec, format="json")
    assert response.status_code == 400, response.content
    message = field_errors(response.json(), path)
    assert "Must not carry credentials" in message
    assert "{{secret.NAME}}" in message
    assert "POST /api/v1/secrets" in message
    assert SECRET not in response.content.decode()  # the answer does not echo it either
    assert Comparison.objects.count() == Arm.objects.count() == Run.objects.count() == 0


@pytest.mark.django_db
def test_an_at_sign_outside_the_authority_is_no_credential(api, pool):
    """`@` in a path, query or fragment, and a tag that is not a URL, are as before."""
    spec = spec_with(workload={"kind": "requests", "requests": [
        {"path": "/users/@me"}, {"url": "https://api.example.com/v1/users/@me?mail=a@b.example#x@y"}]},
        tags={"owner": "someone@example.com", "remote": "git@github.com:org/app.git"})
    spec["arms"] = [{**arm, "endpoint": f"{arm['endpoint']}/@edge"} for arm in spec["arms"]]
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_a_har_entry_with_credentials_in_its_url_is_a_400_naming_the_entry(api, pool):
    har = copy.deepcopy(HAR)
    har["log"]["entries"][2]["request"]["url"] = f"https://u:{SECRET}@cdn.example.test/x.js"
    response = api.post("/api/v1/har-import", json.dumps(har), content_type="application/json")
    assert response.status_code == 400, response.content
    message = field_errors(response.json(), ("entries", "2", "request.url"))
    assert "{{secret.NAME}}" in message
    assert SECRET not in response.content.decode()


@pytest.mark.django_db
def test_a_har_origin_with_credentials_is_a_400_naming_it(api, pool):
    response = api.post(f"/api/v1/har-import?origin=https://u:{SECRET}@app.example.test",
                        json.dumps(HAR), content_type="application/json")
    assert response.status_code == 400, response.content
    assert "{{secret.NAME}}" in field_errors(response.json(), ("origin",))
    assert SECRET not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("as_csv", [False, True], ids=["json", "csv"])
def test_an_import_tag_with_credentials_is_a_400_and_nothing_is_imported(api, as_csv):
    rows = [{"arm": arm, "device": "Pixel 8", "round": 0, "sequence": s, "ms": 10 + s, "bytes": 1}
            for arm in ("a", "b") for s in range(3)]
    repo = f"https://ci:{SECRET}@gitlab.example.com/group/app.git"
    if as_csv:
        text = "arm,device,round,sequence,ms,bytes\n" + "".join(
            f"{r['arm']},{r['device']},{r['round']},{r['sequence']},{r['ms']},{r['bytes']}\n" for r in rows)
        response = api.generic("POST", f"/api/v1/imports?name=field&tag.repo={repo}", text, content_type="text/csv")
    else:
        response = api.post("/api/v1/imports", {"name": "field", "tags": {"repo": repo}, "rows": rows}, format="json")
    assert response.status_code == 400, response.content
    assert "{{secret.NAME}}" in field_errors(response.json(), ("tags", "repo"))
    assert Comparison.objects.count() == Sample.objects.count() == 0
