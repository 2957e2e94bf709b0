"""`blocks`: a number, `{min, max}` or `auto` (run until decided); bad values answer 400 naming
`blocks.min` / `blocks.max`, and nothing is created."""

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.spec import normalize_spec, wire_spec
from testing.factories import SPEC


@pytest.mark.django_db
@pytest.mark.parametrize("blocks, path, message", [
    ({"min": 1, "max": 10}, ["blocks", "min"], "2–200"),
    ({"min": 6, "max": 201}, ["blocks", "max"], "2–200"),
    ({"min": 12, "max": 6}, ["blocks", "max"], "at least min (12)"),
    ({"max": 6}, ["blocks", "min"], "required"),
    ({"min": 6}, ["blocks", "max"], "required"),
    ({"min": "6", "max": 12}, ["blocks", "min"], "whole number"),
    ({"min": 6, "max": 12, "step": 2}, ["blocks", "step"], "Unknown field"),
    ("sometimes", ["blocks"], "or auto"),
    (True, ["blocks"], "or auto"),
    (0, ["blocks"], "greater than or equal to 1"),
    (51, ["blocks"], "run until decided"),
])
def test_bad_blocks_are_400_naming_the_field(api, pool, blocks, path, message):
    response = api.post("/api/v1/comparisons", {**SPEC, "blocks": blocks}, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        node = node[key]
    assert message in str(node), node
    assert not Comparison.objects.exists()


@pytest.mark.parametrize("blocks, normalized", [
    (6, 6), ("8", 8), ({"min": 6, "max": 40}, {"min": 6, "max": 40}), ({"min": 2, "max": 2}, {"min": 2, "max": 2}),
    ("auto", {"min": 6, "max": 24}),
])
def test_blocks_normalize(blocks, normalized):
    assert normalize_spec({**SPEC, "blocks": blocks})["blocks"] == normalized


def test_the_wire_spec_keeps_each_block_the_same_size():
    """Runners split a workload's repetitions over the blocks (r mod blocks): a run-until-decided
    run gets the count it runs now and ceil(repetitions / min) repetitions per block."""
    spec = normalize_spec({**SPEC, "workload": {"kind": "series", "periods": [3], "repetitions": 12},
                           "blocks": {"min": 5, "max": 20}})
    assert wire_spec(spec, blocks=5)["blocks"] == 5
    assert wire_spec(spec, blocks=5)["workload"]["repetitions"] == 15
    assert wire_spec(spec, blocks=20)["workload"]["repetitions"] == 60
    assert spec["workload"]["repetitions"] == 12  # the stored spec is untouched
    fixed = normalize_spec(SPEC)
    assert wire_spec(fixed, blocks=2) is fixed


def test_the_size_guard_counts_max_blocks():
    spec = {**SPEC, "workload": {"kind": "series", "periods": [30], "repetitions": 100}}
    normalize_spec({**spec, "blocks": 10})
    with pytest.raises(Exception, match="at 200 blocks"):
        normalize_spec({**spec, "blocks": {"min": 2, "max": 200}})


API_ROUNDS = {"name": "api", "workload": {"kind": "api", "rounds": 5, "calls": 5},
              "arms": [{"label": "h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"}]}


def test_default_blocks_shrink_to_the_repetitions_so_no_block_is_empty():
    """The `api` defaults (5 rounds, no warm-up) with the default 8 blocks would leave blocks
    5–7 with no request, which runners refuse; the default becomes 5 blocks of one round."""
    assert normalize_spec(API_ROUNDS)["blocks"] == 5
    assert normalize_spec({**API_ROUNDS, "workload": {"kind": "api", "rounds": 20, "calls": 5}})["blocks"] == 8
    # A preset's blocks are a default too: cutting its repetitions cuts its blocks.
    assert normalize_spec({"preset": "api-and-download", "name": "x"})["blocks"] == {"min": 6, "max": 24}
    cut = normalize_spec({"preset": "payload-sweep", "name": "x", "workload": {"kind": "payload_sweep",
                                                                               "repetitions": 2}})
    assert cut["blocks"] == 2


@pytest.mark.django_db
def test_explicit_blocks_with_nothing_to_measure_are_400_naming_both_fields(api, pool):
    response = api.post("/api/v1/comparisons", {**API_ROUNDS, "blocks": 8}, format="json")
    assert response.status_code == 400, response.content
    message = response.json()["blocks"][0]
    assert "less than or equal to 5" in message
    assert "workload.rounds" in message
    assert not Comparison.objects.exists()


def test_explicit_blocks_holding_only_a_warm_up_are_allowed():
    """Quick smoke runs (SPEC: 2 repetitions, one warm-up request per arm) ask for more blocks."""
    assert normalize_spec({**SPEC, "blocks": 6})["blocks"] == 6
