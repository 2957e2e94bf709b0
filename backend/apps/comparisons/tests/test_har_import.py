"""HAR import: a recording becomes a `requests` workload preview (order, bodies, expected
statuses, concurrency groups; credentials dropped and listed), 413 over the size bound,
400 naming the bad entry. The 50-request recording of the reference target is committed
with its preview, which the device-runner replays through h1, h2 and h3
(device-runner/runner/tests/test_har_replay.py)."""

import copy
import json
from pathlib import Path

import pytest

from apps.comparisons.har import MAX_HAR_BYTES, concurrency_groups, har_preview

DATA = Path(__file__).resolve().parents[4] / "device-runner/runner/tests/data"
HAR = json.loads((DATA / "reference-50.har").read_text())
WORKLOAD_FILE = DATA / "reference-50.workload.json"


def test_the_recording_becomes_an_ordered_request_list_without_credentials():
    preview = har_preview(HAR)
    requests = preview["workload"]["requests"]
    assert preview["origin"] == "https://app.example.test"
    assert len(requests) == 50
    assert [r.get("path") for r in requests[:3]] == ["/files/mid-01", "/bytes/2000?page=1", "/echo"]
    assert all("url" not in r for r in requests)  # one origin: every request follows each arm's endpoint
    assert requests[2]["body"] == '{"event": "view", "n": 2}'
    assert requests[2]["method"] == "POST"
    assert requests[3]["body_b64"] == HAR["log"]["entries"][3]["request"]["postData"]["text"]
    assert {r["expect_status"] for r in requests} == {200}
    assert requests[2]["headers"] == {"accept": "*/*", "content-type": "application/json"}
    every_header = {name for r in requests for name in r.get("headers", {})}
    assert every_header == {"accept", "content-type"}  # no cookie, authorization, pseudo or client headers
    assert {(d["entry"], d["header"]) for d in preview["dropped"]} == (
        {(i, "cookie") for i in range(0, 50, 7)} | {(i, "authorization") for i in range(0, 50, 11)})
    assert "secret-token" not in json.dumps(preview)
    assert "abc123" not in json.dumps(preview)
    # Entries 0, 1, 2 start 10 ms apart and last 40 ms: issued together; 3 starts 60 ms after 2.
    assert preview["concurrency_groups"][:4] == [[0, 1, 2], [3], [4], [5, 6, 7]]


def test_the_committed_replay_workload_is_this_preview():
    assert json.loads(WORKLOAD_FILE.read_text()) == har_preview(HAR)["workload"], (
        "regenerate device-runner/runner/tests/data/reference-50.workload.json from har_preview(reference-50.har)")


def test_order_follows_started_date_time_and_other_origins_stay_urls():
    har = copy.deepcopy(HAR)
    entries = har["log"]["entries"][:3]
    entries.reverse()  # file order is not replay order
    har["log"]["entries"] = entries
    preview = har_preview(har, origin="https://api.example.test")
    assert [r["url"] for r in preview["workload"]["requests"]] == [
        "https://app.example.test/files/mid-01", "https://app.example.test/bytes/2000?page=1",
        "https://app.example.test/echo"]


def test_concurrency_groups_join_requests_that_overlapped():
    assert concurrency_groups([(0, 1), (0.5, 2), (1.5, 3), (3, 4), (5, 6)]) == [[0, 1, 2], [3], [4]]


@pytest.mark.django_db
def test_the_endpoint_previews_and_the_preview_is_a_valid_spec(api, pool):
    response = api.post("/api/v1/har-import?repetitions=3", json.dumps(HAR), content_type="application/json")
    assert response.status_code == 200, response.content
    preview = response.json()
    assert preview["workload"]["repetitions"] == 3
    assert len(preview["dropped"]) == 13
    spec = {"name": "replay", "workload": preview["workload"],
            "arms": [{"label": "a", "protocol": "h2", "endpoint": "https://a.example.com"},
                     {"label": "b", "protocol": "h3", "endpoint": "https://b.example.com"}]}
    assert api.post("/api/v1/comparisons", spec, format="json").status_code == 201


def bad(entry_index: int, change) -> dict:
    har = copy.deepcopy(HAR)
    change(har["log"]["entries"][entry_index])
    return har


MALFORMED = [
    (bad(4, lambda e: e["request"].update(url="ftp://app.example.test/x")), "4", "request.url"),
    (bad(5, lambda e: e["request"].update(url="https://u:p@app.example.test/x")), "5", "request.url"),
    (bad(6, lambda e: e["request"].pop("method")), "6", "request.method"),
    (bad(7, lambda e: e.update(startedDateTime="yesterday")), "7", "startedDateTime"),
    (bad(8, lambda e: e["request"]["headers"].append({"name": "x-a", "value": "1\r\nx-evil: 2"})), "8",
     "request.headers.5"),
    (bad(9, lambda e: e["request"]["headers"].append({"name": "x-a"})), "9", "request.headers.5"),
    (bad(13, lambda e: e["request"]["postData"].update(text="***")), "13", "request.postData.text"),
    (bad(10, lambda e: e.pop("request")), "10", "request"),
    # Refused by the spec's own rules, reported on the HAR entry: a GET with a body.
    (bad(0, lambda e: e["request"].update(postData={"mimeType": "text/plain", "text": "x"})), "0", "body"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("har, entry, field", MALFORMED, ids=range(len(MALFORMED)))
def test_a_malformed_entry_is_a_400_naming_it(api, pool, har, entry, field):
    response = api.post("/api/v1/har-import", json.dumps(har), content_type="application/json")
    assert response.status_code == 400, response.content
    assert field in response.json()["entries"][entry], response.json()


@pytest.mark.django_db
def test_not_a_har_too_many_entries_and_too_large(api, pool):
    for body, key in ((b"{not json", "log"), (b'{"log": {}}', "log"), (b'{"x": 1}', "log")):
        response = api.post("/api/v1/har-import", body, content_type="application/json")
        assert response.status_code == 400, response.content
        assert key in response.json(), response.content
    many = copy.deepcopy(HAR)
    many["log"]["entries"] = many["log"]["entries"] * 3
    response = api.post("/api/v1/har-import", json.dumps(many), content_type="application/json")
    assert response.status_code == 400
    assert "150" in response.json()["log"]["entries"][0]
    huge = b'{"log": {"entries": [], "pad": "' + b"x" * MAX_HAR_BYTES + b'"}}'
    response = api.post("/api/v1/har-import", huge, content_type="application/json")
    assert response.status_code == 413
    assert str(MAX_HAR_BYTES) in response.json()["detail"]
    assert api.post("/api/v1/har-import?repetitions=0", json.dumps(HAR),
                    content_type="application/json").status_code == 400
