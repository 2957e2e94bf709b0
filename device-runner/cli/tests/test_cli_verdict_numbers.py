"""The CLI writes a verdict's numbers by the server's rule: the one Python implementation,
latencylab_contract.verdict_numbers (held to the shared vectors in contract/tests), so its
Markdown/PR-comment change column reads as the server's summary line does."""

from __future__ import annotations

from latencylab_cli.render import fmt_change, fmt_cliffs, fmt_p


def test_the_table_writes_what_the_summary_line_writes() -> None:
    """The same verdict once read "−5 % [−12 %, +1 %]" in the PR comment beside the server's
    "−4.8 % [−12 %, +1.0 %]"."""
    verdict = {"ratio": 0.9517, "ci95": [0.878, 1.0104], "cliffs_delta": 0.125, "cliffs_label": "negligible",
               "p_adjusted": 0.0145,
               "summary": "h3 vs https-h1, host / lte: median −4.8 % [−12 %, +1.0 %], Cliff's δ +0.13, p = 0.015, "
                          "8 blocks × 1 device"}
    assert fmt_change(verdict) == "−4.8 % [−12 %, +1.0 %]"
    assert fmt_cliffs(verdict) == "+0.13 negligible"
    assert fmt_p(verdict) == "0.015"
    for text in (fmt_change(verdict), fmt_cliffs(verdict).split()[0], fmt_p(verdict)):
        assert text in verdict["summary"]
