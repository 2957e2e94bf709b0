"""The loader reads each block's stored analysis columns (BlockColumns) and gives exactly
what the COPY of the samples gives (the path for data stored before they existed)."""

import numpy as np
import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import BlockColumns
from apps.results.storage import block_columns, loader
from testing.factories import SPEC, make_sample
from testing.runner_calls import lease, upload

SPEC2 = {**SPEC, "blocks": 3}


def varied(block: int) -> list[dict]:
    """Warm-ups, errors (null app_done), nulls in every optional column, new connections
    with every phase, server delays that round, both arms."""
    samples = []
    for i in range(9):
        extra: dict = {}
        if i % 3 == 0:
            extra.update(phase="warmup", period=None, repetition=None, step=None)
        if i % 4 == 1:
            extra.update(error_class="timeout", app_done=None, resp_first_byte=None, resp_end=None,
                         resp_bytes=None, conn_reused=None)
        if i % 2 == 0:
            extra.update(dns_start=0, dns_end=100 + i, conn_start=120 + i, tls_start=300 + i if i % 4 else None,
                         conn_ready=500 + i, req_start=600, req_end=610, resp_first_byte=700 + i, resp_end=950 + i,
                         app_done=1200 + 7 * i, conn_reused=False)
        if i % 3 == 1:
            extra["server_delay_ms"] = [0.0005, 2.5, 1.0015][block % 3] + i
        if i % 5:  # a monotonic issue time on most (null on the others, as older harnesses send)
            extra["issued_mono_us"] = 1_000 * i + block
        samples.append(make_sample("h2" if i % 2 else "https-h1", block, i, **extra))
    return samples


def loaded(comparison: Comparison) -> tuple[loader.LoadedComparison, loader.LoadedComparison]:
    return loader.load_comparison(comparison), loader.load_comparison(comparison, phases=True)


NAMES = ("arm", "device", "profile", "block", "period", "repetition", "step", "phase_measure", "ok",
         "first_on_connection", "total_us", "ttfb_us", "resp_bytes", "server_delay_us", "start_us", "issued_us")


def rows(c: loader.LoadedComparison) -> dict[str, np.ndarray]:
    """Every column, rows in a canonical order: the COPY reads the samples in heap order
    (no ORDER BY), which PostgreSQL does not promise to be insertion order."""
    columns = {name: getattr(c.table, name) for name in NAMES}
    if c.phase_us is not None:
        columns.update(run=c.run, ttfb_null=c.ttfb_null, **{f"phase_{k}": v for k, v in c.phase_us.items()})
    order = np.lexsort([columns[name] for name in sorted(columns)])
    return {name: column[order] for name, column in columns.items()}


def assert_same(a: loader.LoadedComparison, b: loader.LoadedComparison) -> None:
    assert (a.table.arm_labels, a.table.device_labels, a.table.profile_labels, a.run_ids) == \
        (b.table.arm_labels, b.table.device_labels, b.table.profile_labels, b.run_ids)
    x, y = rows(a), rows(b)
    assert x.keys() == y.keys()
    for name in x:
        assert x[name].dtype == y[name].dtype, name
        assert np.array_equal(x[name], y[name]), name


@pytest.mark.django_db
def test_blocks_uploaded_through_the_protocol_load_as_their_samples_do(runner_api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC2)
    comparison_plan(comparison_id=str(comparison.id))
    run = comparison.runs.get()
    leased = lease(runner_api).json()["runs"][0]
    for block in range(3):
        response = upload(runner_api, leased, block, samples=varied(block) if block < 2 else [])
        assert response.status_code in (200, 201), response.content
    assert upload(runner_api, leased, 0, samples=varied(0)).json()["duplicate"] is True
    blobs = BlockColumns.objects.filter(run=run).order_by("block")
    assert [(b.block, b.rows) for b in blobs] == [(0, 9), (1, 9), (2, 0)]  # one per block, the repeat ignored

    from_blobs = loaded(comparison)
    assert len(from_blobs[0].table.arm) == 18
    assert not from_blobs[1].table.ok.all()
    assert not from_blobs[1].table.phase_measure.all()
    assert (from_blobs[1].phase_us["tls"] != loader.PHASE_NULL).any()
    BlockColumns.objects.all().delete()
    from_copy = loaded(comparison)
    assert_same(from_blobs[0], from_copy[0])
    assert_same(from_blobs[1], from_copy[1])


@pytest.mark.django_db
def test_a_run_missing_some_blocks_columns_is_read_from_its_samples(runner_api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC2)
    comparison_plan(comparison_id=str(comparison.id))
    leased = lease(runner_api).json()["runs"][0]
    for block in range(2):
        upload(runner_api, leased, block, samples=varied(block))
    complete = loaded(comparison)
    BlockColumns.objects.filter(block=1).delete()  # e.g. stored by an older version
    assert_same(complete[1], loaded(comparison)[1])


