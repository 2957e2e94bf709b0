"""Bringing external measurements in: seeds/003's raw numbers, imported through the API
as CSV and as JSON, analysed by the service, reproduce the published summaries exactly."""

import json
from pathlib import Path

import pytest

from apps.comparisons.models import Comparison
from apps.results.analysis.seed_fixture import round_half_up_2
from apps.results.models import Sample
from apps.results.services import comparison_analyse

FIXTURE = json.loads((Path(__file__).parent / "data" / "seed_unity_http_latency.json").read_text())


def fixture_rows(test: str) -> list[dict]:
    section = FIXTURE[f"test_{test}"]
    sizes = [f["bytes"] for f in section.get("files", [])]
    rows = []
    for platform, clients in section["raw_ms"].items():
        for client, rounds in clients.items():
            for rnd, row in enumerate(rounds):
                for seq, ms in enumerate(row):
                    rows.append({"arm": client, "device": platform, "round": rnd, "sequence": seq, "ms": ms,
                                 "bytes": sizes[seq] if client.endswith(" DL") else 0})
    return rows


def analysed(api, response) -> dict:
    assert response.status_code == 201, response.content
    comparison_id = response.json()["id"]
    comparison_analyse(comparison_id=comparison_id)
    assert Comparison.objects.get(pk=comparison_id).status == "finished"
    return api.get(f"/api/v1/comparisons/{comparison_id}/results").json()["analysis"]


@pytest.mark.django_db
def test_test_a_imported_as_csv_reproduces_the_published_first_and_rest(api):
    rows = fixture_rows("A")
    csv_text = "arm,device,round,sequence,ms,bytes\n" + "".join(
        f"{r['arm']},{r['device']},{r['round']},{r['sequence']},{r['ms']},{r['bytes']}\n" for r in rows)
    response = api.generic("POST", "/api/v1/imports?name=seeds-003-A&baseline_arm=unity+API&tag.source=seed",
                           csv_text, content_type="text/csv")
    analysis = analysed(api, response)
    published = FIXTURE["test_A"]["published_summary_ms"]
    got = {(r["device"], r["arm"]): r for r in analysis["first_vs_rest"]}
    assert len(got) == 6
    for platform, clients in published.items():
        for client, numbers in clients.items():
            row = got[(platform, client)]
            assert round_half_up_2(row["first"]["mean_ms"]) == numbers["first"], (platform, client)
            assert round_half_up_2(row["rest"]["mean_ms"]) == numbers["rest"], (platform, client)


@pytest.mark.django_db
def test_test_b_imported_as_json_reproduces_throughput_and_rest(api):
    response = api.post("/api/v1/imports", {"name": "seeds-003-B", "rows": fixture_rows("B")}, format="json")
    analysis = analysed(api, response)
    published = FIXTURE["test_B"]["published_summary"]
    got = {(r["device"], r["arm"]): r for r in analysis["first_vs_rest"]}
    for platform in ("ios", "android"):
        for client, numbers in published[platform].items():
            rest = got[(platform, client)]["rest"]
            if "throughput_bytes_per_s" in numbers:
                # The source's unit slip: its "bytes/sec" are bytes/ms rounded to 2 decimals.
                assert int(round_half_up_2(rest["throughput_bytes_per_s"] / 1000) * 1000 + 0.5) == \
                    numbers["throughput_bytes_per_s"]
            else:
                assert round_half_up_2(rest["mean_ms"]) == numbers["rest_ms"]


@pytest.mark.django_db
def test_malformed_rows_are_reported_by_line_and_column_and_nothing_is_imported(api):
    csv_text = ("arm,device,round,sequence,ms,bytes\n"
                "h2,pixel,0,0,12.5,100\n"
                "h2,pixel,zero,1,12.5,100\n"
                "h2,pixel,0,2,-4,100\n"
                ",pixel,0,3,1,1\n")
    response = api.generic("POST", "/api/v1/imports?name=bad", csv_text, content_type="text/csv")
    assert response.status_code == 400
    body = response.json()
    assert "round" in body["line 3"][0]
    assert "0 to 1000" in body["line 3"][0]
    assert "ms" in body["line 4"][0]
    assert "line 2" not in body
    assert "arm" in body["line 5"][0]
    missing = api.generic("POST", "/api/v1/imports?name=bad", "arm,device\nx,y\n", content_type="text/csv")
    assert missing.status_code == 400
    assert "missing columns" in missing.json()["line 1"][0]
    json_bad = api.post("/api/v1/imports", {"name": "bad", "rows": [{"arm": "a"}]}, format="json")
    assert json_bad.status_code == 400
    assert "rows[0]" in json_bad.json()
    assert Comparison.objects.count() == 0
    assert Sample.objects.count() == 0
