"""The summary line writes its numbers by the one rule (latencylab_contract.verdict_numbers,
held to the shared vectors by device-runner/contract/tests/test_verdict_numbers.py)."""

from apps.results.analysis.verdict import format_p, summary_line


def test_the_summary_line_writes_its_numbers_by_the_rule():
    """The issue's example: the CLI wrote −5 % [−12 %, +1 %] beside this line."""
    line = summary_line(arm="h3", baseline_arm="https-h1", metric="total_ms", device_class="host", profile="lte",
                        ratio=0.9517, ci95=(0.878, 1.0104), cliffs_delta=0.125, p=0.0145, blocks_per_device=8,
                        devices=1)
    assert line == ("h3 vs https-h1, host / lte: median −4.8 % [−12 %, +1.0 %], Cliff's δ +0.13, p = 0.015, "
                    "8 blocks × 1 device")


def test_p_is_written_by_the_rule_with_its_relation():
    assert [format_p(p) for p in (0.0004, 0.0145, float("nan"))] == ["p < 0.001", "p = 0.015", "p n/a"]
