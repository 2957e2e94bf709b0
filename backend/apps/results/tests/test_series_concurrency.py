"""Concurrent series (issue 10): a series issued concurrently is timed as the app sees it,
first request issued → last response completed, from each sample's issue time and app_done;
a sequential one stays the sum of its requests. The issue time is the harness's monotonic
issued_mono_us where every request of the series has one, else its wall_time (results of
older harnesses). The results say which concurrency was used."""

import numpy as np
import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.analysis import SampleTable, series_summary, series_times
from apps.results.models import BlockColumns, Sample
from apps.results.services import comparison_analyse
from apps.results.storage import block_columns
from apps.results.storage.loader import load_comparison

T = 1_700_000_000_000_000  # epoch µs


def table(**extra) -> SampleTable:
    # One series of 3 per arm. h1: requests at 0, 10, 20 ms taking 50 ms each (overlapping);
    # h2: one after another, 30 ms each, the second issued 5 ms after the first ended.
    return SampleTable.from_columns(
        arm=[0, 0, 0, 1, 1, 1], device=[0] * 6, profile=[0] * 6, period=[3] * 6, repetition=[0] * 6,
        step=[0, 1, 2, 0, 1, 2], total_us=[50_000] * 3 + [30_000] * 3, resp_bytes=[100] * 6,
        start_us=[T, T + 10_000, T + 20_000, T, T + 35_000, T + 65_000],
        arm_labels=("h1", "h2"), device_labels=("d",), profile_labels=("none",), **extra)


def test_a_concurrent_series_is_its_span_and_a_sequential_one_its_sum():
    spanned = series_times(table(), span=True)
    summed = series_times(table())
    assert spanned["time_us"].tolist() == [70_000, 95_000]  # first issued → last completed
    assert summed["time_us"].tolist() == [150_000, 90_000]
    assert spanned["complete"].all()


def test_a_series_with_an_unknown_start_cannot_be_spanned():
    t = table()
    start = t.start_us.copy()
    start[1] = -1
    spanned = series_times(SampleTable(**{**t.__dict__, "start_us": start}), span=True)
    assert spanned["complete"].tolist() == [False, True]


def test_a_series_is_spanned_on_the_monotonic_clock_where_every_request_has_it():
    """The phone's wall clock stepped back 2 s after h1's first request (NTP, the carrier):
    its wall times say nothing about the span, its monotonic issue times do. h2's series
    has one request without a monotonic time (an older harness's mix cannot happen, but a
    series never mixes clocks): it stays on the wall clock."""
    t = table()
    start = t.start_us.copy()
    start[1:3] -= 2_000_000
    issued = np.array([5_000, 15_000, 25_000, 40, 35_040, -1], dtype=np.int64)
    spanned = series_times(SampleTable(**{**t.__dict__, "start_us": start, "issued_us": issued}), span=True)
    assert spanned["time_us"].tolist() == [70_000, 95_000]
    assert spanned["complete"].all()


def test_without_monotonic_issue_times_the_wall_clock_spans_the_series():
    t = table()
    stepped = SampleTable(**{**t.__dict__, "start_us": t.start_us - 7})
    assert series_times(stepped, span=True)["time_us"].tolist() == [70_000, 95_000]


def test_series_summary_gains_follow_the_span():
    rows = series_summary(table(), baseline_arm="h1", span=True)
    h1, h2 = sorted(rows, key=lambda r: r["arm"])
    assert (h1["median_ms"], h2["median_ms"]) == (70.0, 95.0)
    assert h2["gain_pct"] == pytest.approx((70 / 95 - 1) * 100)


def concurrent_samples() -> list[dict]:
    """Block 0 of the preset's series (parallel 4) at period 3: per arm, the three requests
    issued within 2 ms of T (h2: on one connection, h1: over three), each taking
    40 + 10·step ms; the warm-ups first."""
    samples, seq = [], 0
    for arm, conn in (("https-h1", None), ("h2", "h2c")):
        samples.append({"arm": arm, "block": 0, "seq": seq, "phase": "warmup", "period": None, "repetition": None,
                        "step": None, "wall_time": T - 500_000, "t0": 0, "app_done": 9_000, "resp_bytes": 10,
                        "conn_id": conn or "w", "conn_reused": False, "error_class": None})
        seq += 1
    for arm in ("https-h1", "h2"):
        for step in range(3):
            total = 40_000 + 10_000 * step
            samples.append({"arm": arm, "block": 0, "seq": seq, "phase": "measure", "period": 3, "repetition": 0,
                            "step": step, "wall_time": T + 1_000 * step, "t0": 0, "req_start": 10,
                            "resp_first_byte": total // 2, "app_done": total, "resp_bytes": 1000,
                            "conn_id": "h2c" if arm == "h2" else f"h1-{step}", "conn_reused": arm == "h2",
                            "error_class": None})
            seq += 1
    return samples


