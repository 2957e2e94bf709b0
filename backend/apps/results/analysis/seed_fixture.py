"""seeds/003 (mobile-game-http-latency-test): reproduce the published summaries.

The author's rules, recovered from the raw tables (every number matches):

* Test A, per platform and client: ``first`` is the mean of column 0 (the
  first call of each of the 5 rounds, on a fresh connection); ``rest`` is the
  mean of the 20 values in columns 1-4. Nothing else is excluded (the 533 ms
  outlier stays in: the README quotes 56.2 ms "without" it only as an aside).
* Test B: column 0 of every round is excluded. API rows: mean of columns 1-4.
  DL rows: sum of the bytes of files 2-5 over all rounds divided by the sum of
  their times, i.e. a ratio of sums, not a mean of per-file rates.
* Unit note: the README labels DL throughput "bytes/sec" but its numbers are
  bytes per *millisecond*, rounded to 2 decimals. The fixture states them in
  bytes/s, i.e. that rounded figure × 1000 (465.85 B/ms -> 465850 B/s, while
  the exact rate is 465850.34 B/s).
* All published numbers are rounded half-up to 2 decimals of their README unit.

Two implementations are kept: an exact one in rational arithmetic (the rule,
spelled out) and one through the engine's SampleTable and first_vs_rest, so
the tests prove the general engine computes what the author computed.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np

from .connection import first_vs_rest
from .table import SampleTable

_CENTS = Decimal("0.01")


def round_half_up_2(x: Fraction | float) -> float:
    """Round to 2 decimals, half up, as the README's figures are."""
    if isinstance(x, Fraction):
        value = Decimal(x.numerator) / Decimal(x.denominator)
    else:
        value = Decimal(repr(x))
    return float(value.quantize(_CENTS, rounding=ROUND_HALF_UP))


def _mean(values: list[int]) -> Fraction:
    return Fraction(sum(values), len(values))


def reproduce_published_summaries(fixture: dict) -> dict:
    """Recompute ``published_summary_ms`` (test A) and ``published_summary`` (test B, without its note)."""
    test_a = {
        platform: {
            client: {
                "first": round_half_up_2(_mean([row[0] for row in rounds])),
                "rest": round_half_up_2(_mean([v for row in rounds for v in row[1:]])),
            }
            for client, rounds in clients.items()
        }
        for platform, clients in fixture["test_A"]["raw_ms"].items()
    }
    file_bytes = [f["bytes"] for f in fixture["test_B"]["files"]]
    test_b: dict = {}
    for platform, clients in fixture["test_B"]["raw_ms"].items():
        test_b[platform] = {}
        for client, rounds in clients.items():
            rest = [v for row in rounds for v in row[1:]]
            if _is_download(client):
                bytes_per_ms = Fraction(sum(file_bytes[1:]) * len(rounds), sum(rest))
                test_b[platform][client] = {"throughput_bytes_per_s": int(round_half_up_2(bytes_per_ms) * 1000 + 0.5)}
            else:
                test_b[platform][client] = {"rest_ms": round_half_up_2(_mean(rest))}
    return {"test_A": test_a, "test_B": test_b}


def _is_download(client: str) -> bool:
    return client.endswith(" DL")


def fixture_sample_table(fixture: dict, test: str) -> SampleTable:
    """The raw table of test "A" or "B" as samples: device = platform, arm = client,
    block = round, step = column; column 0 is the first request on its connection."""
    section = fixture[f"test_{test}"]
    file_bytes = [f["bytes"] for f in section.get("files", [])]
    platforms = list(section["raw_ms"])
    clients = list(dict.fromkeys(c for p in platforms for c in section["raw_ms"][p]))
    cols: dict[str, list[int]] = {k: [] for k in ("arm", "device", "block", "step", "total_us", "resp_bytes")}
    for d, platform in enumerate(platforms):
        for client, rounds in section["raw_ms"][platform].items():
            for block, row in enumerate(rounds):
                for step, ms in enumerate(row):
                    cols["arm"].append(clients.index(client))
                    cols["device"].append(d)
                    cols["block"].append(block)
                    cols["step"].append(step)
                    cols["total_us"].append(ms * 1000)
                    cols["resp_bytes"].append(file_bytes[step] if _is_download(client) else 0)
    n = len(cols["arm"])
    return SampleTable.from_columns(
        **cols, profile=np.zeros(n), first_on_connection=np.array(cols["step"]) == 0,
        arm_labels=clients, device_labels=platforms, profile_labels=["train" if test == "B" else "tethered"])


def summaries_via_engine(fixture: dict) -> dict:
    """The same published figures, computed by first_vs_rest on the sample tables."""
    out: dict = {"test_A": {}, "test_B": {}}
    for row in first_vs_rest(fixture_sample_table(fixture, "A")):
        out["test_A"].setdefault(row["device"], {})[row["arm"]] = {
            "first": round_half_up_2(row["first"]["mean_ms"]),
            "rest": round_half_up_2(row["rest"]["mean_ms"]),
        }
    for row in first_vs_rest(fixture_sample_table(fixture, "B")):
        rest = row["rest"]
        value: dict[str, float | int]
        if _is_download(row["arm"]):
            bytes_per_ms = rest["throughput_bytes_per_s"] / 1000.0
            value = {"throughput_bytes_per_s": int(round_half_up_2(bytes_per_ms) * 1000 + 0.5)}
        else:
            value = {"rest_ms": round_half_up_2(rest["mean_ms"])}
        out["test_B"].setdefault(row["device"], {})[row["arm"]] = value
    return out
