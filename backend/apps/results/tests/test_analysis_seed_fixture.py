"""seeds/003: every published number is reproduced exactly (fixture copied into tests/data)."""

import json
from pathlib import Path

import pytest

from apps.results.analysis import reproduce_published_summaries, summaries_via_engine
from apps.results.analysis.seed_fixture import round_half_up_2

FIXTURE = json.loads((Path(__file__).parent / "data" / "seed_unity_http_latency.json").read_text())
PUBLISHED_A = FIXTURE["test_A"]["published_summary_ms"]
PUBLISHED_B = {k: v for k, v in FIXTURE["test_B"]["published_summary"].items() if k != "note"}

CASES_A = [(p, c, f) for p, clients in PUBLISHED_A.items() for c, figures in clients.items() for f in figures]
CASES_B = [(p, c, f) for p, clients in PUBLISHED_B.items() for c, figures in clients.items() for f in figures]


@pytest.fixture(scope="module", params=["exact", "engine"])
def summaries(request):
    return reproduce_published_summaries(FIXTURE) if request.param == "exact" else summaries_via_engine(FIXTURE)


@pytest.mark.parametrize("platform, client, figure", CASES_A)
def test_test_a_first_and_rest(summaries, platform, client, figure):
    assert summaries["test_A"][platform][client][figure] == PUBLISHED_A[platform][client][figure]


@pytest.mark.parametrize("platform, client, figure", CASES_B)
def test_test_b_rest_and_throughput(summaries, platform, client, figure):
    assert summaries["test_B"][platform][client][figure] == PUBLISHED_B[platform][client][figure]


def test_every_published_number_is_covered(summaries):
    assert len(CASES_A) == 12
    assert len(CASES_B) == 8
    assert summaries["test_A"] == PUBLISHED_A
    assert summaries["test_B"] == PUBLISHED_B


def test_throughput_unit_is_rounded_bytes_per_ms_times_1000():
    # The README prints 465.85 "bytes/sec"; it is bytes per ms. The exact rate is 465,850.34 B/s.
    assert PUBLISHED_B["ios"]["mhttp DL"]["throughput_bytes_per_s"] == 465850
    files = [f["bytes"] for f in FIXTURE["test_B"]["files"]]
    rest_ms = sum(v for row in FIXTURE["test_B"]["raw_ms"]["ios"]["mhttp DL"] for v in row[1:])
    exact_bytes_per_s = sum(files[1:]) * 5 / rest_ms * 1000
    assert exact_bytes_per_s == pytest.approx(465850.34, abs=0.01)


def test_outlier_aside_is_not_the_published_rule():
    # The README's "56.2 ms/call without 533 ms outlier" is an aside; "rest" keeps the outlier.
    rows = FIXTURE["test_A"]["raw_ms"]["ios"]["mhttp API"]
    rest = [v for row in rows for v in row[1:]]
    assert round_half_up_2(sum(rest) / len(rest)) == 80.0
    without = [v for v in rest if v != 533]
    assert round(sum(without) / len(without), 1) == 56.2


def test_round_half_up():
    assert round_half_up_2(56.845) == 56.85
    assert round_half_up_2(554.945) == 554.95