@pytest.fixture
def concurrent(runner_api, org, pool):
    spec = {"name": "concurrent", "preset": "mid-image-series",
            "workload": {"kind": "series", "periods": [3], "repetitions": 1}, "blocks": 1, "seed": 5}
    comparison = comparison_create(organization=org, submitted_spec=spec)
    assert comparison.spec["workload"]["concurrency"] == {"parallel": 4}
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    return comparison, leased


def upload(runner_api, leased, samples):
    return runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                           {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                            "samples": samples}, format="json")


@pytest.mark.django_db
def test_the_results_time_a_concurrent_series_as_its_span_and_say_so(concurrent, runner_api, api):
    comparison, leased = concurrent
    assert upload(runner_api, leased, concurrent_samples()).status_code == 200
    runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                    {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    comparison_analyse(comparison_id=str(comparison.id))

    results = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
    assert results["analysis"]["concurrency"] == "parallel 4"
    (group,) = results["groups"]
    assert group["concurrency"] == "parallel 4"
    # Issued at T, T+1 ms, T+2 ms taking 40, 50, 60 ms: the last completes at T+62 ms (the sum would be 150).
    assert group["arms"]["h2"]["series_ms"] == [[62.0]]
    assert group["arms"]["https-h1"]["avg_ms"] == [62.0]

    # The same from the samples themselves when the blocks' columns are gone (format 1 blocks).
    BlockColumns.objects.all().delete()
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    comparison_analyse(comparison_id=str(comparison.id))
    again = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
    assert again["groups"][0]["arms"]["h2"]["series_ms"] == [[62.0]]


@pytest.mark.django_db
def test_a_phone_whose_wall_clock_stepped_mid_series_is_timed_on_its_monotonic_issue_times(concurrent, runner_api,
                                                                                          api):
    """The same block from a harness that sends issued_mono_us, whose wall clock was stepped
    back a second between the series' first and second requests: stored, and the span is
    still 62 ms — read from the blocks' columns and, with those gone, from the samples."""
    comparison, leased = concurrent
    samples = concurrent_samples()
    for sample in samples:
        step = sample["step"] or 0
        sample["issued_mono_us"] = 900_000 + 1_000 * step if sample["phase"] == "measure" else 100
        if sample["phase"] == "measure" and step > 0:
            sample["wall_time"] -= 1_000_000
    assert upload(runner_api, leased, samples).status_code == 200
    runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/finish",
                    {"lease_token": leased["lease_token"], "status": "ok"}, format="json")
    for columns_kept in (True, False):
        if not columns_kept:
            BlockColumns.objects.all().delete()
        Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
        comparison_analyse(comparison_id=str(comparison.id))
        results = api.get(f"/api/v1/comparisons/{comparison.id}/results").json()
        assert results["groups"][0]["arms"]["h2"]["series_ms"] == [[62.0]], columns_kept
        assert results["groups"][0]["arms"]["https-h1"]["avg_ms"] == [62.0], columns_kept


@pytest.mark.django_db
def test_a_block_stored_before_issue_times_existed_is_read_on_the_wall_clock(concurrent, runner_api):
    """A format 2 block (its columns without issued_us, stored before this version) is still
    read from its columns (its samples are deleted here, so nothing else could answer):
    issue times unknown, the span from wall_time."""
    comparison, leased = concurrent
    assert upload(runner_api, leased, concurrent_samples()).status_code == 200
    stored = BlockColumns.objects.get()
    columns = block_columns.block_columns_decode(bytes(stored.data), stored.rows, stored.format_version)
    assert stored.format_version == block_columns.FORMAT == 3
    old = b"".join(columns[name].astype(dtype).tobytes() for name, dtype in block_columns.COLUMNS
                   if name != "issued_us")
    BlockColumns.objects.filter(pk=stored.pk).update(format_version=2, data=old)
    Sample.objects.filter(run_id=leased["run_id"]).delete()
    table = load_comparison(comparison).table
    assert len(table) == 8
    assert (table.issued_us == -1).all()
    assert sorted(series_times(table, span=True)["time_us"].tolist()) == [62_000, 62_000]
