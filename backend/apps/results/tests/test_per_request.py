"""Per-request statistics of a request list: one row per listed request, named from the spec."""

import numpy as np

from apps.results.analysis import SampleTable
from apps.results.analysis.per_request import per_request, request_names


def test_each_listed_request_is_its_own_group_named_from_the_spec():
    # Two arms, three listed requests, four repetitions: request 1 of arm b is 10× slower,
    # request 2 of arm a failed once.
    arm, step, total, ok = [], [], [], []
    for a in (0, 1):
        for rep in range(4):
            for s in range(3):
                arm.append(a)
                step.append(s)
                total.append(10_000 * (s + 1) * (10 if (a, s) == (1, 1) else 1) + rep)
                ok.append(not (a == 0 and s == 2 and rep == 0))
    n = len(arm)
    table = SampleTable.from_columns(arm=arm, device=[0] * n, profile=[0] * n, step=step, total_us=total, ok=ok,
                                     arm_labels=["a", "b"], device_labels=["host"], profile_labels=["none"])
    rows = per_request(table, names=["login", "feed", "avatar"])
    assert [(r["arm"], r["step"], r["name"]) for r in rows] == [
        ("a", 0, "login"), ("b", 0, "login"), ("a", 1, "feed"), ("b", 1, "feed"),
        ("a", 2, "avatar"), ("b", 2, "avatar")]
    cell = {(r["arm"], r["step"]): r for r in rows}
    assert np.isclose(cell["b", 1]["median_ms"] / cell["a", 1]["median_ms"], 10, rtol=0.01)
    assert (cell["a", 2]["n"], cell["a", 2]["errors"]) == (3, 1)
    assert (cell["b", 2]["n"], cell["b", 2]["errors"]) == (4, 0)


def test_names_come_from_the_spec_or_the_request_itself():
    workload = {"kind": "requests", "requests": [{"name": "login", "method": "POST", "path": "/login"},
                                                 {"method": "GET", "path": "/feed?page=1"},
                                                 {"url": "https://cdn.example.com/a.png"}]}
    assert request_names(workload) == ["login", "01 GET /feed?page=1", "02 GET https://cdn.example.com/a.png"]
    assert request_names({"kind": "series"}) == []