@pytest.mark.django_db
def test_imports_store_each_blocks_columns_for_every_run(api):
    rows = [{"arm": arm, "device": device, "network_profile": profile, "round": rnd, "sequence": seq,
             "ms": 10 + seq + 0.5 * rnd + (3 if arm == "b" else 0), "bytes": 1000,
             **({"dns_ms": 1.5, "connect_ms": 2, "tls_ms": 3, "ttfb_ms": 4} if seq == 0 else {}),
             **({"error": "boom"} if (seq, rnd) == (2, 1) else {})}
            for device in ("d1", "d2") for profile in ("none", "lte") for rnd in range(3)
            for arm in ("a", "b") for seq in range(4)]
    response = api.post("/api/v1/imports", {"name": "blobs", "rows": rows}, format="json")
    assert response.status_code == 201, response.content
    comparison = Comparison.objects.get(pk=response.json()["id"])
    assert comparison.runs.count() == 4
    for run in comparison.runs.all():
        assert sorted(BlockColumns.objects.filter(run=run).values_list("block", "rows")) == [(0, 8), (1, 8), (2, 8)]
    from_blobs = loaded(comparison)
    BlockColumns.objects.all().delete()
    from_copy = loaded(comparison)
    assert_same(from_blobs[0], from_copy[0])
    assert_same(from_blobs[1], from_copy[1])


@pytest.mark.django_db
def test_backfill_command_restores_the_fast_path(api):
    from django.core.management import call_command

    from apps.results.models import BlockColumns

    response = api.post("/api/v1/imports", {"name": "backfill", "rows": [
        {"arm": "a", "device": "d", "round": r, "sequence": s, "ms": 10 + r + s, "bytes": 100}
        for r in range(3) for s in range(4)]}, format="json")
    assert response.status_code == 201
    assert BlockColumns.objects.count() == 3
    BlockColumns.objects.all().delete()
    call_command("backfill_block_columns")
    assert BlockColumns.objects.count() == 3
    assert BlockColumns.objects.filter(rows=4).count() == 3


def test_devices_of_one_platform_and_model_form_one_class():
    from apps.results.storage.loader import device_classes

    model_of = {"p8-a": ("android", "Pixel 8"), "p8-b": ("android", "Pixel 8"), "ip15": ("ios", "iPhone 15")}
    # A device alone in its model, or of no known model, keeps its own label (its own class).
    assert device_classes(["p8-a", "ip15", "p8-b", "host-1"], model_of) == (
        "android / Pixel 8", "ip15", "android / Pixel 8", "host-1")


@pytest.mark.django_db
def test_the_links_measured_rate_reaches_the_analysis(runner_api, org, pool):
    """The payload sweep's stall model falls back on the link's measured goodput: the
    loader hands each run's measured.goodput_kbit.down on, by (device, profile) label."""
    comparison = comparison_create(organization=org, submitted_spec=SPEC2)
    comparison_plan(comparison_id=str(comparison.id))
    run = comparison.runs.get()
    assert loader.load_comparison(comparison).link_rates == {}  # nothing measured: nothing invented
    run.link = {"profile": "lte", "measured": {"goodput_kbit": {"down": 11800.5, "up": 11650.0}}}
    run.save(update_fields=["link"])
    upload(runner_api, lease(runner_api).json()["runs"][0], 0, samples=varied(0))
    got = loader.load_comparison(comparison)
    run.refresh_from_db()  # the lease gave it its device
    assert got.link_rates == {(loader.run_device_label(run), run.network_profile): 11800.5}


@pytest.mark.django_db
def test_a_blocks_columns_stored_twice_are_marked_unusable_and_its_samples_read(runner_api, org, pool):
    """The protocol never stores a block twice; if it happened, the blob could not be trusted
    (two batches' columns, one blob): it is marked (rows -1, no data) and the loader reads the
    run's samples instead."""
    comparison = comparison_create(organization=org, submitted_spec=SPEC2)
    comparison_plan(comparison_id=str(comparison.id))
    run = comparison.runs.get()
    leased = lease(runner_api).json()["runs"][0]
    for block in range(2):
        upload(runner_api, leased, block, samples=varied(block))
    stored = BlockColumns.objects.get(run=run, block=1)
    assert stored.rows == 9
    assert len(bytes(stored.data)) == 9 * block_columns._ROW_BYTES[block_columns.FORMAT]  # noqa: SLF001 — layout
    complete = loaded(comparison)

    block_columns.block_columns_store(run.id, {1: block_columns.block_columns_decode(bytes(stored.data), 9)})

    again = BlockColumns.objects.get(run=run, block=1)
    assert (again.rows, bytes(again.data)) == (-1, b"")
    assert_same(complete[1], loaded(comparison)[1])
