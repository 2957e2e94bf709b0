"""The share card's bars show the gate's metric, so the card never contradicts its verdict line:
series time where the gate judged series time, total time per request otherwise (and for
analyses stored before version 2, which have no group times)."""

from apps.reports.card import chart_rows, render_card


def row(arm: str, median: float, metric: str) -> dict:
    return {"arm": arm, "device": "host", "profile": "none", "metric": metric, "n": 12, "median_ms": median,
            "median_ci95_ms": [median * 0.95, median * 1.05]}


def document(metric: str, *, group_times: bool = True) -> dict:
    analysis = {"requests": [row("https-h1", 4.5, "total_ms"), row("h2", 10.4, "total_ms")]}
    if group_times:
        analysis["group_times"] = [row("https-h1", 180.6, "series_ms"), row("h2", 121.0, "series_ms")]
    return {"name": "MID", "verdict_line": "Improvement: h2 (series time) vs https-h1 …",
            "verdict": {"outcome": "improvement", "gate": {"metric": metric}},
            "results": {"arms": ["https-h1", "h2"], "analysis": analysis}}


def test_the_card_draws_the_metric_the_gate_judged():
    title, subtitle, rows = chart_rows(document("series_ms"))
    assert (title, subtitle) == ("Median series time", "host · none")
    assert [(r["arm"], r["median_ms"]) for r in rows] == [("https-h1", 180.6), ("h2", 121.0)]
    title, _, rows = chart_rows(document("total_ms"))
    assert (title, [r["median_ms"] for r in rows]) == ("Median total time", [4.5, 10.4])
    # An analysis without group times (version 1): the per-request bars, as it was drawn then.
    title, _, rows = chart_rows(document("series_ms", group_times=False))
    assert (title, [r["median_ms"] for r in rows]) == ("Median total time", [4.5, 10.4])
    assert render_card(document("series_ms")).startswith(b"\x89PNG")
